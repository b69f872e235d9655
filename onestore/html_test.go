package onestore

import (
	"bytes"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/notion/blocks"
)

// TestHTMLThroughConverter renders a generated page as Graph-shaped HTML
// and converts it with package convert, unchanged: the blocks carry the
// text, formatting, link, to-dos, numbered list and image of the file.
func TestHTMLThroughConverter(t *testing.T) {
	yes, no := true, false
	file := fx.Section([]fx.Page{{GUID: fx.GUID{1}, Title: "Status <& more>", Created: time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC), Paras: []fx.Para{
		{Text: "Plain"},
		{Text: "Bold", Bold: true},
		{Text: "docs", Link: "https://example.com/doc?a=1&b=2"},
		{Text: "Buy milk", Todo: &no},
		{Text: "Call back", Todo: &yes},
		{Text: "First", Number: true},
	}, Image: []byte("\x89PNG bytes"), ImageAlt: "chart", File: []byte("%PDF-1.7 report"), FileName: "report.pdf"}})
	r, err := NewReader(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	page, err := r.Page(GUID{1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := convert.Page(page.HTML(), convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "Status <& more>" || !strings.HasPrefix(res.Created, "2024-05-01T10:00:00") {
		t.Errorf("title %q created %q", res.Title, res.Created)
	}
	var got []string
	var walk func(bs []blocks.Block)
	walk = func(bs []blocks.Block) {
		for _, b := range bs {
			s := string(b.Type)
			for _, rt := range b.RichText {
				s += "|" + rt.Text
				if rt.Annotations.Bold {
					s += "(b)"
				}
				if rt.Link != "" {
					s += "(" + rt.Link + ")"
				}
			}
			if b.Type == blocks.ToDo && b.Checked {
				s += "(checked)"
			}
			if b.Media != nil && b.Media.Resource != nil {
				s += "|resource " + b.Media.Resource.ID
				if b.Media.Name != "" {
					s += " " + b.Media.Name
				}
			}
			got = append(got, s)
			walk(b.Children)
		}
	}
	walk(res.Blocks)
	imageID, fileID := page.Resources[0].ID, page.Resources[1].ID
	want := []string{
		"paragraph|Plain",
		"paragraph|Bold(b)",
		"paragraph|docs(https://example.com/doc?a=1&b=2)",
		"to_do|Buy milk",
		"to_do|Call back(checked)",
		"numbered_list_item|First",
		"image|resource " + imageID,
		"pdf|resource " + fileID + " report.pdf",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("blocks:\n%s\nwant:\n%s\nhtml: %s", strings.Join(got, "\n"), strings.Join(want, "\n"), page.HTML())
	}
	if len(res.Resources) != 2 || page.Resource(res.Resources[0].ID) == nil || page.Resource(res.Resources[1].ID) == nil {
		t.Errorf("converter resources %+v do not name the page's resources", res.Resources)
	}
	if page.Info.Images != 1 || page.Info.Files != 1 {
		t.Errorf("counts: %d images, %d files; want 1 and 1", page.Info.Images, page.Info.Files)
	}
}

// TestInkThroughConverter: a page's strokes, rendered as InkML, are drawn
// by the converter's ink renderer, in both layouts.
func TestInkThroughConverter(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.name, func(t *testing.T) {
			file := sectionAs([]fx.Page{{GUID: fx.GUID{7}, Title: "Sketch", Paras: []fx.Para{{Text: "Above the drawing"}},
				Ink: [][2]int64{{2000, 4000}, {2600, 4100}, {3200, 4600}, {3900, 4300}}}}, l.packaged)
			r, err := NewReader(bytes.NewReader(file), int64(len(file)))
			if err != nil {
				t.Fatal(err)
			}
			page, err := r.Page(GUID{7})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Losses) != 0 {
				t.Errorf("reader losses %v", page.Losses)
			}
			res, err := convert.Page(page.HTML(), convert.Options{InkML: page.InkML()})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Ink) != 1 || !strings.Contains(string(res.Ink[0].Data), "<path") {
				t.Fatalf("converter drew %d ink images, want 1 (losses %v)", len(res.Ink), res.Losses)
			}
			for _, loss := range res.Losses {
				if loss.Kind == convert.LossInk {
					t.Errorf("ink reported lost: %+v", loss)
				}
			}
		})
	}
}
