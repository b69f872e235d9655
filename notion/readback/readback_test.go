package readback

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func text(s string) []blocks.RichText { return []blocks.RichText{{Text: s}} }

func para(s string) blocks.Block { return blocks.Block{Type: blocks.Paragraph, RichText: text(s)} }

func image(res string) blocks.Block {
	return blocks.Block{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{ID: res}}}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		bs   []blocks.Block
		want Summary
	}{
		{"empty", nil, Summary{Blocks: map[blocks.Type]int{}}},
		{"words and characters, runs joined", []blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "Trip no"}, {Text: "tes for May"}}}},
			Summary{Blocks: map[blocks.Type]int{blocks.Paragraph: 1}, Words: 4, Chars: 15}},
		{"nested, table cells, caption", []blocks.Block{
			{Type: blocks.BulletedListItem, RichText: text("one"), Children: []blocks.Block{para("two three")}},
			{Type: blocks.Table, TableWidth: 2, Children: []blocks.Block{{Type: blocks.TableRow, Cells: [][]blocks.RichText{text("a"), text("b c")}}}},
			{Type: blocks.Image, Media: &blocks.Media{HostedURL: "https://files/x/photo.png?X=1"}, Caption: text("caption")}},
			Summary{Blocks: map[blocks.Type]int{blocks.BulletedListItem: 1, blocks.Paragraph: 1, blocks.Table: 1, blocks.TableRow: 1, blocks.Image: 1},
				Words: 7, Chars: 21, Images: 1, Tables: 1}},
		{"ink by resource and by hosted name", []blocks.Block{image("ink:1"), image("abc"),
			{Type: blocks.Image, Media: &blocks.Media{HostedURL: "https://prod-files/ws/id/ink-2.svg?sig=1"}}},
			Summary{Blocks: map[blocks.Type]int{blocks.Image: 3}, Images: 1, Ink: 2}},
		{"files, equations, links", []blocks.Block{
			{Type: blocks.File, Media: &blocks.Media{FileUploadID: "u"}}, {Type: blocks.PDF, Media: &blocks.Media{FileUploadID: "v"}},
			{Type: blocks.Equation, Expression: "E = mc^2"},
			{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "see ", Link: "https://example.com"}, {Equation: "x"}, {Text: "page", Mention: "abc"}, {Text: "Other", PageRef: "{G}"}, {Text: "onenote", Link: "onenote:x"}}}},
			Summary{Blocks: map[blocks.Type]int{blocks.File: 1, blocks.PDF: 1, blocks.Equation: 1, blocks.Paragraph: 1},
				Files: 2, Equations: 2, Links: 2, Words: 6, Chars: 17}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Summarize(tt.bs, nil)
			if got.Encode() != tt.want.Encode() {
				t.Errorf("Summarize = %s, want %s", got.Encode(), tt.want.Encode())
			}
		})
	}
}

func TestCompare(t *testing.T) {
	base := Summarize([]blocks.Block{para("one two three"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}}, nil)
	tests := []struct {
		name      string
		got       []blocks.Block
		wantState State
		wantText  string
	}{
		{"same", []blocks.Block{para("one two  three"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}}, Verified, ""},
		{"last children dropped", []blocks.Block{para("one two three"), image("r1")}, Differs, "1 word, 1 character, 1 ink image and 1 equation missing"},
		{"text cut", []blocks.Block{para("one tw"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}}, Differs, "1 word and 6 characters missing"},
		{"nothing read back", nil, Differs, "4 words, 12 characters, 1 image, 1 ink image, 1 equation and 1 paragraph block missing"},
		{"a block written twice", []blocks.Block{para("one two three"), para("one two three"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}},
			Differs, "1 paragraph block more than written"},
		{"an image more", []blocks.Block{para("one two three"), image("r1"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}},
			Differs, "more media blocks than written"},
		{"extra text is no difference", []blocks.Block{para("one two three four"), image("r1"), image("ink:1"), {Type: blocks.Equation, Expression: "x"}}, Verified, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := Compare(base, Summarize(tt.got, nil))
			if v.State != tt.wantState || v.Summary != tt.wantText {
				t.Errorf("Compare = %+v, want %s %q", v, tt.wantState, tt.wantText)
			}
		})
	}
}

func TestEncodeDecode(t *testing.T) {
	s := Summarize([]blocks.Block{para("a b"), image("ink:3"), {Type: blocks.Table, Children: []blocks.Block{{Type: blocks.TableRow}}}}, nil)
	got, err := Decode(s.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got.Encode() != s.Encode() || Compare(s, got).State != Verified {
		t.Errorf("round trip: %s, want %s", got.Encode(), s.Encode())
	}
	if _, err := Decode("hand edited"); err == nil {
		t.Error("Decode accepted text that is not a summary")
	}
}

// TestReadBackShape summarises a page as the Notion API returns it (the
// fixture is a list-children answer written for this test): the block
// JSON decodes into the same counts as the tree that was sent.
func TestReadBackShape(t *testing.T) {
	raw, err := os.ReadFile("testdata/children.json")
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Results []blocks.Block `json:"results"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	sent := []blocks.Block{
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "Packing list for "}, {Text: "Lisbon", Link: "https://example.com/lisbon"}}},
		image("ink:1"),
		{Type: blocks.Equation, Expression: "a^2+b^2=c^2"},
	}
	if v := Compare(Summarize(sent, nil), Summarize(res.Results, nil)); v.State != Verified {
		t.Errorf("read back differs from what was sent: %s", v.Summary)
	}
}
