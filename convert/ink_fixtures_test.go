package convert

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

var update = flag.Bool("update", false, "rewrite the golden ink images in testdata/ink")

// TestInkFixtures converts the ink fixtures (testdata/ink/NAME.html with
// its InkML part NAME.inkml) and checks where each drawing lands, what is
// reported, and that every drawing is byte for byte the committed golden
// image NAME-N.svg (go test -run TestInkFixtures ./convert/ -update
// rewrites them).
func TestInkFixtures(t *testing.T) {
	ink := func(n string) map[string]any {
		return map[string]any{"type": "image", "resource": "ink:" + n, "caption": ""}
	}
	p := func(s string) map[string]any { return map[string]any{"type": "paragraph", "text": s} }
	tests := []struct {
		name   string
		blocks []map[string]any
		losses []fixtureLoss
	}{
		{"ink-only", []map[string]any{ink("1"), ink("2")}, []fixtureLoss{}},
		{"beside-text", []map[string]any{
			p("Agenda"), p("Budget review"), ink("1"), p("Hiring plan"),
			ink("2"),
			p("Actions"), p("Send the draft"), p("Book the room"), ink("3"),
		}, []fixtureLoss{}}, // four ink comments, five strokes drawn: nothing left out
		{"highlighter-over-text", []map[string]any{
			p("Plain first line"), p("This line is highlighted"), ink("1"), p("This line is underlined"), ink("2"),
		}, []fixtureLoss{}},
		// All of a page's ink in one trace group, as a real page keeps it:
		// a note beside the first line, handwriting under a highlight on
		// the third, an underline of the fourth, a sketch between the
		// outlines and an arrow beside the last line; six ink comments for
		// fourteen strokes, none left out.
		{"one-group", []map[string]any{
			p("Shopping list"), ink("1"), p("Call the bank about the mortgage"), p("Renew passport before June"), ink("2"),
			p("Pick up dry cleaning"), ink("3"), ink("4"),
			p("Ideas"), p("Garden shed plans"), ink("5"),
		}, []fixtureLoss{}},
		// One trace group over two outlines side by side: each cluster
		// follows the line it was drawn on in the outline it overlaps (a
		// tick in the left one; a translucent band with black writing at
		// its end, and a ring, in the right one), never one image for all.
		{"side-by-side", []map[string]any{
			p("Monday"), p("Call supplier"), p("Check invoices"), ink("2"),
			p("Decisions"), p("Budget approved"), ink("1"), p("Hire two engineers"), p("Office move in March"), ink("3"),
		}, []fixtureLoss{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join("testdata", "ink", tt.name)
			res, err := Page(readFixture(t, base, ".html"), Options{InkML: readFixture(t, base, ".inkml")})
			if err != nil {
				t.Fatalf("Page: %v", err)
			}
			compareBlocks(t, roundTrip(t, neutralBlocks(res.Blocks)), roundTrip(t, tt.blocks))
			compareLosses(t, res.Losses, tt.losses)
			if len(res.Resources) != 0 {
				t.Errorf("resources to fetch %+v: drawn ink is not fetched", res.Resources)
			}
			for i, im := range res.Ink {
				if want := "ink:" + itoa(i+1); im.ID != want || im.MIME != "image/svg+xml" || im.Name != "ink-"+itoa(i+1)+".svg" {
					t.Errorf("ink %d = %s %s %s", i, im.ID, im.Name, im.MIME)
				}
				golden := base + "-" + itoa(i+1) + ".svg"
				if *update {
					if err := os.WriteFile(golden, im.Data, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("golden image (go test -run TestInkFixtures ./convert/ -update writes it): %v", err)
				}
				if !bytes.Equal(im.Data, want) {
					t.Errorf("%s differs from the rendering:\n%s", golden, im.Data)
				}
			}
			if extra, _ := filepath.Glob(base + "-*.svg"); len(extra) != len(res.Ink) && !*update {
				t.Errorf("%d golden images, %d drawings", len(extra), len(res.Ink))
			}
		})
	}
}

// TestInkWithoutInkML checks that a page read without its InkML reports
// each ink comment, as before, that unreadable InkML does the same plus
// one loss saying so, and that InkML without a trace reports each comment
// as ink Graph left out.
func TestInkWithoutInkML(t *testing.T) {
	src := readFixture(t, filepath.Join("testdata", "ink", "beside-text"), ".html")
	tests := []struct {
		name  string
		inkML []byte
		want  []fixtureLoss
	}{
		{"no InkML", nil, []fixtureLoss{{Kind: LossInk, Severity: "dropped", Detail: "ink (drawing or handwriting) is not returned by Graph", Count: 4}}},
		{"unreadable InkML", []byte("<inkml:ink>broken"), []fixtureLoss{
			{Kind: LossInk, Severity: "dropped", Detail: "ink could not be read from Graph's InkML", Count: 1},
			{Kind: LossInk, Severity: "dropped", Detail: "ink (drawing or handwriting) is not returned by Graph", Count: 4},
		}},
		// Graph answers an empty traceGroup for a page with no ink it
		// exports: the page's ink comments are ink it left out.
		{"empty InkML", []byte(`<inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:traceGroup /></inkml:ink>`), []fixtureLoss{
			{Kind: LossInk, Severity: "dropped", Detail: "ink Graph left out of its InkML", Count: 4},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Page(src, Options{InkML: tt.inkML})
			if err != nil {
				t.Fatal(err)
			}
			compareLosses(t, res.Losses, tt.want)
			if len(res.Ink) != 0 || len(res.Blocks) != 6 {
				t.Errorf("%d drawings, %d blocks; want none and the 6 paragraphs", len(res.Ink), len(res.Blocks))
			}
		})
	}
}

// TestDrawnInkIsNotAPageResource checks that a page resource whose ID is
// a drawing's ("ink:1") is still fetched, and not taken for the drawing.
func TestDrawnInkIsNotAPageResource(t *testing.T) {
	base := filepath.Join("testdata", "ink", "ink-only")
	html := bytes.Replace(readFixture(t, base, ".html"), []byte("<!-- InkNode is not supported -->"),
		[]byte(`<img src="https://graph.microsoft.com/v1.0/me/onenote/resources/ink:1/$value" />`), 1)
	res, err := Page(html, Options{InkML: readFixture(t, base, ".inkml")})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].ID != "ink:1" || res.Resources[0].URL == "" {
		t.Fatalf("resources %+v, want the page's own ink:1", res.Resources)
	}
	if IsDrawn(res.Resources[0], res.Ink) {
		t.Error("the page's resource is taken for a drawing")
	}
	if _, ok := Drawing(blocks.Resource{ID: "ink:1"}, res.Ink); !ok {
		t.Error("the drawing ink:1 is not found")
	}
}

// TestInkHighlighters checks how the fixtures' highlighters are drawn: at
// the brush's transparency (OneNote writes 0.5, a fraction) and beneath
// every pen stroke of their drawing, so ink under a highlight stays
// visible.
func TestInkHighlighters(t *testing.T) {
	tests := []struct {
		name string
		// drawing is the one with a highlighter; pens the pen strokes
		// drawn in it.
		drawing, pens int
	}{
		{"highlighter-over-text", 1, 0},
		{"one-group", 2, 2},
		{"side-by-side", 1, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := filepath.Join("testdata", "ink", tt.name)
			res, err := Page(readFixture(t, base, ".html"), Options{InkML: readFixture(t, base, ".inkml")})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Ink) < tt.drawing {
				t.Fatalf("%d drawings, want at least %d", len(res.Ink), tt.drawing)
			}
			var kinds []string
			for _, line := range strings.Split(string(res.Ink[tt.drawing-1].Data), "\n") {
				switch {
				case !strings.HasPrefix(line, "<path"):
				case strings.Contains(line, `stroke="#ffff00"`):
					if !strings.Contains(line, `stroke-opacity="0.5"`) {
						t.Errorf("highlighter not half transparent: %s", line)
					}
					kinds = append(kinds, "highlighter")
				default:
					kinds = append(kinds, "pen")
				}
			}
			want := []string{"highlighter"}
			for range tt.pens {
				want = append(want, "pen")
			}
			if !slices.Equal(kinds, want) {
				t.Errorf("drawing %d draws %v, want %v (highlighters beneath the pens)", tt.drawing, kinds, want)
			}
		})
	}
}
