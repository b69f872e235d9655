package convert

import (
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// Graph's documented defaults for an outline without a position.
const (
	defaultTop  = 120
	defaultLeft = 48
	// defaultWidth is the width of Graph's default outline.
	defaultWidth = 624
)

// outline is a top-level piece of the page: an absolutely positioned div,
// img or object, or loose content directly in the body.
type outline struct {
	top, left, width float64
	nodes            []*html.Node
}

// outlines splits the body into outlines and sorts them into reading order:
// by top, then left, as numbers; ties keep document order.
func outlines(body *html.Node) []outline {
	var out []outline
	var loose []*html.Node
	flushLoose := func() {
		if len(loose) > 0 {
			out = append(out, outline{top: defaultTop, left: defaultLeft, width: defaultWidth, nodes: loose})
			loose = nil
		}
	}
	for n := body.FirstChild; n != nil; n = n.NextSibling {
		if n.Type == html.ElementNode && !isInline(n) && n.DataAtom != atom.Br {
			flushLoose()
			top, left, width := position(n)
			out = append(out, outline{top: top, left: left, width: width, nodes: []*html.Node{n}})
			continue
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br && len(loose) == 0 {
			continue
		}
		loose = append(loose, n)
	}
	flushLoose()
	slices.SortStableFunc(out, func(a, b outline) int {
		if a.top != b.top {
			if a.top < b.top {
				return -1
			}
			return 1
		}
		switch {
		case a.left < b.left:
			return -1
		case a.left > b.left:
			return 1
		}
		return 0
	})
	return out
}

// position reads an outline's top, left and width from its style (an
// img's width attribute when its style has none), in px.
func position(n *html.Node) (top, left, width float64) {
	top, left, width = defaultTop, defaultLeft, cssLength(attr(n, "width"), defaultWidth)
	for k, v := range cssDeclarations(attr(n, "style")) {
		switch k {
		case "top":
			top = cssLength(v, defaultTop)
		case "left":
			left = cssLength(v, defaultLeft)
		case "width":
			width = cssLength(v, defaultWidth)
		}
	}
	return top, left, width
}

// cssLength reads a CSS length such as "115px" as a number, or returns def.
func cssLength(v string, def float64) float64 {
	v = strings.TrimSpace(strings.ToLower(v))
	v = strings.TrimSuffix(v, "px")
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f != f {
		return def
	}
	return f
}

// body converts the page body: each outline in reading order, its content
// in document order, and the page's ink placed among them (placeInk).
func (c *converter) body(body *html.Node) []blocks.Block {
	os := outlines(body)
	per := make([][]blocks.Block, len(os))
	for i, o := range os {
		f := flow{c: c}
		f.walk(o.nodes, 1)
		per[i] = f.finish()
	}
	if len(c.inks) > 0 {
		return c.placeInk(os, per)
	}
	var out []blocks.Block
	for _, bs := range per {
		out = append(out, bs...)
	}
	return out
}
