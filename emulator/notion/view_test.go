package notion

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func (e *env) view(path string) (int, string) {
	e.t.Helper()
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("GET", "http://notion.test"+path, nil))
	return rec.Code, rec.Body.String()
}

func TestViewRendersEveryBlockType(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	linked := e.createPage(root, "Linked")
	upload := e.uploadFile("photo.png", []byte("png"))
	attachment := e.uploadFile("report.pdf", []byte("%PDF"))
	styled := map[string]any{"type": "text", "text": map[string]any{"content": "bold link", "link": map[string]any{"url": "https://example.com/x"}},
		"annotations": map[string]any{"bold": true, "italic": true, "color": "red"}}
	page := e.createPage(root, "Every block",
		block("heading_1", map[string]any{"rich_text": rt(text("Heading one"))}),
		block("heading_2", map[string]any{"rich_text": rt(text("Heading two"))}),
		block("heading_3", map[string]any{"rich_text": rt(text("Heading three"))}),
		block("paragraph", map[string]any{"rich_text": rt(text("<script>alert(1)</script>"), styled)}),
		block("bulleted_list_item", map[string]any{"rich_text": rt(text("bullet one"))}),
		block("bulleted_list_item", map[string]any{"rich_text": rt(text("bullet two"))}),
		block("numbered_list_item", map[string]any{"rich_text": rt(text("number one"))}),
		block("to_do", map[string]any{"rich_text": rt(text("task done")), "checked": true}),
		withChildren("toggle", map[string]any{"rich_text": rt(text("toggle title"))}, para("toggle body")),
		block("quote", map[string]any{"rich_text": rt(text("a quote"))}),
		block("callout", map[string]any{"rich_text": rt(text("a callout")), "icon": map[string]any{"emoji": "⚠️"}}),
		block("code", map[string]any{"rich_text": rt(text("x := <-ch")), "language": "go"}),
		block("equation", map[string]any{"expression": "E=mc^2"}),
		block("divider", map[string]any{}),
		tableBlock(2, []int{2}, []int{2}),
		imageBlock(upload),
		block("file", map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": attachment}, "name": "report.pdf"}),
		block("pdf", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/doc.pdf"}}),
		block("video", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/v.mp4"}}),
		block("audio", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/a.mp3"}}),
		block("bookmark", map[string]any{"url": "https://example.com/bookmark"}),
		block("embed", map[string]any{"url": "https://example.com/embed"}),
		withChildren("column_list", map[string]any{},
			withChildren("column", map[string]any{}, para("left column")),
			withChildren("column", map[string]any{}, para("right column"))),
		block("link_to_page", map[string]any{"type": "page_id", "page_id": linked}),
		block("table_of_contents", map[string]any{}),
	)
	e.createPage(page, "Sub page")

	status, html := e.view("/_emulator/view/" + page)
	if testing.Verbose() {
		t.Log(html)
	}
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	for _, want := range []string{
		"<h1 class=\"title\">Every block</h1>",
		"<h2>", "Heading one", "<h3>", "<h4>",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		`<a href="https://example.com/x"><span class="red"><strong><em>bold link</em></strong></span></a>`,
		"<ul><li>", "bullet one", "bullet two", "<ol><li>", "number one",
		`<input type="checkbox" disabled checked>`,
		"<details open><summary>", "toggle body",
		"<blockquote>", "a quote",
		`<div class="callout">`, "⚠️",
		`<pre><code class="language-go">`, "x := &lt;-ch",
		`<div class="equation">E=mc^2</div>`,
		"<hr>",
		`<table class="content"><tr><th>`,
		`<img src="http://notion.test/_emulator/files/` + upload + `/photo.png"`,
		`<a href="http://notion.test/_emulator/files/` + attachment + `/report.pdf">report.pdf</a>`,
		`<video controls src="https://example.com/v.mp4">`,
		`<audio controls src="https://example.com/a.mp3">`,
		`<a href="https://example.com/bookmark">`,
		`<div class="columns">`, "left column", "right column",
		`<a href="/_emulator/view/` + linked + `">Linked</a>`,
		"Sub page",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("view lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>alert") {
		t.Error("view contains an unescaped <script>")
	}
	// Bullets are grouped in one list.
	if !strings.Contains(html, "<ul><li><span>bullet one</span></li><li><span>bullet two</span></li></ul>") {
		t.Errorf("bulleted items not grouped in one list")
	}
}

func TestViewIndexAndDatabase(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	row := addRow(e, db, rowProps("<b>Row</b>", "src-1", true, "page", 3))
	status, html := e.view("/_emulator/view")
	if status != 200 || !strings.Contains(html, "Migrated notebooks") || !strings.Contains(html, "/_emulator/view/"+db) {
		t.Fatalf("index: %d", status)
	}
	_, html = e.view("/_emulator/view/" + db)
	for _, want := range []string{`<table class="database">`, "<th>Name</th>", "<th>Source ID</th>",
		`<a href="/_emulator/view/` + row + `">&lt;b&gt;Row&lt;/b&gt;</a>`, "src-1"} {
		if !strings.Contains(html, want) {
			t.Errorf("database view lacks %q", want)
		}
	}
	_, html = e.view("/_emulator/view/" + row)
	if !strings.Contains(html, "src-1") || !strings.Contains(html, "Source ID") {
		t.Errorf("row view lacks its properties")
	}
	if status, _ := e.view("/_emulator/view/00000000-0000-4000-8000-000000000000"); status != 404 {
		t.Errorf("unknown page: %d", status)
	}
}

// TestViewShowsRelationsByName: a row's parent item shows as the parent
// row's title, as Notion shows a relation.
func TestViewShowsRelationsByName(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	e.ok("PATCH", "/v1/databases/"+db, map[string]any{"properties": map[string]any{
		"Parent item": map[string]any{"relation": map[string]any{"database_id": db, "type": "single_property", "single_property": map[string]any{}}}}})
	parent := addRow(e, db, rowProps("Parent page", "src-1", true, "page", 1))
	child := rowProps("Child page", "src-2", true, "page", 2)
	child["Parent item"] = map[string]any{"relation": []any{map[string]any{"id": parent}}}
	addRow(e, db, child)
	_, html := e.view("/_emulator/view/" + db)
	if !strings.Contains(html, "<td>Parent page</td>") || strings.Contains(html, "<td>"+parent+"</td>") {
		t.Errorf("the database view does not show the parent item by name:\n%s", html)
	}
}
