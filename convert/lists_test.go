package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestLists(t *testing.T) {
	bullet := func(s string, kids ...blocks.Block) blocks.Block {
		return withChildren(textBlock(blocks.BulletedListItem, plain(s)), kids...)
	}
	number := func(s string, kids ...blocks.Block) blocks.Block {
		return withChildren(textBlock(blocks.NumberedListItem, plain(s)), kids...)
	}
	tests := []struct {
		name string
		html string
		want []blocks.Block
	}{
		{"flat", "<ul><li>a</li><li>b</li></ul>", []blocks.Block{bullet("a"), bullet("b")}},
		{"nested four deep, mixed kinds",
			`<ol><li><p style="margin-top:0pt">1</p><ul><li>1.a<ol><li>deep<ul><li>deeper</li></ul></li></ol></li></ul></li></ol>`,
			[]blocks.Block{number("1", bullet("1.a", number("deep", bullet("deeper"))))}},
		{"list-style-type is not recorded; br inside ul ignored",
			`<ul><li style="list-style-type:square">a</li><br /><li style="list-style-type:circle">b</li></ul>`,
			[]blocks.Block{bullet("a"), bullet("b")}},
		{"a list nested without li belongs to the item before",
			"<ul><li>a</li><ul><li>b</li></ul></ul>",
			[]blocks.Block{bullet("a", bullet("b"))}},
		{"item text from several wrapper paragraphs is joined by line breaks",
			`<ul><li><p>one</p><p>two</p></li></ul>`,
			[]blocks.Block{bullet("one\ntwo")}},
		{"content after a nested list becomes children",
			`<ul><li>a<ul><li>b</li></ul><p>after</p></li></ul>`,
			[]blocks.Block{bullet("a", bullet("b"), para(plain("after")))}},
		{"formatting in items, Consolas is a mark",
			`<ul><li>run <span style="font-family:Consolas">make</span></li></ul>`,
			[]blocks.Block{withChildren(textBlock(blocks.BulletedListItem, plain("run "), styled("make", code)))}},
		{"an image in an item becomes its child",
			`<ul><li>pic <img src="https://graph.microsoft.com/v1.0/me/onenote/resources/r/$value" data-src-type="image/png" /></li></ul>`,
			[]blocks.Block{bullet("pic", blocks.Block{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{
				ID: "r", URL: "https://graph.microsoft.com/v1.0/me/onenote/resources/r/$value", MIME: "image/png", Name: "r.png"}}})}},
		{"an empty item is kept empty", "<ul><li> </li><li>x</li><li><br /></li></ul>",
			[]blocks.Block{{Type: blocks.BulletedListItem}, bullet("x"), {Type: blocks.BulletedListItem}}},
		{"blank stray content is no item", "<ul> <br /><li>x</li></ul>", []blocks.Block{bullet("x")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
		})
	}
}

func TestDeepListDoesNotFail(t *testing.T) {
	html := ""
	for range 500 {
		html += "<ul><li>x"
	}
	res := convertBody(t, outlineDiv(html), Options{})
	if blocks.Depth(res.Blocks) < 50 {
		t.Errorf("depth %d, want the nesting kept well past Notion's per-request limit", blocks.Depth(res.Blocks))
	}
	if !hasLoss(res.Losses, LossTooDeep) {
		t.Errorf("no too-deep loss reported")
	}
}
