package convert

import (
	"reflect"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestNoteTags(t *testing.T) {
	todo := func(checked bool, rt ...blocks.RichText) blocks.Block {
		return blocks.Block{Type: blocks.ToDo, Checked: checked, RichText: rt}
	}
	callout := func(icon string, rt ...blocks.RichText) blocks.Block {
		return blocks.Block{Type: blocks.Callout, Icon: icon, RichText: rt}
	}
	tests := []struct {
		name string
		html string
		want []blocks.Block
	}{
		{"to-do", `<p data-tag="to-do">a</p>`, []blocks.Block{todo(false, plain("a"))}},
		{"to-do completed", `<p data-tag="to-do:completed">a</p>`, []blocks.Block{todo(true, plain("a"))}},
		{"other check-box shapes are to-dos marked with their emoji",
			`<p data-tag="call-back:completed">a</p>`, []blocks.Block{todo(true, plain("📲 "), plain("a"))}},
		{"a check-box shape wins over other shapes and all are marked",
			`<p data-tag="important, to-do">a</p>`, []blocks.Block{todo(false, plain("⭐ ☑️ "), plain("a"))}},
		{"other tags make a callout", `<p data-tag="important">a</p>`, []blocks.Block{callout("⭐", plain("a"))}},
		{"a callout marks its further tags", `<p data-tag="idea, send-in-email">a</p>`,
			[]blocks.Block{callout("💡", plain("📧 "), plain("a"))}},
		{"a tag on a span applies to the whole paragraph", `<p>x <span data-tag="question">y</span></p>`,
			[]blocks.Block{callout("❓", plain("x y"))}},
		{"a tag on a heading marks it", `<h2 data-tag="critical">H</h2>`,
			[]blocks.Block{textBlock(blocks.Heading2, plain("❗ "), plain("H"))}},
		{"a check-box tag on a list item makes a to-do that keeps its children",
			`<ul><li><span data-tag="to-do">a</span><ul><li>b</li></ul></li></ul>`,
			[]blocks.Block{withChildren(todo(false, plain("a")), textBlock(blocks.BulletedListItem, plain("b")))}},
		{"another tag on a list item marks it", `<ol><li><span data-tag="idea">a</span></li></ol>`,
			[]blocks.Block{textBlock(blocks.NumberedListItem, plain("💡 "), plain("a"))}},
		{"a tag on an image goes in the caption",
			`<img data-tag="important" src="https://graph.microsoft.com/v1.0/me/onenote/resources/r1/$value" />`,
			[]blocks.Block{{Type: blocks.Image, Caption: []blocks.RichText{plain("⭐")},
				Media: &blocks.Media{Resource: &blocks.Resource{ID: "r1", URL: "https://graph.microsoft.com/v1.0/me/onenote/resources/r1/$value", Name: "r1"}}}}},
		{"an empty tagged paragraph makes no block", `<p data-tag="to-do"> </p>`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
		})
	}
}

func TestUnknownTagIsReported(t *testing.T) {
	res := convertBody(t, outlineDiv(`<p data-tag="custom-thing">a</p>`), Options{})
	assertBlocks(t, res.Blocks, []blocks.Block{{Type: blocks.Callout, Icon: "🏷️", RichText: []blocks.RichText{plain("a")}}})
	if !hasLoss(res.Losses, LossTag) {
		t.Errorf("no tag loss in %+v", res.Losses)
	}
}

func TestTagEmojisAreDistinct(t *testing.T) {
	for shape, e := range tagEmojis {
		if got, ok := TagShape(e); !ok || got != shape {
			t.Errorf("TagShape(TagEmoji(%q)) = %q, %v", shape, got, ok)
		}
	}
}

func TestSplitTagMarker(t *testing.T) {
	tests := []struct {
		rt     []blocks.RichText
		shapes []string
		rest   int
	}{
		{[]blocks.RichText{plain("💡 📧 "), plain("x")}, []string{"idea", "send-in-email"}, 1},
		{[]blocks.RichText{plain("💡 x")}, nil, 1},
		{[]blocks.RichText{styled("⭐ ", bold), plain("x")}, nil, 2},
		{nil, nil, 0},
	}
	for _, tt := range tests {
		shapes, rest := SplitTagMarker(tt.rt)
		if !reflect.DeepEqual(shapes, tt.shapes) || len(rest) != tt.rest {
			t.Errorf("SplitTagMarker(%v) = %q, %d items; want %q, %d", tt.rt, shapes, len(rest), tt.shapes, tt.rest)
		}
	}
}

func TestParseTags(t *testing.T) {
	got := parseTags(" idea , to-do:completed,, Send-In-Email ")
	want := []noteTag{{"idea", false}, {"to-do", true}, {"send-in-email", false}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseTags = %+v, want %+v", got, want)
	}
}
