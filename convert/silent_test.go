package convert

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// TestSilentChanges converts the fixtures written for changes the
// converter once made without a word (testdata/pages) and checks each is
// now kept where Notion can show it, or named in the losses.
func TestSilentChanges(t *testing.T) {
	tests := []struct {
		fixture string
		check   func(t *testing.T, res *Result)
	}{
		{"quote-style", func(t *testing.T, res *Result) {
			// OneNote's Quote style (grey #595959 italic on the p) keeps
			// its look inside the quote block.
			quotes := 0
			for _, b := range res.Blocks {
				if b.Type != blocks.Quote {
					continue
				}
				quotes++
				for _, rt := range b.RichText {
					if !rt.Annotations.Italic || rt.Annotations.Color != "gray" {
						t.Errorf("quote item %q: italic %v, colour %q; want italic gray", rt.Text, rt.Annotations.Italic, rt.Annotations.Color)
					}
				}
			}
			if quotes != 2 {
				t.Errorf("%d quote blocks, want 2", quotes)
			}
			// The grey is reported once a paragraph, not once a run.
			if got := lossDetailCount(res.Losses, LossColor, `text colour "#595959" shown as Notion "gray"`); got != 2 {
				t.Errorf("grey reported %d times, want 2 (one a paragraph): %+v", got, res.Losses)
			}
		}},
		{"object-in-word", func(t *testing.T, res *Result) {
			// Each U+FFFC shown as a space inside a word is named.
			if got := lossDetailCount(res.Losses, LossUnsupported, "an embedded object Graph did not export (U+FFFC) inside a word, shown as a space"); got != 2 {
				t.Errorf("%d word-break objects reported, want 2: %+v", got, res.Losses)
			}
		}},
		{"object-beside-text", func(t *testing.T, res *Result) {
			// A U+FFFC beside a space or punctuation, at either end of a
			// line, in code or in the title is deleted and named, each one.
			if got := lossDetailCount(res.Losses, LossUnsupported, "an embedded object Graph did not export (U+FFFC), left out"); got != 7 {
				t.Errorf("%d objects beside text reported, want 7: %+v", got, res.Losses)
			}
			if res.Title != "Objects beside text" {
				t.Errorf("title %q", res.Title)
			}
			if text := allText(res.Blocks); strings.ContainsRune(text, objectReplacement) {
				t.Errorf("U+FFFC left in the page: %q", text)
			}
		}},
		{"citation-style", func(t *testing.T, res *Result) {
			// A cite keeps its own highlight, colour and italics inside
			// the quote; the Citation style's grey is the quote itself.
			want := map[string]blocks.Annotations{
				"Annual report, page 12": {},
				"Highlighted citation":   {Color: "yellow_background"},
				"Red italic citation":    {Italic: true, Color: "red"},
				"in green":               {Color: "green_background"},
			}
			for _, b := range res.Blocks[1:] {
				if b.Type != blocks.Quote {
					t.Errorf("%s block %q, want a quote", b.Type, blocks.PlainText(b.RichText))
				}
				for _, rt := range b.RichText {
					if w, ok := want[rt.Text]; ok && rt.Annotations != w {
						t.Errorf("%q: %+v, want %+v", rt.Text, rt.Annotations, w)
					}
					delete(want, rt.Text)
				}
			}
			if len(want) > 0 {
				t.Errorf("runs not found: %v", want)
			}
		}},
		{"highlight-black", func(t *testing.T, res *Result) {
			// Black text under a highlight is never dropped, wherever it
			// stands; a highlight a code block cannot show is named.
			text := allText(res.Blocks)
			for _, want := range []string{"Black on yellow", "Whole paragraph highlighted", "Black on turquoise in a list",
				"Black in a cell", "Nested black under a highlight", "highlighted_code()", "Highlighted heading"} {
				if !strings.Contains(text, want) {
					t.Errorf("%q dropped; the page reads %q", want, text)
				}
			}
			// A highlight on a heading element is kept: only the
			// heading's colour and size are its style.
			if h := res.Blocks[len(res.Blocks)-1]; h.Type != blocks.Heading2 || len(h.RichText) != 1 || h.RichText[0].Annotations.Color != "yellow_background" {
				t.Errorf("last block %s %+v, want a heading_2 highlighted yellow", h.Type, h.RichText)
			}
			if got := lossDetailCount(res.Losses, LossColor, `highlight "yellow" dropped in a code block`); got != 1 {
				t.Errorf("highlight on code reported %d times, want 1: %+v", got, res.Losses)
			}
		}},
		{"math-operators", func(t *testing.T, res *Result) {
			// No padding spaces around operators (an NBSP mo or a blank
			// mtext); a space typed inside an identifier or between
			// operands stays.
			var got []string
			for _, b := range res.Blocks {
				got = append(got, b.Expression)
			}
			want := []string{`a+b=c`, `\mathrm{unit\ price}\times\mathrm{count}`, `x\ y`, `a-b\ c`}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("equations\n got %q\nwant %q", got, want)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			res, err := Page(readFixture(t, filepath.Join(ownFixtures, tt.fixture), ".html"), Options{})
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, res)
		})
	}
}

// allText is the text of a block tree, table cells included, one block a
// line.
func allText(bs []blocks.Block) string {
	var b strings.Builder
	for _, x := range bs {
		b.WriteString(blocks.PlainText(x.RichText) + "\n")
		for _, c := range x.Cells {
			b.WriteString(blocks.PlainText(c) + "\n")
		}
		b.WriteString(allText(x.Children))
	}
	return b.String()
}
