package notion

import (
	"reflect"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestRewriteLinks(t *testing.T) {
	const known = "{11111111-AAAA-4444-8888-000000000001}"
	in := []blocks.Block{
		{Type: blocks.Paragraph, RichText: []blocks.RichText{
			{Text: "see "},
			{Text: "Known page", PageRef: known, Link: "onenote:#Known&page-id=" + known + "&end", Annotations: blocks.Annotations{Bold: true}},
			{Text: " and "},
			{Text: "Lost page", PageRef: "22222222-bbbb-4444-8888-000000000002"},
		}},
		bullet("outer", blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{
			// Read back from Notion: no PageRef, only the onenote: link.
			{Text: "by link", Link: "onenote:https://d.docs.live.net/x/Notes/S.one#P&section-id={s}&page-id=%7B11111111-aaaa-4444-8888-000000000001%7D&end"},
			{Text: "web", Link: "https://example.com"},
		}}),
		{Type: blocks.Table, TableWidth: 1, Children: []blocks.Block{{Type: blocks.TableRow, Cells: [][]blocks.RichText{
			{{Text: "cell link", PageRef: "11111111-aaaa-4444-8888-000000000001"}}}}}},
	}
	targets := map[string]string{"11111111-aaaa-4444-8888-000000000001": "notion-page-1"}
	out, losses := RewriteLinks(in, targets)

	if got := out[0].RichText[1]; got.Mention != "notion-page-1" || got.Link != "" || got.PageRef != "" || got.Text != "Known page" || !got.Annotations.Bold {
		t.Errorf("known link became %+v, want a bold mention of notion-page-1", got)
	}
	if got := out[0].RichText[3]; got.Mention != "" || got.Link != "" || got.PageRef != "" || got.Text != "Lost page (OneNote page not migrated)" {
		t.Errorf("unknown link became %+v, want plain text with a note", got)
	}
	if got := out[1].Children[0].RichText; got[0].Mention != "notion-page-1" || got[1].Link != "https://example.com" {
		t.Errorf("nested runs became %+v", got)
	}
	if got := out[2].Children[0].Cells[0][0]; got.Mention != "notion-page-1" {
		t.Errorf("cell link became %+v", got)
	}
	want := []Loss{{Kind: LossLink, Location: "block 1 (paragraph)",
		Detail: `link "Lost page" points to OneNote page 22222222-bbbb-4444-8888-000000000002, which was not migrated; kept as text`}}
	if !reflect.DeepEqual(losses, want) {
		t.Errorf("losses %+v, want %+v", losses, want)
	}
	if in[0].RichText[1].PageRef == "" {
		t.Error("RewriteLinks modified its input")
	}
}

func TestOneNotePageID(t *testing.T) {
	tests := map[string]string{
		"onenote:#Page&section-id={S}&page-id={ABC-1}&end":     "abc-1",
		"onenote:x.one#P&page-id=%7Babc-2%7D&end":              "abc-2",
		"https://example.com/?page-id=abc":                     "",
		"onenote:https://d.docs.live.net/x/S.one#P&section-id": "",
	}
	for link, want := range tests {
		if got := oneNotePageID(link); got != want {
			t.Errorf("oneNotePageID(%q) = %q, want %q", link, got, want)
		}
	}
}
