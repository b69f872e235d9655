package notion

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// normalize clears what Notion fills in on its own (IDs, default colours,
// empty arrays) so a written tree compares equal to its export.
func normalize(bs []blocks.Block) []blocks.Block {
	if len(bs) == 0 {
		return nil
	}
	out := make([]blocks.Block, len(bs))
	for i, b := range bs {
		b.ID = ""
		if b.Color == "default" {
			b.Color = ""
		}
		b.RichText = normRT(b.RichText)
		b.Caption = normRT(b.Caption)
		if len(b.Cells) == 0 {
			b.Cells = nil
		}
		for j := range b.Cells {
			b.Cells[j] = normRT(b.Cells[j])
		}
		b.Children = normalize(b.Children)
		out[i] = b
	}
	return out
}

func normRT(rt []blocks.RichText) []blocks.RichText {
	if len(rt) == 0 {
		return nil
	}
	return rt
}

func TestExportRoundTripsThroughBlocks(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	target := e.createPage(root, "Linked page")
	upload := e.uploadFile("photo.png", []byte("png bytes"))

	bold := blocks.Annotations{Bold: true, Color: "red"}
	src := []blocks.Block{
		{Type: blocks.Heading1, RichText: []blocks.RichText{{Text: "Title"}}},
		{Type: blocks.Heading2, RichText: []blocks.RichText{{Text: "Toggle heading"}}, Children: []blocks.Block{
			{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "under heading"}}}}},
		{Type: blocks.Heading3, RichText: []blocks.RichText{{Text: "h3"}}, Color: "blue_background"},
		{Type: blocks.Paragraph, RichText: []blocks.RichText{
			{Text: "plain "}, {Text: "bold red", Annotations: bold}, {Text: "link", Link: "https://example.com"},
			{Equation: "e^{i\\pi}+1=0"}, {Mention: target, Text: "Linked page"}}},
		{Type: blocks.BulletedListItem, RichText: []blocks.RichText{{Text: "bullet"}}, Children: []blocks.Block{
			{Type: blocks.NumberedListItem, RichText: []blocks.RichText{{Text: "nested number"}}}}},
		{Type: blocks.ToDo, RichText: []blocks.RichText{{Text: "done"}}, Checked: true},
		{Type: blocks.Toggle, RichText: []blocks.RichText{{Text: "toggle"}}, Children: []blocks.Block{
			{Type: blocks.Quote, RichText: []blocks.RichText{{Text: "quoted"}}}}},
		{Type: blocks.Callout, RichText: []blocks.RichText{{Text: "note"}}, Icon: "⭐", Color: "yellow_background"},
		{Type: blocks.Code, RichText: []blocks.RichText{{Text: "fmt.Println(1)"}}, Language: "go",
			Caption: []blocks.RichText{{Text: "main.go"}}},
		{Type: blocks.Equation, Expression: "a^2+b^2=c^2"},
		{Type: blocks.Divider},
		{Type: blocks.Table, TableWidth: 2, HasColumnHeader: true, Children: []blocks.Block{
			{Type: blocks.TableRow, Cells: [][]blocks.RichText{{{Text: "A"}}, {{Text: "B"}}}},
			{Type: blocks.TableRow, Cells: [][]blocks.RichText{{{Text: "1"}}, {}}}}},
		{Type: blocks.Image, Media: &blocks.Media{FileUploadID: upload}, Caption: []blocks.RichText{{Text: "a photo"}}},
		{Type: blocks.File, Media: &blocks.Media{URL: "https://example.com/a.docx", Name: "a.docx"}},
		{Type: blocks.PDF, Media: &blocks.Media{URL: "https://example.com/a.pdf"}},
		{Type: blocks.Video, Media: &blocks.Media{URL: "https://example.com/v.mp4"}},
		{Type: blocks.Audio, Media: &blocks.Media{URL: "https://example.com/a.mp3"}},
		{Type: blocks.Embed, Media: &blocks.Media{URL: "https://example.com/embed"}},
		{Type: blocks.Bookmark, Media: &blocks.Media{URL: "https://example.com/bm"}},
	}
	raw, err := json.Marshal(map[string]any{
		"parent":     map[string]any{"page_id": root},
		"properties": map[string]any{"title": []any{text("Round trip")}},
		"children":   src,
	})
	if err != nil {
		t.Fatal(err)
	}
	page := e.ok("POST", "/v1/pages", string(raw))["id"].(string)

	// The HTTP export and the Go export agree.
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("GET", "http://notion.test/_emulator/export", nil))
	var decoded struct {
		Pages []struct {
			Pages []struct {
				ID     string         `json:"id"`
				Title  string         `json:"title"`
				Blocks []blocks.Block `json:"blocks"`
			} `json:"pages"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &decoded); err != nil {
		t.Fatalf("export does not unmarshal into notion/blocks: %v", err)
	}
	subs := decoded.Pages[0].Pages
	if len(subs) != 2 || subs[1].ID != page || subs[1].Title != "Round trip" {
		t.Fatalf("export tree: %+v", subs)
	}
	got := normalize(subs[1].Blocks)
	want := normalize(src)
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if i >= len(got) || !reflect.DeepEqual(got[i], want[i]) {
				g, _ := json.Marshal(got[min(i, len(got)-1)])
				w, _ := json.Marshal(want[i])
				t.Fatalf("block %d differs:\n got  %s\n want %s", i, g, w)
			}
		}
		t.Fatalf("got %d blocks, want %d", len(got), len(want))
	}

	ws := e.srv.Export()
	img := ws.Pages[0].Pages[1].Blocks[12]
	if img.File == nil || img.File.Filename != "photo.png" || img.File.ContentType != "image/png" || img.File.Size != 9 || len(img.File.SHA256) != 64 {
		t.Errorf("image file info: %+v", img.File)
	}
	if ws.Stats.Tokens[e.token].Requests == 0 {
		t.Errorf("export carries no counters: %+v", ws.Stats)
	}
}

func TestExportDatabasesWithRows(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	addRow(e, db, rowProps("Row A", "a", false, "page", 1))
	addRow(e, db, rowProps("Row B", "b", true, "", 2))
	ws := e.srv.Export()
	dbs := ws.Pages[0].Databases
	if len(dbs) != 1 || dbs[0].Title != "Section" || len(dbs[0].Rows) != 2 || dbs[0].Rows[1].Title != "Row B" {
		t.Fatalf("databases: %+v", dbs)
	}
	src := dbs[0].Rows[0].Properties["Source ID"].(map[string]any)["rich_text"].([]any)
	if plainText(src) != "a" {
		t.Errorf("row properties: %v", dbs[0].Rows[0].Properties)
	}
}
