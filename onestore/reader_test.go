package onestore

import (
	"bytes"
	"errors"
	"fmt"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"io"
	"testing"
	"time"
)

// layouts are the two ways a section file is written.
var layouts = []struct {
	name     string
	packaged bool
}{{"revision store", false}, {"packaged", true}}

func TestRoundTrip(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { testRoundTrip(t, l.packaged) })
	}
}

func testRoundTrip(t *testing.T, packaged bool) {
	yes, no := true, false
	png := []byte("\x89PNG\r\n\x1a\nnot really an image, but bytes to carry")
	created := time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)
	pages := []fx.Page{
		{GUID: fx.GUID{1}, Title: "Project status", Created: created, Paras: []fx.Para{
			{Text: "Plain paragraph"},
			{Text: "Bold words", Bold: true},
			{Text: "the docs", Link: "https://example.com/doc"},
			{Text: "Buy milk", Todo: &no},
			{Text: "Call back", Todo: &yes},
			{Text: "First", Number: true, Child: "nested under first"},
		}, Image: png, ImageAlt: "a chart"},
		{GUID: fx.GUID{2}, Title: "Subpage", Level: 1, Created: created.Add(time.Hour), Paras: []fx.Para{{Text: "Under the first"}}},
		{GUID: fx.GUID{3}, Title: "Second top page", Level: 0, Created: created.Add(2 * time.Hour), Ink: [][2]int64{{1000, 2000}, {1010, 1990}, {1500, 2600}}},
	}
	file := sectionAs(pages, packaged)
	r, err := NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	infos, err := r.Pages()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != len(pages) {
		t.Fatalf("%d pages, want %d", len(infos), len(pages))
	}
	for i, p := range pages {
		got := infos[i]
		if got.GUID != GUID(p.GUID) || got.Title != p.Title || got.Level != p.Level || got.Order != i || !got.Created.Equal(p.Created) {
			t.Errorf("page %d = %+v, want guid %s title %q level %d created %s", i, got, p.GUID, p.Title, p.Level, p.Created)
		}
	}
	if infos[0].Images != 1 || infos[1].Images != 0 {
		t.Errorf("image counts %d, %d; want 1, 0", infos[0].Images, infos[1].Images)
	}
	page, err := r.Page(GUID{1})
	if err != nil {
		t.Fatal(err)
	}
	if got := plainText(page.Title); got != "Project status" {
		t.Errorf("title paragraphs %q", got)
	}
	if len(page.Outlines) != 1 || page.Outlines[0].X != 36 || page.Outlines[0].Y != 72 {
		t.Fatalf("outlines %+v, want one at 36,72 points (1 and 2 half-inches)", page.Outlines)
	}
	els := page.Outlines[0].Elements
	if len(els) != 7 {
		t.Fatalf("%d elements, want 7", len(els))
	}
	tests := []struct {
		name  string
		check func() bool
	}{
		{"plain text", func() bool { return els[0].Content[0].Paragraph.Text() == "Plain paragraph" }},
		{"bold run", func() bool { r := els[1].Content[0].Paragraph.Runs[0]; return r.Bold && r.Text == "Bold words" }},
		{"not bold", func() bool { return !els[0].Content[0].Paragraph.Runs[0].Bold }},
		{"hyperlink", func() bool {
			r := els[2].Content[0].Paragraph.Runs[0]
			return r.Link == "https://example.com/doc" && r.Text == "the docs"
		}},
		{"to-do open", func() bool {
			tg := els[3].Tags
			return len(tg) == 1 && tg[0].Checkable && !tg[0].Checked && tg[0].Label == "To Do"
		}},
		{"to-do checked", func() bool { tg := els[4].Tags; return len(tg) == 1 && tg[0].Checked }},
		{"numbered", func() bool { return els[5].List != nil && els[5].List.Ordered }},
		{"nested", func() bool {
			c := els[5].Children
			return len(c) == 1 && c[0].Content[0].Paragraph.Text() == "nested under first"
		}},
		{"image", func() bool {
			im := els[6].Content[0].Image
			return im != nil && im.Alt == "a chart" && im.Resource != ""
		}},
		{"authors", func() bool { return len(page.Info.Authors) == 1 && page.Info.Authors[0] == "Test Author" }},
	}
	for _, tc := range tests {
		if !tc.check() {
			t.Errorf("%s: not as written", tc.name)
		}
	}
	third, err := r.Page(GUID{3})
	if err != nil {
		t.Fatal(err)
	}
	if third.Info.Ink != 1 || len(third.Outlines) != 2 {
		t.Fatalf("third page: %d ink, %d outlines; want 1 ink in an outline of its own", third.Info.Ink, len(third.Outlines))
	}
	ink := third.Outlines[1].Elements[0].Content[0].Ink
	want := []InkPoint{{1000, 2000}, {1010, 1990}, {1500, 2600}}
	if ink == nil || len(ink.Strokes) != 1 || fmt.Sprint(ink.Strokes[0].Points) != fmt.Sprint(want) || ink.Strokes[0].Color != "#97552f" || ink.Strokes[0].Width != 53 {
		t.Errorf("ink %+v, want one stroke through %v", ink, want)
	}
	if len(page.Resources) != 1 {
		t.Fatalf("%d resources, want 1", len(page.Resources))
	}
	got, err := io.ReadAll(page.Resources[0].Open())
	if err != nil || !bytes.Equal(got, png) || page.Resources[0].Extension != ".png" {
		t.Errorf("image bytes %q (%v), ext %q; want %q", got, err, page.Resources[0].Extension, png)
	}
}

func TestTOCOrder(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) { testTOCOrder(t, l.packaged) })
	}
}

// TestTOCNodes: a table of contents written as OneNote writes .onetoc2
// files (RevisionManifestStart4FND, the revision's own global ID table,
// ObjectDeclarationWithRefCountFNDX, RootObjectReference2FNDX).
func TestTOCNodes(t *testing.T) {
	testTOC(t, fx.TOCNodes([]string{"Notes.one", "Group A", "Archive.one"}))
}

func testTOCOrder(t *testing.T, packaged bool) {
	testTOC(t, tocAs([]string{"Notes.one", "Group A", "Archive.one"}, packaged))
}

func testTOC(t *testing.T, file []byte) {
	r, err := NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	if r.IsSection() {
		t.Fatal("a table of contents read as a section")
	}
	toc, err := r.TOC()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range toc {
		names = append(names, e.Name)
	}
	if want := []string{"Notes.one", "Group A", "Archive.one"}; !equalStrings(names, want) {
		t.Errorf("toc %q, want %q", names, want)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestRefusals: damaged and unsupported files get the typed error that
// names the structure or the format.
func TestRefusals(t *testing.T) {
	good := fx.Section([]fx.Page{{GUID: fx.GUID{1}, Title: "x", Paras: []fx.Para{{Text: "y"}}}})
	mutate := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	tests := []struct {
		name        string
		file        []byte
		unsupported bool
	}{
		{"empty", nil, false},
		{"truncated header", good[:500], false},
		{"truncated body", good[:len(good)/2], false},
		{"not a OneNote file", mutate(func(b []byte) []byte { b[0] ^= 0xFF; return b }), false},
		{"OneNote 2007", mutate(func(b []byte) []byte { b[64] = 0x1A; return b }), true},
		{"revision store under the packaged GUID", mutate(func(b []byte) []byte { copy(b[48:], guidFileFormatPack[:]); return b }), false},
		{"root list beyond the file", mutate(func(b []byte) []byte { b[178] = 0x7F; return b }), false},
		{"huge transaction count", mutate(func(b []byte) []byte { b[99] = 0x7F; return b }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tc.file), int64(len(tc.file)))
			if err == nil {
				_, err = r.Pages()
			}
			var fe *FormatError
			var ue *UnsupportedError
			switch {
			case tc.unsupported && !errors.As(err, &ue):
				t.Fatalf("err = %v, want an UnsupportedError", err)
			case !tc.unsupported && !errors.As(err, &fe):
				t.Fatalf("err = %v, want a FormatError", err)
			}
			t.Log(err)
		})
	}
}

// TestEncryptedSection: a password-protected section is named by
// ErrEncrypted, in both layouts, and a notebook keeps it with that error.
func TestEncryptedSection(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			file := fx.EncryptedSection([]fx.Page{{GUID: fx.GUID{1}, Title: "secret"}}, l.packaged)
			r, err := NewReader(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Pages(); !errors.Is(err, ErrEncrypted) {
				t.Fatalf("err = %v, want ErrEncrypted", err)
			}
		})
	}
}

// TestConcurrentPages: one Reader serves pages to several goroutines (run
// with -race).
func TestConcurrentPages(t *testing.T) {
	var pages []fx.Page
	for i := range 8 {
		pages = append(pages, fx.Page{GUID: fx.GUID{byte(i + 1)}, Title: fmt.Sprintf("Page %d", i), Paras: []fx.Para{{Text: fmt.Sprintf("text %d", i)}}, Image: []byte{byte(i)}})
	}
	file := fx.Section(pages)
	r, err := NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, len(pages))
	for i := range pages {
		go func() {
			p, err := r.Page(GUID{byte(i + 1)})
			if err == nil && allText(p) != fmt.Sprintf("Page %d\ntext %d\n", i, i) {
				err = fmt.Errorf("page %d text %q", i, allText(p))
			}
			errs <- err
		}()
	}
	for range pages {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
