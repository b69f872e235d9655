package convert

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/notebridge/notebridge/convert/ink"
	"github.com/notebridge/notebridge/notion/blocks"
)

// InkImage is a drawing rendered from the page's ink: the content of the
// image block whose Resource has its ID. It is not fetched from Graph; the
// pipeline uploads Data as it is.
type InkImage struct {
	// ID is the image block's Resource.ID: "ink:1", "ink:2", … in reading
	// order.
	ID string
	// Name is the file name to upload under ("ink-1.svg").
	Name string
	// MIME is the content type: image/svg+xml.
	MIME string
	// Data is the SVG document.
	Data []byte
}

// IsDrawn returns the drawing r stands for, if it is one of drawn: a
// drawing's Resource has its ID and no URL (every Graph resource has one),
// so a page resource that happens to share the ID is never mistaken for it.
func IsDrawn(r blocks.Resource, drawn []InkImage) bool {
	_, ok := Drawing(r, drawn)
	return ok
}

// Drawing returns the drawing r stands for, if it is one of drawn (see
// IsDrawn).
func Drawing(r blocks.Resource, drawn []InkImage) (InkImage, bool) {
	if r.URL != "" {
		return InkImage{}, false
	}
	for _, im := range drawn {
		if im.ID == r.ID {
			return im, true
		}
	}
	return InkImage{}, false
}

// inkMIME is the type of rendered ink; Notion's upload allow-list has
// image/svg+xml.
const inkMIME = "image/svg+xml"

// Estimated layout of converted blocks, in px, for placing ink by its
// position: OneNote's default 11pt Calibri runs about 20 px a line and 7 px
// a character. Outlines carry a top, left and width but no height, so a
// block's height is estimated from its text.
const (
	lineHeight  = 20
	charWidth   = 7
	imageHeight = 200
	rowHeight   = 24
)

// readInk parses opts.InkML into ink groups, splits each into spatial
// clusters (a real page keeps all of its ink in one trace group) and keeps
// the clusters in reading order (by top, then left). Ink that cannot be
// read is reported, and the page's ink comments are then reported as
// without InkML. An InkML document without a trace is a page nothing was
// drawn on.
func (c *converter) readInk(inkML []byte) {
	if inkML == nil {
		return
	}
	groups, err := ink.Parse(inkML)
	if errors.Is(err, ink.ErrEmpty) {
		c.inkMode = true
		return
	}
	if err != nil {
		c.losses.add(LossInk, Dropped, "ink could not be read from Graph's InkML", "")
		return
	}
	type placed struct {
		g ink.Group
		r ink.Rect
	}
	var ps []placed
	for _, g := range groups {
		c.inkStrokes += len(g.Strokes)
		for _, cl := range g.Clusters(ink.Gap{X: ink.DefaultGapX, Y: ink.DefaultGapY}) {
			ps = append(ps, placed{cl, cl.Bounds()})
		}
	}
	slices.SortStableFunc(ps, func(a, b placed) int {
		if d := cmp.Compare(a.r.Min.Y, b.r.Min.Y); d != 0 {
			return d
		}
		return cmp.Compare(a.r.Min.X, b.r.Min.X)
	})
	for _, p := range ps {
		c.inks = append(c.inks, inkGroup{group: p.g, bounds: p.r})
	}
	c.inkMode = true
}

// inkGroup is one ink group waiting to be placed.
type inkGroup struct {
	group  ink.Group
	bounds ink.Rect
}

// inkAnchor says where an ink group goes: after block block of outline
// outline (block -1: at the end of the outline; outline -1: before
// everything).
type inkAnchor struct{ outline, block int }

// placeInk merges the converted outlines (per[i] the blocks of os[i]) with
// the page's ink, each group an image block placed where it was drawn:
//   - a group whose vertical centre lies within an outline's estimated
//     extent goes right after the block at that height (ink over text, or
//     beside it); when several outlines span that height, the one it
//     overlaps most horizontally, else the nearest, wins;
//   - any other group goes between the outlines, in reading order by its
//     top and left, as an outline of its own would.
//
// A page that is only ink becomes a page of images.
func (c *converter) placeInk(os []outline, per [][]blocks.Block) []blocks.Block {
	type extent struct{ top, bottom float64 }
	spans := make([][]extent, len(os))
	bottoms := make([]float64, len(os))
	for i, o := range os {
		y := o.top
		for _, b := range per[i] {
			h := estimateHeight(b, o.width)
			spans[i] = append(spans[i], extent{y, y + h})
			y += h
		}
		bottoms[i] = y
	}
	after := map[inkAnchor][]blocks.Block{}
	for k, g := range c.inks {
		img := c.inkImage(k+1, g.group)
		cy := (g.bounds.Min.Y + g.bounds.Max.Y) / 2
		best, bestScore := -1, math.Inf(-1)
		for i, o := range os {
			if len(per[i]) == 0 || cy < o.top || cy > bottoms[i] {
				continue
			}
			overlap := math.Min(g.bounds.Max.X, o.left+o.width) - math.Max(g.bounds.Min.X, o.left)
			if overlap > bestScore {
				best, bestScore = i, overlap
			}
		}
		a := inkAnchor{outline: -1, block: -1}
		if best >= 0 {
			a.outline = best
			for j, s := range spans[best] {
				if cy >= s.top {
					a.block = j
				}
			}
		} else {
			for i, o := range os {
				if o.top < g.bounds.Min.Y || (o.top == g.bounds.Min.Y && o.left <= g.bounds.Min.X) {
					a.outline = i
				}
			}
		}
		after[a] = append(after[a], img)
	}
	out := append([]blocks.Block(nil), after[inkAnchor{-1, -1}]...)
	for i := range os {
		for j, b := range per[i] {
			out = append(out, b)
			out = append(out, after[inkAnchor{i, j}]...)
		}
		out = append(out, after[inkAnchor{i, -1}]...)
	}
	return out
}

// inkImage renders group number n (1-based) and returns its image block.
func (c *converter) inkImage(n int, g ink.Group) blocks.Block {
	num := strconv.Itoa(n)
	im := InkImage{ID: "ink:" + num, Name: "ink-" + num + ".svg", MIME: inkMIME, Data: ink.SVG(g)}
	c.inkImages = append(c.inkImages, im)
	return blocks.Block{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{ID: im.ID, MIME: im.MIME, Name: im.Name}}}
}

// inkLosses reports the page's ink comments that no InkML stroke can
// account for. Graph leaves a comment for each ink node, and an ink node
// holds at least one stroke (our inference: a node without a stroke draws
// nothing), so only comments beyond the number of strokes are certainly
// ink left out; how strokes are grouped says nothing about
// it (a real page has one group for all its ink).
func (c *converter) inkLosses() {
	for range c.inkComments - c.inkStrokes {
		c.losses.add(LossInk, Dropped, "ink Graph left out of its InkML", "")
	}
}

// estimateHeight is a block's estimated height in px in an outline of the
// given width, its children included.
func estimateHeight(b blocks.Block, width float64) float64 {
	perLine := max(1, int(width/charWidth))
	lines := func(rt []blocks.RichText) float64 {
		n, col := 1, 0
		for _, r := range rt {
			for _, ch := range r.Text + r.Equation {
				if ch == '\n' {
					n, col = n+1, 0
					continue
				}
				if col++; col > perLine {
					n, col = n+1, 1
				}
			}
		}
		return float64(n)
	}
	var h float64
	switch b.Type {
	case blocks.Heading1:
		h = 32 * lines(b.RichText)
	case blocks.Heading2:
		h = 27 * lines(b.RichText)
	case blocks.Heading3:
		h = 24 * lines(b.RichText)
	case blocks.Table:
		h = rowHeight * float64(len(b.Children))
		return h
	case blocks.Image, blocks.Video, blocks.Embed, blocks.PDF:
		h = imageHeight
	case blocks.Equation:
		h = 1.5 * lineHeight * float64(1+utf8.RuneCountInString(b.Expression)/perLine)
	case blocks.Divider:
		h = lineHeight
	default:
		h = lineHeight * lines(b.RichText)
	}
	for _, ch := range b.Children {
		h += estimateHeight(ch, width)
	}
	return h
}
