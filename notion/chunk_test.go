package notion

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func para(s string, kids ...blocks.Block) blocks.Block {
	return blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: s}}, Children: kids}
}

func bullet(s string, kids ...blocks.Block) blocks.Block {
	return blocks.Block{Type: blocks.BulletedListItem, RichText: []blocks.RichText{{Text: s}}, Children: kids}
}

func paras(n int, prefix string) []blocks.Block {
	out := make([]blocks.Block, n)
	for i := range out {
		out[i] = para(fmt.Sprintf("%s %d", prefix, i))
	}
	return out
}

func table(rows, width int) blocks.Block {
	t := blocks.Block{Type: blocks.Table, TableWidth: width, HasColumnHeader: true}
	for r := 0; r < rows; r++ {
		row := blocks.Block{Type: blocks.TableRow}
		for c := 0; c < width; c++ {
			row.Cells = append(row.Cells, []blocks.RichText{{Text: fmt.Sprintf("r%dc%d", r, c)}})
		}
		t.Children = append(t.Children, row)
	}
	return t
}

// deepList is a list nested depth levels deep, fan children per level.
func deepList(depth, fan int, label string) blocks.Block {
	b := bullet(label)
	if depth > 1 {
		for i := 0; i < fan; i++ {
			b.Children = append(b.Children, deepList(depth-1, fan, fmt.Sprintf("%s.%d", label, i)))
		}
	}
	return b
}

// request is one simulated append: the blocks sent to one parent.
type request struct {
	parent string
	batch  batch
}

// simulate plays the whole plan for bs as the writer does, assigning IDs,
// and returns every request and the tree the requests build.
func simulate(t *testing.T, bs []blocks.Block, l Limits) ([]request, []blocks.Block) {
	t.Helper()
	tree := map[string][]blocks.Block{} // parent -> children built
	var reqs []request
	next := 0
	var place func(parent string, bs []blocks.Block)
	place = func(parent string, bs []blocks.Block) {
		batches, err := splitBatches(bs, l)
		if err != nil {
			t.Fatalf("splitBatches: %v", err)
		}
		for _, b := range batches {
			reqs = append(reqs, request{parent, b})
			var created []string
			for _, x := range b.blocks {
				next++
				id := fmt.Sprintf("id%d", next)
				x.ID = id
				tree[parent] = append(tree[parent], x)
				tree[id] = append(tree[id], x.Children...)
				created = append(created, id)
			}
			for i, later := range b.later {
				if len(later) > 0 {
					place(created[i], later)
				}
			}
		}
	}
	place("page", bs)
	var build func(parent string) []blocks.Block
	build = func(parent string) []blocks.Block {
		var out []blocks.Block
		for _, x := range tree[parent] {
			id := x.ID
			x.ID = ""
			x.Children = nil
			if id != "" {
				x.Children = build(id)
			} else {
				x.Children = stripIDs(tree[parent][len(out)].Children)
			}
			out = append(out, x)
		}
		return out
	}
	return reqs, build("page")
}

func stripIDs(bs []blocks.Block) []blocks.Block {
	if len(bs) == 0 {
		return nil
	}
	out := make([]blocks.Block, len(bs))
	for i, b := range bs {
		b.ID = ""
		b.Children = stripIDs(b.Children)
		out[i] = b
	}
	return out
}

// checkRequest reports every payload rule the request breaks.
func checkRequest(t *testing.T, r request, l Limits) {
	t.Helper()
	bs := r.batch.blocks
	var walk func(bs []blocks.Block, level int)
	walk = func(bs []blocks.Block, level int) {
		if len(bs) > blocks.MaxChildren {
			t.Errorf("request to %s: a children array of %d", r.parent, len(bs))
		}
		for _, b := range bs {
			if level > blocks.MaxNesting && len(bs) > 0 {
				t.Errorf("request to %s: a block at nesting level %d", r.parent, level)
			}
			if b.Type == blocks.Table && len(b.Children) == 0 {
				t.Errorf("request to %s: a table without rows", r.parent)
			}
			walk(b.Children, level+1)
		}
	}
	walk(bs, 0)
	if n := blocks.Count(bs); n > blocks.MaxBlocksPerRequest {
		t.Errorf("request to %s: %d blocks", r.parent, n)
	}
	body, err := json.Marshal(map[string]any{"children": r.batch})
	if err != nil {
		t.Fatal(err)
	}
	if len(body) > blocks.MaxRequestBytes {
		t.Errorf("request to %s: %d bytes", r.parent, len(body))
	}
	for i := range bs {
		if r.batch.bareHeading[i] && !strings.Contains(string(body), `"is_toggleable":true`) {
			t.Errorf("request to %s: bare heading %d not toggleable", r.parent, i)
		}
	}
}

func TestSplitBatchesRespectsEveryRule(t *testing.T) {
	long := strings.Repeat("x", 1990)
	bigPara := blocks.Block{Type: blocks.Paragraph}
	for i := 0; i < 40; i++ {
		bigPara.RichText = append(bigPara.RichText, blocks.RichText{Text: long})
	}
	manyBig := make([]blocks.Block, 20)
	for i := range manyBig {
		manyBig[i] = bigPara
	}
	wide := make([]blocks.Block, 30)
	for i := range wide {
		wide[i] = deepList(3, 6, fmt.Sprint(i)) // 1+6+36 blocks each
	}
	heavyKids := para("parent of big")
	for i := 0; i < 8; i++ {
		heavyKids.Children = append(heavyKids.Children, bigPara)
	}
	heading := blocks.Block{Type: blocks.Heading2, RichText: []blocks.RichText{{Text: "h"}},
		Children: []blocks.Block{deepList(4, 2, "under heading")}}
	tests := []struct {
		name     string
		blocks   []blocks.Block
		minReqs  int
		wantBare bool
	}{
		{"flat, more than 100 top-level blocks", paras(250, "p"), 3, false},
		{"one block with 250 children", []blocks.Block{para("p", paras(250, "c")...)}, 3, false},
		{"a list nested 6 levels deep", []blocks.Block{deepList(6, 2, "d")}, 2, false},
		{"more than 1000 blocks within the nesting rule", wide, 2, false},
		{"more than 500 KB of text", manyBig, 4, false},
		{"children together too large", []blocks.Block{heavyKids}, 2, false},
		{"table of 250 rows", []blocks.Block{para("before"), table(250, 3), para("after")}, 3, false},
		{"heading whose first child is too deep", []blocks.Block{heading}, 2, true},
		{"empty page", nil, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reqs, built := simulate(t, tt.blocks, DefaultLimits())
			if len(reqs) < tt.minReqs {
				t.Errorf("%d requests, want at least %d", len(reqs), tt.minReqs)
			}
			bare := false
			for _, r := range reqs {
				checkRequest(t, r, DefaultLimits())
				for _, b := range r.batch.bareHeading {
					bare = bare || b
				}
			}
			if bare != tt.wantBare {
				t.Errorf("bare heading = %v, want %v", bare, tt.wantBare)
			}
			if !reflect.DeepEqual(built, stripIDs(tt.blocks)) {
				t.Errorf("the requests do not rebuild the input tree")
			}
		})
	}
}

func TestSplitBatchesTableGoesWithRows(t *testing.T) {
	reqs, _ := simulate(t, []blocks.Block{table(150, 2)}, DefaultLimits())
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if n := len(reqs[0].batch.blocks[0].Children); n != 100 {
		t.Errorf("table created with %d rows, want 100", n)
	}
	if n := len(reqs[1].batch.blocks); n != 50 || reqs[1].parent == "page" {
		t.Errorf("second request: %d blocks to %s, want 50 rows to the table", n, reqs[1].parent)
	}
}

func TestSplitBatchesRefusesOversizedBlock(t *testing.T) {
	huge := blocks.Block{Type: blocks.Paragraph}
	for i := 0; i < 100; i++ {
		huge.RichText = append(huge.RichText, blocks.RichText{Text: strings.Repeat("y", 2000)})
	}
	huge.RichText = append(huge.RichText, huge.RichText...) // 400 KB+ of text, twice
	huge.RichText = append(huge.RichText, huge.RichText...)
	_, err := splitBatches([]blocks.Block{huge}, DefaultLimits())
	if err == nil {
		t.Fatal("no error for a block larger than a request")
	}
}
