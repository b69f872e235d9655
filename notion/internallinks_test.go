package notion

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

const (
	guidA = "aaaaaaaa-0000-4000-8000-00000000000a"
	guidB = "bbbbbbbb-0000-4000-8000-00000000000b"
	guidX = "cccccccc-0000-4000-8000-00000000000c" // never migrated
)

func linkRun(text, guid string) blocks.RichText {
	return blocks.RichText{Text: text, PageRef: "{" + strings.ToUpper(guid) + "}",
		Link: "onenote:#" + text + "&section-id={s}&page-id={" + guid + "}&end"}
}

func TestRecordLinks(t *testing.T) {
	bold := blocks.Annotations{Bold: true}
	in := []blocks.Block{
		{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: "see "}, linkRun("Page A", guidA), {Text: " and "}, {Equation: "x^2"}, linkRun("X", guidX)}},
		bullet("outer", blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{
			// One link in two formats (and split at 2000 characters): one record.
			linkRun("Pa", guidB), {Text: "ge B", PageRef: guidB, Annotations: bold}}}),
		{Type: blocks.Table, TableWidth: 2, Children: []blocks.Block{{Type: blocks.TableRow, Cells: [][]blocks.RichText{
			{{Text: "a"}}, {{Text: "é "}, linkRun("A", guidA)}}}}},
		{Type: blocks.Code, RichText: []blocks.RichText{{Text: "x"}}, Caption: []blocks.RichText{linkRun("cap", guidA)}},
	}
	out, links := recordLinks(in)
	want := []InternalLink{
		{Block: "1", Start: 4, Len: 6, Page: guidA},
		{Block: "1", Start: 18, Len: 1, Page: guidX},
		{Block: "2.1", Start: 0, Len: 6, Page: guidB},
		{Block: "3.1", Field: fieldCell, Cell: 1, Start: 2, Len: 1, Page: guidA},
		{Block: "4", Field: fieldCaption, Start: 0, Len: 3, Page: guidA},
	}
	if !reflect.DeepEqual(links, want) {
		t.Errorf("links\n got %+v\nwant %+v", links, want)
	}
	var walk func([]blocks.Block)
	walk = func(bs []blocks.Block) {
		for _, b := range bs {
			for _, rt := range append([][]blocks.RichText{b.RichText, b.Caption}, b.Cells...) {
				for _, r := range rt {
					if r.Link != "" {
						t.Errorf("run %q still links to %q", r.Text, r.Link)
					}
				}
			}
			walk(b.Children)
		}
	}
	walk(out)
	if in[0].RichText[1].Link == "" {
		t.Error("recordLinks modified its input")
	}
	// The record round-trips through the property.
	rt, losses := encodeLinks(links)
	back, err := decodeLinks(plain(rt))
	if err != nil || len(losses) != 0 || !reflect.DeepEqual(back, links) {
		t.Errorf("record round trip: %+v, %v, losses %v", back, err, losses)
	}
}

func TestEncodeLinksKeepsWhatFits(t *testing.T) {
	var links []InternalLink
	for i := 0; i < 20000; i++ {
		links = append(links, InternalLink{Block: "1234.5", Start: 100000 + i, Len: 12, Page: guidA})
	}
	rt, losses := encodeLinks(links)
	back, err := decodeLinks(plain(rt))
	if err != nil || len(back)+len(losses) != len(links) || len(losses) == 0 || len(rt) > blocks.MaxRichTextItems {
		t.Fatalf("kept %d, lost %d of %d, %d items, %v", len(back), len(losses), len(links), len(rt), err)
	}
	for _, r := range rt {
		if blocks.UTF16Len(r.Text) > blocks.MaxTextLen {
			t.Fatalf("an item of %d characters", blocks.UTF16Len(r.Text))
		}
	}
}

func TestDecodeLinksRefusesWhatIsNotARecord(t *testing.T) {
	for _, s := range []string{`[{"b":"1"}]`, `{"pages":["x"],"links":[["1",0,0,1]]}`, `{"pages":["x"],"links":[["1",7,0,1,1,0]]}`,
		`{"pages":[],"links":[["1",0,0,1,1,0]]}`, `{"pages":["x"],"links":[[1,0,0,1,1,0]]}`, `not json`} {
		if _, err := decodeLinks(s); !errors.Is(err, ErrInconsistent) {
			t.Errorf("decodeLinks(%s) = %v, want ErrInconsistent", s, err)
		}
	}
	if l, err := decodeLinks(" "); l != nil || err != nil {
		t.Errorf("empty record: %v %v", l, err)
	}
}

func TestRewriteRecorded(t *testing.T) {
	targets := map[string]string{guidA: "notion-a", guidB: "notion-b"}
	plainRT := func(s string) blocks.RichText { return blocks.RichText{Text: s} }
	tests := []struct {
		name   string
		rt     []blocks.RichText // as Notion holds it
		links  []InternalLink
		mode   linkMode
		want   []blocks.RichText
		losses int
	}{
		{"as written: one item per run",
			[]blocks.RichText{plainRT("see "), plainRT("Page A"), plainRT(".")},
			[]InternalLink{{Block: "1", Start: 4, Len: 6, Page: guidA}}, asMention,
			[]blocks.RichText{plainRT("see "), {Text: "Page A", Mention: "notion-a"}, plainRT(".")}, 0},
		{"Notion merged the runs: the range is cut out of one item",
			[]blocks.RichText{plainRT("see Page A and Page B now")},
			[]InternalLink{{Block: "1", Start: 4, Len: 6, Page: guidA}, {Block: "1", Start: 15, Len: 6, Page: guidB}}, asMention,
			[]blocks.RichText{plainRT("see "), {Text: "Page A", Mention: "notion-a"}, plainRT(" and "), {Text: "Page B", Mention: "notion-b"}, plainRT(" now")}, 0},
		{"an equation and accents before the link",
			[]blocks.RichText{plainRT("é "), {Equation: "x^2"}, plainRT(" Ä")},
			[]InternalLink{{Block: "1", Start: 6, Len: 1, Page: guidA}}, asMention,
			[]blocks.RichText{plainRT("é "), {Equation: "x^2"}, plainRT(" "), {Text: "Ä", Mention: "notion-a"}}, 0},
		{"not migrated: text kept, note after it",
			[]blocks.RichText{plainRT("see "), {Text: "Gone", Annotations: blocks.Annotations{Italic: true}}},
			[]InternalLink{{Block: "1", Start: 4, Len: 4, Page: guidX}}, asMention,
			[]blocks.RichText{plainRT("see "), {Text: "Gone", Annotations: blocks.Annotations{Italic: true}},
				{Text: notMigratedNote, Annotations: blocks.Annotations{Italic: true}}}, 1},
		{"links to the Notion URL when mentions are refused, formatting kept",
			[]blocks.RichText{{Text: "Pa", Annotations: blocks.Annotations{Bold: true}}, plainRT("ge A")},
			[]InternalLink{{Block: "1", Start: 0, Len: 6, Page: guidA}}, asURL,
			[]blocks.RichText{{Text: "Pa", Link: PageURL("notion-a"), Annotations: blocks.Annotations{Bold: true}},
				{Text: "ge A", Link: PageURL("notion-a")}}, 0},
		{"a link not found, then one not migrated",
			[]blocks.RichText{{Equation: "x"}, plainRT("ab")},
			[]InternalLink{{Block: "1", Start: 0, Len: 1, Page: guidA}, {Block: "1", Start: 1, Len: 2, Page: guidX}}, asMention,
			[]blocks.RichText{{Equation: "x"}, plainRT("ab"), plainRT(notMigratedNote)}, 2},
		{"range beyond the text: reported, nothing changed",
			[]blocks.RichText{plainRT("short")},
			[]InternalLink{{Block: "1", Start: 3, Len: 9, Page: guidA}}, asMention,
			[]blocks.RichText{plainRT("short")}, 1},
		{"range over an equation: reported",
			[]blocks.RichText{plainRT("a"), {Equation: "x"}, plainRT("b")},
			[]InternalLink{{Block: "1", Start: 0, Len: 2, Page: guidA}}, asMention,
			[]blocks.RichText{plainRT("a"), {Equation: "x"}, plainRT("b")}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := blocks.Block{Type: blocks.Paragraph, RichText: tt.rt}
			nb, losses, changed := rewriteRecorded(b, tt.links, targets, tt.mode)
			if !reflect.DeepEqual(nb.RichText, tt.want) {
				t.Errorf("rich text\n got %+v\nwant %+v", nb.RichText, tt.want)
			}
			if len(losses) != tt.losses {
				t.Errorf("losses %+v, want %d", losses, tt.losses)
			}
			if wantChanged := !reflect.DeepEqual(tt.rt, tt.want); changed != wantChanged {
				t.Errorf("changed = %v, want %v", changed, wantChanged)
			}
			if changed {
				// What the pass wrote is recognised as done, and what
				// was there before is not.
				if !linksRewritten(nb, tt.links) {
					t.Error("the rewritten block is not recognised as rewritten")
				}
				if linksRewritten(b, tt.links) {
					t.Error("the block as first written is taken for rewritten")
				}
			}
		})
	}
}

func TestRewriteRecordedTableCellAndCaption(t *testing.T) {
	b := blocks.Block{Type: blocks.TableRow, Cells: [][]blocks.RichText{{{Text: "x"}}, {{Text: "go A"}}}}
	links := []InternalLink{{Block: "2.1", Field: fieldCell, Cell: 1, Start: 3, Len: 1, Page: guidA}}
	nb, losses, changed := rewriteRecorded(b, links, map[string]string{guidA: "n-a"}, asMention)
	if !changed || len(losses) != 0 || nb.Cells[1][1].Mention != "n-a" || b.Cells[1][0].Text != "go A" {
		t.Fatalf("cell: %+v %v %v", nb.Cells, losses, changed)
	}
	c := blocks.Block{Type: blocks.Image, Caption: []blocks.RichText{{Text: "X"}}}
	links = []InternalLink{{Block: "1", Field: fieldCaption, Start: 0, Len: 1, Page: guidX}}
	nc, losses, changed := rewriteRecorded(c, links, nil, asMention)
	if !changed || len(losses) != 1 || blocks.PlainText(nc.Caption) != "X"+notMigratedNote ||
		losses[0].Location != "block 1 (image) caption" || !strings.Contains(losses[0].Detail, "not migrated") {
		t.Fatalf("caption: %+v %v %v", nc.Caption, losses, changed)
	}
}

func TestRewriteRecordedKeepsTheItemLimit(t *testing.T) {
	var rt []blocks.RichText
	for i := 0; i < blocks.MaxRichTextItems; i++ {
		rt = append(rt, blocks.RichText{Text: "ab", Annotations: blocks.Annotations{Bold: i%2 == 0}})
	}
	b := blocks.Block{Type: blocks.Paragraph, RichText: rt}
	// A link in the middle of an item: 100 items would become 102.
	nb, losses, changed := rewriteRecorded(b, []InternalLink{{Block: "1", Start: 1, Len: 1, Page: guidA}}, map[string]string{guidA: "n"}, asMention)
	if changed || len(losses) != 1 || !reflect.DeepEqual(nb.RichText, rt) {
		t.Fatalf("changed %v, losses %v", changed, losses)
	}
}
