package convert

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// TestAltCaptionLimits: an alt caption obeys Notion's rich-text rules
// (items of at most 2,000 UTF-16 units, at most 100 items) whatever its
// length, and a cut is reported.
func TestAltCaptionLimits(t *testing.T) {
	img := func(alt, tag string) []byte {
		return []byte(`<html><body><img alt="` + alt + `" data-tag="` + tag + `" data-fullres-src="` + resBase + `a/$value" /></body></html>`)
	}
	tests := []struct {
		name      string
		alt, tag  string
		items     int
		textLen   int // of the alt text kept, in UTF-16 units
		wantCut   bool
		firstItem string
	}{
		{"short alt is one item", "Site plan", "", 1, 9, false, "Site plan"},
		{"2,001 characters make two items", strings.Repeat("a", 2001), "", 2, 2001, false, ""},
		{"surrogate pairs are never split", strings.Repeat("😀", 1500), "", 2, 3000, false, ""},
		{"the longest alt that fits is kept whole", strings.Repeat("b", 99*2000), "", 99, 99 * 2000, false, ""},
		{"a longer alt is cut and reported", strings.Repeat("c", 99*2000+1), "", 99, 99 * 2000, true, ""},
		{"a tag marker still fits beside the longest alt", strings.Repeat("d", 300*2000), "idea", 100, 99 * 2000, true, "💡"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Page(img(tc.alt, tc.tag), Options{ImageAlt: AltCaption})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Blocks) != 1 || res.Blocks[0].Type != blocks.Image {
				t.Fatalf("blocks = %v, want one image", res.Blocks)
			}
			capt := res.Blocks[0].Caption
			if len(capt) != tc.items {
				t.Errorf("caption has %d items, want %d", len(capt), tc.items)
			}
			_, rest := SplitTagMarker(capt)
			if got := blocks.UTF16Len(blocks.PlainText(rest)); got != tc.textLen {
				t.Errorf("alt text kept = %d UTF-16 units, want %d", got, tc.textLen)
			}
			if tc.firstItem != "" && (len(capt) == 0 || capt[0].Text != tc.firstItem) {
				t.Errorf("first caption item = %q, want %q", capt[0].Text, tc.firstItem)
			}
			if cut := lossCount(res.Losses, LossEmbed) > 0; cut != tc.wantCut {
				t.Errorf("cut reported = %v, want %v (losses %v)", cut, tc.wantCut, res.Losses)
			}
			if err := Validate(res.Blocks); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// TestParseImageAlt: the two modes, "" as drop, and an error naming the
// allowed values.
func TestParseImageAlt(t *testing.T) {
	for in, want := range map[string]ImageAlt{"": AltDrop, "drop": AltDrop, " Caption ": AltCaption} {
		if got, err := ParseImageAlt(in); err != nil || got != want {
			t.Errorf("ParseImageAlt(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := ParseImageAlt("ocr")
	if err == nil || !strings.Contains(err.Error(), `"drop" or "caption"`) {
		t.Errorf("ParseImageAlt(ocr) error = %v, want one naming \"drop\" or \"caption\"", err)
	}
}

// TestSkipInkIgnoresInkML: with SkipInk the page's InkML, even when given,
// is not drawn: no ink image, and one ink-skipped entry per ink
// node in place of the drawings.
func TestSkipInkIgnoresInkML(t *testing.T) {
	base := filepath.Join("testdata", "ink", "beside-text")
	html, inkML := readFixture(t, base, ".html"), readFixture(t, base, ".inkml")
	drawn, err := Page(html, Options{InkML: inkML})
	if err != nil {
		t.Fatal(err)
	}
	skipped, err := Page(html, Options{InkML: inkML, SkipInk: true})
	if err != nil {
		t.Fatal(err)
	}
	nodes := bytes.Count(html, []byte("<!-- InkNode is not supported -->"))
	if len(drawn.Ink) == 0 || nodes == 0 {
		t.Fatalf("the fixture draws %d images from %d ink nodes; want some of each", len(drawn.Ink), nodes)
	}
	if len(skipped.Ink) != 0 || len(skipped.Blocks) != len(drawn.Blocks)-len(drawn.Ink) {
		t.Errorf("with SkipInk: %d drawings, %d blocks; want none, %d (the page without its drawings)",
			len(skipped.Ink), len(skipped.Blocks), len(drawn.Blocks)-len(drawn.Ink))
	}
	if got := lossDetailCount(skipped.Losses, LossSkippedInk, skippedInk); got != nodes || lossCount(skipped.Losses, LossInk) != 0 {
		t.Errorf("with SkipInk: %d skipped, %d ink losses; want %d skipped (one per ink node), no ink loss",
			got, lossCount(skipped.Losses, LossInk), nodes)
	}
}
