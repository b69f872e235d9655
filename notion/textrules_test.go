package notion

import (
	"fmt"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestFitText(t *testing.T) {
	long := strings.Repeat("a", 4500)
	emoji := strings.Repeat("😀", 1500) // 3000 UTF-16 units
	var many []blocks.RichText
	for i := 0; i < 250; i++ {
		many = append(many, blocks.RichText{Text: "x", Annotations: blocks.Annotations{Bold: i%2 == 0}})
	}
	in := []blocks.Block{
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: long, Link: "https://e.com", Annotations: blocks.Annotations{Italic: true}}}},
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: emoji}}},
		{Type: blocks.BulletedListItem, RichText: many, Children: []blocks.Block{para("child")}},
		{Type: blocks.Equation, Expression: strings.Repeat("x+", 600)},
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "l", Link: "https://e.com/" + strings.Repeat("p", 2000)}}},
		{Type: blocks.Table, TableWidth: 1, Children: []blocks.Block{{Type: blocks.TableRow, Cells: [][]blocks.RichText{many}}}},
	}
	before := fmt.Sprint(in)
	out, losses := fitText(in)
	if fmt.Sprint(in) != before {
		t.Error("fitText modified its input")
	}
	var check func(bs []blocks.Block)
	check = func(bs []blocks.Block) {
		for _, b := range bs {
			arrays := append([][]blocks.RichText{b.RichText, b.Caption}, b.Cells...)
			for _, rt := range arrays {
				if len(rt) > blocks.MaxRichTextItems {
					t.Errorf("%s: %d rich-text items", b.Type, len(rt))
				}
				for _, r := range rt {
					if blocks.UTF16Len(r.Text) > blocks.MaxTextLen || len(r.Link) > blocks.MaxURLLen || blocks.UTF16Len(r.Equation) > blocks.MaxEquationLen {
						t.Errorf("%s: run breaks a rule (%d chars)", b.Type, blocks.UTF16Len(r.Text))
					}
				}
			}
			if blocks.UTF16Len(b.Expression) > blocks.MaxEquationLen {
				t.Errorf("equation of %d chars", len(b.Expression))
			}
			check(b.Children)
		}
	}
	check(out)
	if got := out[0].RichText; len(got) != 3 || blocks.PlainText(got) != long || got[2].Link != "https://e.com" || !got[2].Annotations.Italic {
		t.Errorf("long run split into %d runs", len(got))
	}
	if blocks.PlainText(out[1].RichText) != emoji {
		t.Error("emoji text changed")
	}
	// 250 alternating runs cannot merge: three list items, the children
	// on the last.
	if out[2].Type != blocks.BulletedListItem || len(out[2].Children) != 0 || len(out[4].Children) != 1 || out[5].Type != blocks.Code {
		t.Errorf("split list item: %v %v %v", out[2].Type, out[4].Type, out[5].Type)
	}
	if n := len(losses); n != 3 {
		t.Errorf("%d losses, want 3 (equation, link, table cell): %+v", n, losses)
	}
}
