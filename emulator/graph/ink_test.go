package graph

import (
	"testing"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/convert/ink"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
)

// TestGeneratedInkIsBesideAndOverText reads every generated ink page as a
// client does (includeInkML=true) and checks its ink: one group per ink
// node, a pen note beside the first outline's heading and a highlighter
// over the first line below it, and the converter puts each drawing right
// after the block it was drawn at, reporting no ink lost.
func TestGeneratedInkIsBesideAndOverText(t *testing.T) {
	spec := richSpec
	spec.InkEvery = 2
	f := newFixture(t, Config{}, spec)
	inkPages := 0
	for _, id := range f.srv.PageIDs("alice") {
		resp := f.content(t, "alice", id, "?includeInkML=true")
		body := readAll(t, resp.Body)
		html, inkML, _, err := onenote.ParseMultipart(resp.Header.Get("Content-Type"), []byte(body))
		if err != nil || inkML == nil {
			continue // a page without ink answers plain HTML
		}
		inkPages++
		groups, err := ink.Parse(inkML)
		if err != nil || len(groups) != 2 {
			t.Fatalf("page %s: %d ink groups (%v), want 2", id, len(groups), err)
		}
		note, band := groups[0], groups[1]
		nb := note.Bounds()
		if nb.Min.X < inkNoteLeft-5 || nb.Max.X > inkOutlineLeft+624 || nb.Min.Y < inkHeadingTop || nb.Max.Y > inkHeadingTop+inkHeadingLine+8 {
			t.Errorf("page %s: note at %+v, want beside the heading (x %d..%d, y %d..%d)", id, nb,
				inkNoteLeft, inkOutlineLeft+624, inkHeadingTop, inkHeadingTop+inkHeadingLine+8)
		}
		if len(note.Strokes) < 4 || note.Strokes[0].Brush.Highlighter || note.Strokes[0].Brush.Width <= 0 {
			t.Errorf("page %s: note has %d strokes, brush %+v; want letters and an underline in pen", id, len(note.Strokes), note.Strokes[0].Brush)
		}
		bb := band.Bounds()
		if b := band.Strokes[0].Brush; !b.Highlighter || b.Color != "#ffff00" || b.Opacity >= 1 || !b.Square {
			t.Errorf("page %s: band brush %+v, want a translucent yellow highlighter", id, b)
		}
		lineTop := float64(inkHeadingTop + inkHeadingLine)
		if bb.Min.X > inkOutlineLeft+1 || bb.Min.Y > lineTop+2 || bb.Max.Y < lineTop+inkTextLine-2 {
			t.Errorf("page %s: band at %+v, want over the line at y %v..%v from x %d", id, bb, lineTop, lineTop+inkTextLine, inkOutlineLeft)
		}

		res, err := convert.Page(html, convert.Options{InkML: inkML})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Losses {
			if l.Kind == convert.LossInk {
				t.Errorf("page %s: ink lost: %v", id, l)
			}
		}
		if len(res.Ink) != 2 {
			t.Fatalf("page %s: %d drawings, want 2", id, len(res.Ink))
		}
		at := map[string]string{} // drawing -> the block before it
		for i, b := range res.Blocks {
			if b.Media != nil && b.Media.Resource != nil && convert.IsDrawn(*b.Media.Resource, res.Ink) && i > 0 {
				at[b.Media.Resource.ID] = string(res.Blocks[i-1].Type) + " " + plain(res.Blocks[i-1])
			}
		}
		if got, want := at["ink:1"], "heading_1 "; len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("page %s: the note follows %q, want the heading", id, got)
		}
		if got, want := at["ink:2"], "paragraph "; len(got) < len(want) || got[:len(want)] != want {
			t.Errorf("page %s: the highlighter follows %q, want the paragraph it covers", id, got)
		}
	}
	if inkPages == 0 {
		t.Fatal("no page with ink")
	}
}

func plain(b blocks.Block) string {
	s := ""
	for _, r := range b.RichText {
		s += r.Text
	}
	return s
}

// TestRedrawInk changes only a page's ink: its HTML stays, its InkML is
// the new one, its lastModifiedDateTime moves.
func TestRedrawInk(t *testing.T) {
	f := newFixture(t, Config{}, richSpec)
	id := f.srv.PageIDs("alice")[0]
	read := func() (html, inkML string) {
		resp := f.content(t, "alice", id, "?includeInkML=true")
		h, i, _, err := onenote.ParseMultipart(resp.Header.Get("Content-Type"), []byte(readAll(t, resp.Body)))
		if err != nil {
			t.Fatal(err)
		}
		return string(h), string(i)
	}
	html0, ink0 := read()
	before := f.srv.users["alice"].pages[id].page
	modified := before.LastModifiedDateTime
	drawn := `<inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:traceGroup><inkml:trace>100 100, 900 900</inkml:trace></inkml:traceGroup></inkml:ink>`
	if err := f.srv.RedrawInk(id, drawn); err != nil {
		t.Fatal(err)
	}
	html1, ink1 := read()
	if html1 != html0 || ink1 != drawn || ink0 == drawn {
		t.Errorf("after RedrawInk: HTML changed %v, ink %.80q", html1 != html0, ink1)
	}
	if !before.LastModifiedDateTime.After(modified) {
		t.Errorf("lastModifiedDateTime %v did not move from %v", before.LastModifiedDateTime, modified)
	}
	if err := f.srv.RedrawInk("nope", drawn); err == nil {
		t.Error("RedrawInk of an unknown page succeeded")
	}
}
