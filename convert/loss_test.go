package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestLossReport(t *testing.T) {
	tests := []struct {
		name     string
		html     string
		opts     Options
		kind     LossKind
		severity Severity
		count    int
	}{
		{"each ink comment is counted", "<p>a</p><!-- InkNode is not supported --><p>b</p><!-- InkNode is not supported -->",
			Options{}, LossInk, Dropped, 2},
		{"other export failures", "<!-- Processing ParagraphNode failed -->", Options{}, LossUnsupported, Dropped, 1},
		{"unknown elements keep their text", "<blink>x</blink>", Options{}, LossUnsupported, Degraded, 1},
		{"scripts are dropped", "<script>alert(1)</script>", Options{}, LossUnsupported, Dropped, 1},
		{"svg is dropped", `<svg><circle r="1"/></svg>`, Options{}, LossUnsupported, Dropped, 1},
		{"headings beyond the deepest level are capped", "<h4>a</h4><h6>b</h6>", Options{}, LossHeading, Mapped, 1},
		{"a lower cap on request", "<h3>a</h3>", Options{MaxHeading: 2}, LossHeading, Mapped, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := convertBody(t, outlineDiv(tt.html), tt.opts)
			n := 0
			for _, l := range r.Losses {
				if l.Kind == tt.kind {
					n += l.Count
					if l.Severity != tt.severity {
						t.Errorf("severity %s, want %s", l.Severity, tt.severity)
					}
				}
			}
			if n < tt.count {
				t.Errorf("%d %s losses, want %d; report %+v", n, tt.kind, tt.count, r.Losses)
			}
		})
	}
}

func TestHeadingLevels(t *testing.T) {
	r := convertBody(t, outlineDiv(`<h1 style="color:#1e4e79;font-style:italic">a</h1><h2>b</h2><h3>c</h3><h5>d <b>e</b></h5>`), Options{})
	assertBlocks(t, r.Blocks, []blocks.Block{
		textBlock(blocks.Heading1, plain("a")),
		textBlock(blocks.Heading2, plain("b")),
		textBlock(blocks.Heading3, plain("c")),
		textBlock(blocks.Heading3, plain("d "), styled("e", bold)),
	})
	r = convertBody(t, outlineDiv(`<h3>c</h3>`), Options{MaxHeading: 1})
	assertBlocks(t, r.Blocks, []blocks.Block{textBlock(blocks.Heading1, plain("c"))})
}

func TestExcerpt(t *testing.T) {
	if got := excerpt("  a\n b  "); got != "a b" {
		t.Errorf("excerpt = %q", got)
	}
	long := excerpt("ééééééééééééééééééééééééééééééééééééééééééééééééééééééé")
	if []rune(long)[excerptLen] != '…' || len([]rune(long)) != excerptLen+1 {
		t.Errorf("excerpt = %q", long)
	}
}
