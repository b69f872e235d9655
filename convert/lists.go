package convert

import (
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// list converts a ul or ol: one item per li, nested lists as children.
// A list nested directly in another (without an li around it) belongs to
// the item before it.
func (c *converter) list(l *html.Node, base textStyle, cell bool, depth int) []blocks.Block {
	ordered := l.DataAtom == atom.Ol
	var out []blocks.Block
	var stray []*html.Node
	flushStray := func() {
		if len(stray) > 0 {
			out = append(out, c.listItem(stray, nil, ordered, base, cell, depth)...)
			stray = nil
		}
	}
	for n := l.FirstChild; n != nil; n = n.NextSibling {
		switch {
		case n.Type == html.CommentNode:
			c.comment(n, func() string { return textContent(l) })
		case n.Type == html.ElementNode && n.Namespace == "" && n.DataAtom == atom.Li:
			flushStray()
			out = append(out, c.listItemElement(n, ordered, base, cell, depth)...)
		case n.Type == html.ElementNode && n.Namespace == "" && (n.DataAtom == atom.Ul || n.DataAtom == atom.Ol):
			flushStray()
			nested := c.list(n, base, cell, depth+1)
			if len(out) > 0 {
				last := &out[len(out)-1]
				last.Children = append(last.Children, nested...)
			} else {
				out = append(out, nested...)
			}
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
		case n.Type == html.TextNode && collapse(n.Data) == "":
		default:
			stray = append(stray, n)
		}
	}
	flushStray()
	return out
}

// listItemElement converts one li; its style applies to its text.
func (c *converter) listItemElement(li *html.Node, ordered bool, base textStyle, cell bool, depth int) []blocks.Block {
	return c.listItem(childNodes(li), li, ordered, base.applyCSS(attr(li, "style"), true), cell, depth)
}

// listItem converts the content of a list item. Its text is its own inline
// content (text, spans, <p> wrappers) up to the first nested structure;
// nested lists and everything after them become children. A check-box tag
// makes it a to_do that keeps its children; other tags mark it.
func (c *converter) listItem(nodes []*html.Node, li *html.Node, ordered bool, st textStyle, cell bool, depth int) []blocks.Block {
	if depth > maxDepth {
		c.losses.add(LossTooDeep, Degraded, "list nested too deeply; kept as plain text", nodeText(li))
		var text string
		for _, n := range nodes {
			text += textContent(n) + " "
		}
		if t := collapse(text); t != "" {
			return []blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: t}}}}
		}
		return nil
	}
	own := len(nodes)
	for i, n := range nodes {
		if n.Type == html.ElementNode && !isInline(n) && !isTextWrapper(n) {
			own = i
			break
		}
	}
	var ic inlineContent
	c.inline(nodes[:own], st, &ic, li, depth+1)
	var tags []noteTag
	if li != nil {
		tags = parseTags(attr(li, "data-tag"))
	}
	tags = append(tags, ic.tags...)
	typ := blocks.BulletedListItem
	if ordered {
		typ = blocks.NumberedListItem
	}
	parts, between := splitBreakouts(ic.runs)
	var joined []run
	var children []blocks.Block
	for i, part := range parts {
		if len(joined) > 0 && len(part) > 0 {
			joined = append(joined, run{br: true})
		}
		joined = append(joined, part...)
		if i < len(between) {
			children = append(children, between[i]...)
		}
	}
	children = append(children, c.flowOfChildren(nodes[own:], st, cell, depth+1)...)
	rt := c.richText(c.normalize(joined))
	if len(rt) == 0 && len(children) == 0 && li == nil {
		// Loose content that is all blank is no item; an li is one,
		// even empty (<li><br /></li>).
		return nil
	}
	b := blocks.Block{Type: typ, RichText: rt, Children: children}
	c.applyTags(&b, tags, roleListItem)
	return []blocks.Block{b}
}

// isTextWrapper reports whether n is part of a list item's own text: a
// <p> wrapper or an inline equation.
func isTextWrapper(n *html.Node) bool {
	return (n.Namespace == "" && n.DataAtom == atom.P) || (n.Namespace == "math" && n.DataAtom == atom.Math)
}
