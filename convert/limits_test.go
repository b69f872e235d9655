package convert

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestSplitTextNeverSplitsASurrogatePair(t *testing.T) {
	// 1999 ASCII characters then emoji: the first emoji would straddle the
	// 2000-unit boundary.
	s := strings.Repeat("a", 1999) + strings.Repeat("😀", 10)
	parts := splitText(s, blocks.MaxTextLen)
	if len(parts) != 2 {
		t.Fatalf("%d parts", len(parts))
	}
	if parts[0] != strings.Repeat("a", 1999) || parts[1] != strings.Repeat("😀", 10) {
		t.Errorf("split at the wrong place: %d + %d bytes", len(parts[0]), len(parts[1]))
	}
	for _, p := range parts {
		if !utf8.ValidString(p) || blocks.UTF16Len(p) > blocks.MaxTextLen {
			t.Errorf("bad part of %d units", blocks.UTF16Len(p))
		}
	}
}

func TestLongParagraphIsSplitIntoItems(t *testing.T) {
	text := strings.Repeat("word ", 1000) + "end" // 5003 characters
	r := convertBody(t, outlineDiv("<p>"+text+"</p>"), Options{})
	if len(r.Blocks) != 1 {
		t.Fatalf("%d blocks", len(r.Blocks))
	}
	rt := r.Blocks[0].RichText
	if len(rt) != 3 || blocks.PlainText(rt) != strings.TrimSpace(text) {
		t.Errorf("%d items, text kept = %v", len(rt), blocks.PlainText(rt) == text)
	}
}

func TestParagraphWithMoreThan100ItemsIsSplitIntoBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("<p>")
	for i := range 250 {
		if i%2 == 0 {
			b.WriteString("<b>bold</b>")
		} else {
			b.WriteString(" plain ")
		}
	}
	b.WriteString("</p>")
	r := convertBody(t, outlineDiv(b.String()), Options{})
	if len(r.Blocks) != 3 {
		t.Fatalf("%d blocks, want 3", len(r.Blocks))
	}
	var joined string
	for _, blk := range r.Blocks {
		if blk.Type != blocks.Paragraph || len(blk.RichText) > blocks.MaxRichTextItems {
			t.Errorf("block %s with %d items", blk.Type, len(blk.RichText))
		}
		joined += blocks.PlainText(blk.RichText)
	}
	if want := strings.TrimSpace(strings.Repeat("bold plain ", 125)); joined != want {
		t.Errorf("text lost: %d vs %d characters", len(joined), len(want))
	}
	if !hasLoss(r.Losses, LossSplit) {
		t.Errorf("split not reported")
	}
}

func TestTableCellWithTooManyRunsKeepsItsText(t *testing.T) {
	var b strings.Builder
	for range 150 {
		b.WriteString("<b>b</b><i>i</i>")
	}
	r := convertBody(t, outlineDiv("<table><tr><td>"+b.String()+"</td></tr></table>"), Options{})
	cell := r.Blocks[0].Children[0].Cells[0]
	if len(cell) > blocks.MaxRichTextItems || blocks.PlainText(cell) != strings.Repeat("bi", 150) {
		t.Errorf("%d items, text %q", len(cell), blocks.PlainText(cell))
	}
}

func TestLongLinkIsDropped(t *testing.T) {
	href := "https://example.com/" + strings.Repeat("a", 2100)
	r := convertBody(t, outlineDiv(`<p><a href="`+href+`">x</a></p>`), Options{})
	assertBlocks(t, r.Blocks, []blocks.Block{para(plain("x"))})
	if !hasLoss(r.Losses, LossLink) {
		t.Errorf("no link loss")
	}
}

func TestValidate(t *testing.T) {
	long := strings.Repeat("x", 2001)
	many := make([]blocks.RichText, 101)
	for i := range many {
		many[i] = plain("x")
	}
	img := &blocks.Media{Resource: &blocks.Resource{ID: "r"}}
	tests := []struct {
		name string
		bs   []blocks.Block
		bad  string
	}{
		{"valid", []blocks.Block{para(plain("a")), table(1, cells(rt(plain("b")))), {Type: blocks.Image, Media: img}}, ""},
		{"long text", []blocks.Block{para(plain(long))}, "UTF-16"},
		{"too many items", []blocks.Block{{Type: blocks.Paragraph, RichText: many}}, "rich-text items"},
		{"empty text", []blocks.Block{para(plain(""))}, "empty text"},
		{"long equation", []blocks.Block{{Type: blocks.Equation, Expression: strings.Repeat("x", 1001)}}, "equation"},
		{"long link", []blocks.Block{para(linked("a", "https://e.com/"+long))}, "link"},
		{"ragged table", []blocks.Block{table(2, cells(rt(plain("a"))))}, "cells"},
		{"empty table", []blocks.Block{{Type: blocks.Table, TableWidth: 1}}, "without rows"},
		{"stray row", []blocks.Block{{Type: blocks.TableRow}}, "table_row"},
		{"code with children", []blocks.Block{withChildren(codeBlock("x"), para(plain("y")))}, "children"},
		{"media without source", []blocks.Block{{Type: blocks.Image, Media: &blocks.Media{}}}, "source"},
		{"unknown type", []blocks.Block{{Type: "heading_9"}}, "unknown"},
		{"nested problem", []blocks.Block{withChildren(para(plain("a")), para(plain(long)))}, "children[0]"},
	}
	for _, tt := range tests {
		err := Validate(tt.bs)
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.bad != "" && (err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%s: error %v, want one mentioning %q", tt.name, err, tt.bad)
		}
	}
}
