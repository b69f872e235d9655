package convert

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// flow turns a sequence of block-level content (an outline, a list item's
// body, a table cell) into blocks. It keeps the state that spans elements:
// the code run being built and loose inline content waiting to become a
// paragraph.
type flow struct {
	c *converter
	// base is the text style inherited from around the content.
	base textStyle
	// cell is set inside table cells, where code stays a mark and does not
	// become code blocks.
	cell bool

	out []blocks.Block

	code     []string // lines of the code run being built
	codeOpen bool
	blanks   int // <br />s since the last code line

	loose []*html.Node // inline nodes waiting to become a paragraph
}

// flowOf converts the element n as block-level content.
func (c *converter) flowOf(n *html.Node, base textStyle, cell bool, depth int) []blocks.Block {
	f := flow{c: c, base: base, cell: cell}
	f.walk([]*html.Node{n}, depth)
	return f.finish()
}

// flowOfChildren converts the children of n as block-level content.
func (c *converter) flowOfChildren(nodes []*html.Node, base textStyle, cell bool, depth int) []blocks.Block {
	f := flow{c: c, base: base, cell: cell}
	f.walk(nodes, depth)
	return f.finish()
}

// finish ends the flow and returns its blocks.
func (f *flow) finish() []blocks.Block {
	f.flushLoose(0)
	f.flushCode()
	return f.out
}

// emit appends blocks that end any code run.
func (f *flow) emit(bs ...blocks.Block) {
	if len(bs) == 0 {
		return
	}
	f.flushCode()
	f.out = append(f.out, bs...)
}

// near is an excerpt of the content just before the current position.
func (f *flow) near() string {
	if f.codeOpen {
		return f.code[len(f.code)-1]
	}
	for i := len(f.out) - 1; i >= 0; i-- {
		if t := blocks.PlainText(f.out[i].RichText); t != "" {
			return t
		}
	}
	return ""
}

// walk converts nodes in document order.
func (f *flow) walk(nodes []*html.Node, depth int) {
	for _, n := range nodes {
		f.node(n, depth)
	}
}

func (f *flow) node(n *html.Node, depth int) {
	c := f.c
	switch n.Type {
	case html.CommentNode:
		c.comment(n, f.near)
		return
	case html.TextNode:
		if len(f.loose) == 0 && isBlankText(n.Data) {
			return
		}
		f.loose = append(f.loose, n)
		return
	case html.ElementNode:
	default:
		return
	}
	standalone := allBlank(f.loose)
	if isInline(n) && !(standalone && n.DataAtom == atom.Cite) {
		f.loose = append(f.loose, n)
		return
	}
	if n.Namespace == "math" && n.DataAtom == atom.Math && !standalone {
		f.loose = append(f.loose, n)
		return
	}
	f.flushLoose(depth)
	if depth > maxDepth {
		c.losses.addLazy(LossTooDeep, Degraded, "markup nested too deeply; kept as plain text", func() string { return textContent(n) })
		if t := collapse(textContent(n)); t != "" {
			f.emit(blocks.Block{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: t}}})
		}
		return
	}
	if n.Namespace == "math" {
		if n.DataAtom == atom.Math {
			f.emit(c.equationBlock(n)...)
		} else {
			c.losses.add(LossUnsupported, Dropped, "stray MathML <"+n.Data+">", f.near())
		}
		return
	}
	if n.Namespace != "" {
		c.losses.add(LossUnsupported, Dropped, "unsupported <"+n.Data+"> element", f.near())
		return
	}
	switch n.DataAtom {
	case atom.Br:
		if f.codeOpen {
			f.blanks++
		}
	case atom.P:
		f.paragraph(childNodes(n), f.base.applyCSS(attr(n, "style"), true), parseTags(attr(n, "data-tag")), n, depth)
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		f.heading(n, depth)
	case atom.Ul, atom.Ol:
		f.emit(c.list(n, f.base, f.cell, depth)...)
	case atom.Li:
		f.emit(c.listItemElement(n, false, f.base, f.cell, depth)...)
	case atom.Table:
		f.emit(c.table(n, f.base, depth)...)
	case atom.Img, atom.Object, atom.Iframe, atom.Embed, atom.Video, atom.Audio:
		f.emit(c.media(n)...)
		f.walk(c.mediaContent(n), depth+1)
	case atom.Cite, atom.Blockquote:
		f.emit(c.quoteBlocks(childNodes(n), f.base, n, depth)...)
	case atom.Pre:
		if t := c.codeText(textContent(n)); t != "" {
			f.emit(codeBlock(t))
		}
	case atom.Hr:
		f.emit(blocks.Block{Type: blocks.Divider})
	case atom.Script, atom.Style, atom.Template, atom.Noscript:
		c.skipped(n, f.near)
	case atom.Head, atom.Title, atom.Meta, atom.Link, atom.Base:
	default:
		if !containerElements[n.DataAtom] {
			c.losses.addLazy(LossUnsupported, Degraded, "unknown element <"+n.Data+"> kept as its text", func() string { return textContent(n) })
		}
		f.walk(childNodes(n), depth+1)
	}
}

// containerElements are elements whose content is converted as if it stood
// in their place.
var containerElements = map[atom.Atom]bool{
	atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true, atom.Header: true,
	atom.Footer: true, atom.Nav: true, atom.Aside: true, atom.Center: true, atom.Form: true,
	atom.Body: true, atom.Html: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Figure: true, atom.Figcaption: true,
	atom.Details: true, atom.Summary: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Fieldset: true, atom.Address: true, atom.Caption: true, atom.Colgroup: true, atom.Col: true,
	atom.Picture: true, atom.Source: true, atom.Track: true, atom.Param: true, atom.Area: true,
	atom.Map: true,
}

// flushLoose turns waiting inline content into a paragraph (or code line).
func (f *flow) flushLoose(depth int) {
	if len(f.loose) == 0 {
		return
	}
	nodes := f.loose
	f.loose = nil
	f.paragraph(nodes, f.base, nil, nil, depth)
}

// paragraph converts the content of a p (or loose inline content) in style
// st with the p's own tags. It becomes a code line, a quote, an equation, a
// to_do, a callout or paragraphs, plus whatever blocks broke out of it.
func (f *flow) paragraph(nodes []*html.Node, st textStyle, tags []noteTag, owner *html.Node, depth int) {
	c := f.c
	if len(tags) == 0 && owner != nil {
		switch builtinStyleOf(attr(owner, "style")) {
		case styleQuote:
			// The quote keeps the style's italics and grey: Notion shows
			// both inside a quote block.
			f.emit(c.quoteBlocks(nodes, st, owner, depth)...)
			return
		case styleTitle:
			var ic inlineContent
			c.inline(nodes, f.base, &ic, owner, depth+1)
			f.emit(c.textBlocks(ic.runs, blocks.Heading1, ic.tags, roleHeading)...)
			return
		}
	}
	if len(tags) == 0 {
		switch only := onlyElement(nodes); {
		case only == nil:
		case only.Namespace == "math" && only.DataAtom == atom.Math:
			f.emit(c.equationBlock(only)...)
			return
		case only.Namespace == "" && only.DataAtom == atom.Cite:
			f.emit(c.quoteBlocks(childNodes(only), st, only, depth)...)
			return
		}
	}
	ic := inlineContent{runs: make([]run, 0, 2*len(nodes)+1)}
	c.inline(nodes, st, &ic, owner, depth+1)
	tags = append(tags, ic.tags...)
	if len(tags) == 0 && !f.cell && isCodeLine(ic.runs) {
		if line := c.codeText(rawText(ic.runs)); line != "" {
			c.codeFormatLosses(ic.runs, line)
			f.addCodeLine(line)
		}
		return
	}
	f.emit(c.textBlocks(ic.runs, blocks.Paragraph, tags, roleParagraph)...)
}

// heading converts h1 to h6. The heading's own style is OneNote's heading
// style and is not recorded, except a highlight; styles inside it are.
func (f *flow) heading(n *html.Node, depth int) {
	c := f.c
	level := int(n.Data[1] - '0')
	if max := c.opts.maxHeading(); level > max {
		c.losses.addLazy(LossHeading, Mapped, "h"+n.Data[1:]+" shown as heading_"+string(rune('0'+max)), func() string { return textContent(n) })
		level = max
	}
	typ := [...]blocks.Type{blocks.Heading1, blocks.Heading2, blocks.Heading3}[level-1]
	// The heading's own colour and size are its heading style; a highlight
	// on it is the writer's, kept (or reported) like any other.
	st := f.base
	for k, v := range cssDeclarations(attr(n, "style")) {
		if k == "background-color" || k == "background" {
			st.background = v
		}
	}
	var ic inlineContent
	c.inline(childNodes(n), st, &ic, n, depth+1)
	tags := append(parseTags(attr(n, "data-tag")), ic.tags...)
	f.emit(c.textBlocks(ic.runs, typ, tags, roleHeading)...)
}

// textBlocks makes blocks of type typ from inline runs. Blocks that broke
// out of the text (images in a paragraph) split it; with note tags, the
// text stays one block and those blocks become its children (headings
// keep them as siblings). Text that normalizes to nothing makes no block.
func (c *converter) textBlocks(runs []run, typ blocks.Type, tags []noteTag, role tagRole) []blocks.Block {
	if !hasBreakouts(runs) && len(tags) == 0 {
		if rt := c.richText(c.normalize(runs)); len(rt) > 0 {
			return []blocks.Block{{Type: typ, RichText: rt}}
		}
		return nil
	}
	parts, between := splitBreakouts(runs)
	if len(tags) == 0 || role == roleHeading {
		var out []blocks.Block
		for i, part := range parts {
			if rt := c.richText(c.normalize(part)); len(rt) > 0 {
				b := blocks.Block{Type: typ, RichText: rt}
				c.applyTags(&b, tags, role)
				tags = nil
				out = append(out, b)
			}
			if i < len(between) {
				out = append(out, between[i]...)
			}
		}
		return out
	}
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
	rt := c.richText(c.normalize(joined))
	if len(rt) == 0 && len(children) == 0 {
		return nil
	}
	b := blocks.Block{Type: typ, RichText: rt, Children: children}
	c.applyTags(&b, tags, role)
	return []blocks.Block{b}
}

// quoteBlocks converts a block-level cite (or blockquote), or a p in
// OneNote's Quote style, to a quote. A cite's or blockquote's own style
// applies to its text as a span's would, so a highlight, another colour or
// italics on it are kept or reported like any other. The grey of OneNote's
// Citation style (#595959, 9pt, written on the cite) is the style itself,
// which the quote block stands for, as a heading block stands for a
// heading style; its size is presentation.
func (c *converter) quoteBlocks(nodes []*html.Node, st textStyle, owner *html.Node, depth int) []blocks.Block {
	if owner != nil && (owner.DataAtom == atom.Cite || owner.DataAtom == atom.Blockquote) {
		around := st.color
		st = st.applyCSS(attr(owner, "style"), true)
		if isStyleGrey(asciiLower(st.color)) {
			st.color = around
		}
	}
	var ic inlineContent
	c.inline(nodes, st, &ic, owner, depth+1)
	if len(ic.tags) > 0 {
		c.losses.add(LossTag, Degraded, "note tag inside a quote not kept", textContent(owner))
	}
	return c.textBlocks(ic.runs, blocks.Quote, nil, roleParagraph)
}

// onlyElement returns the single element among nodes, looking through
// plain span wrappers, when everything else is blank (see isBlank). It is
// the one test of "standing alone" for equations and citations.
func onlyElement(nodes []*html.Node) *html.Node {
	for range maxDepth {
		var only *html.Node
		for _, n := range nodes {
			if isBlank(n, 0) {
				continue
			}
			if n.Type != html.ElementNode || only != nil {
				return nil
			}
			only = n
		}
		if only == nil || only.Namespace != "" || only.DataAtom != atom.Span || hasAttr(only, "data-tag") {
			return only
		}
		nodes = childNodes(only)
	}
	return nil
}

// allBlank reports whether every node is blank (see isBlank).
func allBlank(nodes []*html.Node) bool {
	for _, n := range nodes {
		if !isBlank(n, 0) {
			return false
		}
	}
	return true
}

// isBlank reports whether n shows nothing in a line of text: a comment,
// text of whitespace (NBSP included) and U+FFFC, a <br />, or a plain span
// (no note tag) holding only blank nodes. Blank means blank for every
// standalone test.
func isBlank(n *html.Node, depth int) bool {
	switch n.Type {
	case html.CommentNode:
		// An ink comment is content, reported where it is met; it does
		// not stop an equation from standing alone.
		return true
	case html.TextNode:
		return isBlankText(n.Data)
	case html.ElementNode:
		if n.Namespace != "" || depth > maxDepth {
			return false
		}
		switch n.DataAtom {
		case atom.Br:
			return true
		case atom.Span:
			if hasAttr(n, "data-tag") {
				return false
			}
			for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
				if !isBlank(ch, depth+1) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// isBlankText reports whether s holds only collapsible whitespace and
// U+FFFC.
func isBlankText(s string) bool {
	for _, r := range s {
		if !isCollapsible(r) && r != objectReplacement {
			return false
		}
	}
	return true
}

// collapse applies the whitespace rule to plain text.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(removeObjectReplacement(s), isCollapsible), " ")
}
