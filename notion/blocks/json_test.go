package blocks

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestJSONRoundTrip(t *testing.T) {
	tests := []struct {
		name  string
		block Block
		want  string // a fragment the Notion shape must contain
	}{
		{"paragraph with formatting", Block{Type: Paragraph, RichText: []RichText{
			{Text: "plain "}, {Text: "bold", Annotations: Annotations{Bold: true, Color: "red"}},
			{Text: "link", Link: "https://example.com"}}},
			`"annotations":{"bold":true,"italic":false,"strikethrough":false,"underline":false,"code":false,"color":"red"}`},
		{"to-do unchecked keeps checked:false", Block{Type: ToDo, RichText: []RichText{{Text: "x"}}}, `"checked":false`},
		{"heading with children is toggleable", Block{Type: Heading2, RichText: []RichText{{Text: "h"}},
			Children: []Block{{Type: Paragraph, RichText: []RichText{{Text: "c"}}}}}, `"is_toggleable":true`},
		{"callout icon", Block{Type: Callout, Icon: "⭐", RichText: []RichText{{Text: "c"}}}, `"icon":{"type":"emoji","emoji":"⭐"}`},
		{"code language", Block{Type: Code, Language: "go", RichText: []RichText{{Text: "x := 1"}}}, `"language":"go"`},
		{"equation", Block{Type: Equation, Expression: `\frac{a}{b}`}, `"expression":"\\frac{a}{b}"`},
		{"table", Block{Type: Table, TableWidth: 2, Children: []Block{
			{Type: TableRow, Cells: [][]RichText{{{Text: "a"}}, {}}}}}, `"cells":[[{"type":"text","text":{"content":"a"}}],[]]`},
		{"image upload", Block{Type: Image, Media: &Media{FileUploadID: "u1"}}, `"file_upload":{"id":"u1"}`},
		{"file external with name", Block{Type: File, Media: &Media{URL: "https://x/y.pdf", Name: "y.pdf"}}, `"name":"y.pdf"`},
		{"video", Block{Type: Video, Media: &Media{URL: "https://youtu.be/x"}}, `"external":{"url":"https://youtu.be/x"}`},
		{"embed", Block{Type: Embed, Media: &Media{URL: "https://x"}}, `"embed":{"url":"https://x"}`},
		{"mention and equation runs", Block{Type: Paragraph, RichText: []RichText{
			{Text: "Other page", Mention: "p1"}, {Equation: "x^2"}}}, `"mention":{"type":"page","page":{"id":"p1"}}`},
		{"divider", Block{Type: Divider}, `"divider":{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(tt.block)
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			if !strings.Contains(string(data), tt.want) {
				t.Errorf("marshal = %s, want it to contain %s", data, tt.want)
			}
			var got Block
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatalf("unmarshal %s: %v", data, err)
			}
			want := tt.block
			if want.Type == Code && want.Language == "" {
				want.Language = "plain text"
			}
			// A mention reads back with the text Notion shows; we wrote none.
			for i, r := range want.RichText {
				if r.Mention != "" {
					want.RichText[i].Text = ""
				}
			}
			if !reflect.DeepEqual(normalize(got), normalize(want)) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// normalize makes empty and nil slices compare equal.
func normalize(b Block) Block {
	if len(b.RichText) == 0 {
		b.RichText = nil
	}
	for i := range b.Cells {
		if len(b.Cells[i]) == 0 {
			b.Cells[i] = nil
		}
	}
	for i := range b.Children {
		b.Children[i] = normalize(b.Children[i])
	}
	return b
}

func TestMarshalRefusesUnresolvedResource(t *testing.T) {
	b := Block{Type: Image, Media: &Media{Resource: &Resource{ID: "0-abc!1-2"}}}
	_, err := json.Marshal(b)
	if err == nil || !strings.Contains(err.Error(), "0-abc!1-2") {
		t.Fatalf("err = %v, want an error naming the resource", err)
	}
}

func TestUTF16Len(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want int
	}{{"", 0}, {"abc", 3}, {"é", 1}, {"日本", 2}, {"😀", 2}, {"a😀b", 4}} {
		if got := UTF16Len(tt.s); got != tt.want {
			t.Errorf("UTF16Len(%q) = %d, want %d", tt.s, got, tt.want)
		}
	}
}

func TestCountAndDepth(t *testing.T) {
	leaf := Block{Type: Paragraph}
	tree := []Block{{Type: BulletedListItem, Children: []Block{{Type: BulletedListItem, Children: []Block{leaf, leaf}}}}, leaf}
	if got := Count(tree); got != 5 {
		t.Errorf("Count = %d, want 5", got)
	}
	if got := Depth(tree); got != 2 {
		t.Errorf("Depth = %d, want 2", got)
	}
}

func TestSplitUTF16(t *testing.T) {
	for _, tt := range []struct {
		s     string
		limit int
		want  []string
	}{
		{"", 3, nil},
		{"abc", 3, []string{"abc"}},
		{"abcd", 3, []string{"abc", "d"}},
		{"a😀b", 2, []string{"a", "😀", "b"}},
		{"😀😀", 3, []string{"😀", "😀"}},
	} {
		got := SplitUTF16(tt.s, tt.limit)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitUTF16(%q, %d) = %q, want %q", tt.s, tt.limit, got, tt.want)
		}
	}
}
