package convert

import (
	"path/filepath"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// FuzzPage checks that no input makes Page fail or panic, and that every
// output passes Validate. Run: go test -fuzz=FuzzPage ./convert/
func FuzzPage(f *testing.F) {
	for _, name := range fixtureNames(f) {
		f.Add(readFixture(f, fixtureSource(name), ".html"), false)
	}
	for _, s := range []string{
		"",
		"<",
		"<object data=x/>",
		"<iframe src=https://youtu.be/x>",
		"<p><math><msup><mi>a</mi></msup></math></p>",
		"<table><tr><td><table><tr><td><ul><li>x</ul></td></tr></table></td></tr></table>",
		`<p data-tag="to-do,,:completed, x">a<sup>b</sup><sub>1</sub></p>`,
		`<p style="font-family:Consolas">a</p><br><p style="font-family:Consolas"> </p>`,
		"<ul><ul><ul><li>x</li></ul></ul></ul>",
		"<div style=\"position:absolute;top:NaNpx;left:1e400px\">x</div>",
		`<a href="onenote:#x&page-id={bad}">y</a>`,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, page []byte, webImages bool) {
		res, err := Page(page, Options{PreferWebImages: webImages})
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		if err := Validate(res.Blocks); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		seen := map[string]bool{}
		for _, r := range res.Resources {
			if r.ID == "" || seen[r.ID] {
				t.Fatalf("resource %+v empty or repeated", r)
			}
			seen[r.ID] = true
		}
		// The same page with alt captions and one skip option: valid
		// blocks, and nothing of the skipped kind left to fetch.
		opts := Options{ImageAlt: AltCaption, SkipImages: webImages, SkipAttachments: !webImages}
		res, err = Page(page, opts)
		if err != nil {
			t.Fatalf("Page %+v: %v", opts, err)
		}
		if err := Validate(res.Blocks); err != nil {
			t.Fatalf("Validate %+v: %v", opts, err)
		}
		var walk func(bs []blocks.Block)
		walk = func(bs []blocks.Block) {
			for _, b := range bs {
				if (opts.SkipImages && b.Type == blocks.Image) || (opts.SkipAttachments && b.Type == blocks.File) {
					t.Fatalf("a %s block with %+v", b.Type, opts)
				}
				walk(b.Children)
			}
		}
		walk(res.Blocks)
	})
}

// FuzzPageWithInk checks that no page and InkML make Page fail or panic,
// that every drawing is placed exactly once, and that drawn ink is never a
// resource to fetch. Run: go test -fuzz=FuzzPageWithInk ./convert/
func FuzzPageWithInk(f *testing.F) {
	for _, name := range []string{"ink-only", "beside-text", "highlighter-over-text", "one-group"} {
		base := filepath.Join("testdata", "ink", name)
		f.Add(readFixture(f, base, ".html"), readFixture(f, base, ".inkml"))
	}
	f.Add([]byte(`<div style="position:absolute;top:-5px;left:1e400px">x</div>`), []byte(`<trace>0 0,1e9 -1e9</trace>`))
	f.Fuzz(func(t *testing.T, page, inkML []byte) {
		res, err := Page(page, Options{InkML: inkML})
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		placed := map[string]int{}
		var walk func(bs []blocks.Block)
		walk = func(bs []blocks.Block) {
			for _, b := range bs {
				if b.Media != nil && b.Media.Resource != nil && IsDrawn(*b.Media.Resource, res.Ink) {
					placed[b.Media.Resource.ID]++
				}
				walk(b.Children)
			}
		}
		walk(res.Blocks)
		for _, im := range res.Ink {
			if placed[im.ID] != 1 || len(im.Data) == 0 {
				t.Fatalf("drawing %s placed %d times (%d bytes)", im.ID, placed[im.ID], len(im.Data))
			}
		}
		for _, r := range res.Resources {
			if r.URL == "" {
				t.Fatalf("resource %s to fetch has no URL (drawn ink?)", r.ID)
			}
		}
	})
}
