package convert

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// run is a piece of a block's inline content: text in one style, a line
// break, an inline equation, or blocks that break out of the text (an image
// inside a paragraph).
type run struct {
	text  string
	st    textStyle
	br    bool
	eq    string
	block []blocks.Block
}

// inlineContent is what an inline walk collects.
type inlineContent struct {
	runs []run
	tags []noteTag
}

// maxDepth is how deep the converter descends into nested markup. Real pages
// stay far below it; deeper input is kept as plain text and reported.
const maxDepth = 200

// inlineElements are the elements that are part of a line of text.
var inlineElements = map[atom.Atom]bool{
	atom.Span: true, atom.A: true, atom.B: true, atom.Strong: true, atom.I: true, atom.Em: true,
	atom.U: true, atom.Ins: true, atom.S: true, atom.Strike: true, atom.Del: true, atom.Sup: true,
	atom.Sub: true, atom.Code: true, atom.Kbd: true, atom.Samp: true, atom.Tt: true, atom.Font: true,
	atom.Small: true, atom.Big: true, atom.Mark: true, atom.Abbr: true, atom.Q: true, atom.Label: true,
	atom.Bdi: true, atom.Bdo: true, atom.Time: true, atom.Var: true, atom.Dfn: true, atom.Wbr: true,
	atom.Nobr: true, atom.Cite: true, atom.Data: true, atom.Acronym: true, atom.Ruby: true,
	atom.Rt: true, atom.Rp: true,
}

// isInline reports whether n belongs to a line of text.
func isInline(n *html.Node) bool {
	switch n.Type {
	case html.TextNode:
		return true
	case html.ElementNode:
		return n.Namespace == "" && inlineElements[n.DataAtom]
	}
	return false
}

// inline walks nodes as inline content in style st, appending to ic.
// owner is the block element the content belongs to, for loss excerpts.
func (c *converter) inline(nodes []*html.Node, st textStyle, ic *inlineContent, owner *html.Node, depth int) {
	for _, n := range nodes {
		c.inlineNode(n, st, ic, owner, depth)
	}
}

func (c *converter) inlineNode(n *html.Node, st textStyle, ic *inlineContent, owner *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		ic.runs = append(ic.runs, run{text: n.Data, st: st})
		return
	case html.CommentNode:
		c.comment(n, func() string { return nodeText(owner) })
		return
	case html.ElementNode:
	default:
		return
	}
	if depth > maxDepth {
		c.losses.addLazy(LossTooDeep, Degraded, "markup nested too deeply; its formatting is dropped", func() string { return nodeText(owner) })
		ic.runs = append(ic.runs, run{text: textContent(n), st: st})
		return
	}
	if n.Namespace == "math" && n.DataAtom == atom.Math {
		ic.runs = append(ic.runs, c.inlineEquation(n, owner))
		return
	}
	if n.Namespace != "" {
		c.losses.addLazy(LossUnsupported, Dropped, "unsupported <"+n.Data+"> element", func() string { return nodeText(owner) })
		return
	}
	if v := attr(n, "data-tag"); v != "" && n.DataAtom != atom.Img {
		ic.tags = append(ic.tags, parseTags(v)...)
	}
	switch n.DataAtom {
	case atom.Br:
		ic.runs = append(ic.runs, run{br: true})
		return
	case atom.P, atom.Div, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		// A paragraph inside inline content (a list item's wrapper) adds
		// its text on a line of its own.
		if len(ic.runs) > 0 {
			ic.runs = append(ic.runs, run{br: true})
		}
		inner := st
		if n.DataAtom == atom.P || n.DataAtom == atom.Div {
			inner = st.applyCSS(attr(n, "style"), true)
		}
		c.inline(childNodes(n), inner, ic, owner, depth+1)
		return
	case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Title, atom.Meta, atom.Link:
		c.skipped(n, func() string { return nodeText(owner) })
		return
	}
	if !inlineElements[n.DataAtom] {
		if bs := c.flowOf(n, textStyle{}, false, depth+1); len(bs) > 0 {
			ic.runs = append(ic.runs, run{block: bs})
		}
		return
	}
	inner := inlineStyle(n, st)
	if n.DataAtom == atom.A && inner.href != "" && !keptAsLink(inner.href) {
		href := inner.href
		inner.href = ""
		start := len(ic.runs)
		c.inline(childNodes(n), inner, ic, owner, depth+1)
		c.textLink(ic, start, href, inner, func() string { return nodeText(owner) })
		return
	}
	c.inline(childNodes(n), inner, ic, owner, depth+1)
}

// childNodes returns n's children as a slice.
func childNodes(n *html.Node) []*html.Node {
	var out []*html.Node
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		out = append(out, ch)
	}
	return out
}

// comment reports an HTML comment: Graph leaves one where it could not
// export content.
func (c *converter) comment(n *html.Node, near func() string) {
	text := strings.TrimSpace(n.Data)
	if strings.Contains(strings.ToLower(text), "inknode") {
		if c.inkMode {
			c.inkComments++
			return
		}
		if c.opts.SkipInk {
			c.losses.addLazy(LossSkippedInk, Skipped, skippedInk, near)
			return
		}
		c.losses.addLazy(LossInk, Dropped, "ink (drawing or handwriting) is not returned by Graph", near)
		return
	}
	c.losses.addLazy(LossUnsupported, Dropped, "Graph could not export content: "+quote(excerpt(text)), near)
}

// skipped reports an element that carries no page content the converter
// can keep (scripts, styles).
func (c *converter) skipped(n *html.Node, near func() string) {
	if strings.TrimSpace(textContent(n)) == "" && n.DataAtom != atom.Script {
		return
	}
	c.losses.addLazy(LossUnsupported, Dropped, "unsupported <"+n.Data+"> element", near)
}

// nodeText is the text of n, or "" for nil.
func nodeText(n *html.Node) string {
	if n == nil {
		return ""
	}
	return textContent(n)
}

// isCollapsible reports whether r is whitespace that collapses outside
// code: space, tab, CR, LF, form feed and NBSP.
func isCollapsible(r rune) bool {
	switch r {
	case ' ', '\t', '\r', '\n', '\f', '\u00a0':
		return true
	}
	return false
}

// objectReplacement is U+FFFC, which OneNote leaves in text where an
// object was; it is deleted (or made a word break) and reported.
const objectReplacement = '\uFFFC'

func removeObjectReplacement(s string) string {
	if !strings.ContainsRune(s, objectReplacement) {
		return s
	}
	return strings.ReplaceAll(s, string(objectReplacement), "")
}

// objectLeftOut is the loss detail of a U+FFFC deleted from text: an
// object Graph did not export.
const objectLeftOut = "an embedded object Graph did not export (U+FFFC)"

// normalize applies normalizeRuns and reports every U+FFFC, each standing
// for an object Graph did not export: text that is otherwise blank once,
// each one inside a word as shown as a space, and each other one (beside
// a space or punctuation, at either end) as left out.
func (c *converter) normalize(in []run) []run {
	out, objects, breaks := normalizeRuns(in)
	if len(out) == 0 {
		if objects > 0 {
			c.losses.add(LossUnsupported, Dropped, objectLeftOut, "")
		}
		return out
	}
	near := func() string { return plainRuns(out) }
	for range breaks {
		c.losses.addLazy(LossUnsupported, Dropped, objectLeftOut+" inside a word, shown as a space", near)
	}
	c.objectsLeftOut(objects-breaks, near)
	return out
}

// objectsLeftOut reports n U+FFFC deleted from text that is kept.
func (c *converter) objectsLeftOut(n int, near func() string) {
	for range n {
		c.losses.addLazy(LossUnsupported, Dropped, objectLeftOut+", left out", near)
	}
}

// normalizeRuns applies the text rules outside code: each run of
// whitespace becomes one space, spaces around line breaks go, leading and
// trailing whitespace and line breaks go. U+FFFC between two letters or
// digits is a word break (a space); anywhere else it is deleted. It also
// returns how many U+FFFC it met and how many word breaks it made. Runs
// must not hold blocks.
func normalizeRuns(in []run) (_ []run, objects, breaks int) {
	out := make([]run, 0, len(in))
	space := true // suppress spaces at the start and after a space or break
	// lastWord is set when the text so far ends with a letter or digit;
	// pending when a U+FFFC followed it.
	lastWord, pending := false, false
	var b strings.Builder
	for _, r := range in {
		switch {
		case r.br:
			out = trimTrailingSpace(out)
			lastWord, pending = false, false
			if len(out) == 0 {
				continue
			}
			out = append(out, run{br: true, st: out[len(out)-1].st})
			space = true
		case r.eq != "":
			out = append(out, r)
			space, lastWord, pending = false, false, false
		case !pending && isNormalText(r.text, space):
			out = append(out, run{text: r.text, st: r.st})
			space = r.text[len(r.text)-1] == ' '
			last, _ := utf8.DecodeLastRuneInString(r.text)
			lastWord = isWordRune(last)
		default:
			b.Reset()
			for _, ch := range r.text {
				switch {
				case ch == objectReplacement:
					objects++
					pending = pending || lastWord
				case isCollapsible(ch):
					if !space {
						b.WriteByte(' ')
						space = true
					}
					lastWord, pending = false, false
				default:
					if pending && isWordRune(ch) {
						b.WriteByte(' ')
						breaks++
					}
					b.WriteRune(ch)
					space, pending = false, false
					lastWord = isWordRune(ch)
				}
			}
			if b.Len() > 0 {
				out = append(out, run{text: b.String(), st: r.st})
			}
		}
	}
	for {
		out = trimTrailingSpace(out)
		if len(out) == 0 || !out[len(out)-1].br {
			return out, objects, breaks
		}
		out = out[:len(out)-1]
	}
}

// isWordRune reports whether r is a letter or digit.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// isNormalText reports whether s is non-empty and already normalized: no
// whitespace but single spaces, no U+FFFC or NBSP, and no leading space
// when one would be dropped (afterSpace).
func isNormalText(s string, afterSpace bool) bool {
	if s == "" || (afterSpace && s[0] == ' ') {
		return false
	}
	prevSpace := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
			continue
		case '\t', '\r', '\n', '\f':
			return false
		case 0xC2: // first byte of NBSP (C2 A0)
			if i+1 < len(s) && s[i+1] == 0xA0 {
				return false
			}
		case 0xEF: // first byte of U+FFFC (EF BF BC)
			if i+2 < len(s) && s[i+1] == 0xBF && s[i+2] == 0xBC {
				return false
			}
		}
		prevSpace = false
	}
	return true
}

// trimTrailingSpace removes spaces at the end of the text runs.
func trimTrailingSpace(out []run) []run {
	for len(out) > 0 {
		last := &out[len(out)-1]
		if last.br || last.eq != "" {
			return out
		}
		last.text = strings.TrimRight(last.text, " ")
		if last.text != "" {
			return out
		}
		out = out[:len(out)-1]
	}
	return out
}

// splitBreakouts splits runs at blocks that broke out of the text. It
// returns the text parts (len(blocks)+1 of them) and the blocks between.
func splitBreakouts(runs []run) (parts [][]run, between [][]blocks.Block) {
	if !hasBreakouts(runs) {
		return [][]run{runs}, nil
	}
	start := 0
	for i, r := range runs {
		if r.block != nil {
			parts = append(parts, runs[start:i])
			between = append(between, r.block)
			start = i + 1
		}
	}
	return append(parts, runs[start:]), between
}

func hasBreakouts(runs []run) bool {
	for i := range runs {
		if runs[i].block != nil {
			return true
		}
	}
	return false
}

// richText turns normalized runs into Notion rich text: annotations, named
// colours, links, sup/sub rewritten, adjacent items with the same
// formatting merged.
func (c *converter) richText(runs []run) []blocks.RichText {
	if len(runs) == 0 {
		return nil
	}
	near := func() string { return plainRuns(runs) }
	clear(c.blockColors)
	out := make([]blocks.RichText, 0, len(runs))
	for _, r := range runs {
		var rt blocks.RichText
		switch {
		case r.eq != "":
			rt = blocks.RichText{Equation: r.eq}
		case r.br:
			rt = c.styledText("\n", r.st, near)
		default:
			rt = c.styledText(r.text, r.st, near)
		}
		if n := len(out); n > 0 && rt.Equation == "" && out[n-1].Equation == "" && sameFormat(out[n-1], rt) {
			out[n-1].Text += rt.Text
			continue
		}
		out = append(out, rt)
	}
	return out
}

// sameFormat reports whether two text items can be merged.
func sameFormat(a, b blocks.RichText) bool {
	return a.Annotations == b.Annotations && a.Link == b.Link && a.PageRef == b.PageRef && a.Mention == b.Mention
}

// styledText makes one rich-text item of text in style st.
func (c *converter) styledText(text string, st textStyle, near func() string) blocks.RichText {
	rt := blocks.RichText{Annotations: blocks.Annotations{
		Bold: st.bold, Italic: st.italic, Underline: st.underline, Strikethrough: st.strike, Code: st.code,
	}}
	rt.Annotations.Color = c.runColor(st, near)
	switch {
	case st.sup && text != "\n":
		text = c.superscript(text, near)
	case st.sub && text != "\n":
		text = c.subscript(text, near)
	}
	rt.Text = text
	if st.href != "" {
		c.setLink(&rt, st.href, near)
	}
	return rt
}

// runColor maps a run's highlight or text colour onto a Notion colour. A
// run can have only one: the highlight wins.
func (c *converter) runColor(st textStyle, near func() string) string {
	if st.background != "" {
		name, ok := notionColor(st.background, true)
		c.colorLoss(st.background, name, ok, true, near)
		if name != "" {
			if st.color != "" {
				if fg, _ := notionColor(st.color, false); fg != "" {
					c.colorLossOnce(Degraded, "text colour "+quote(st.color)+" dropped on highlighted text", near)
				}
			}
			return name
		}
	}
	if st.color == "" {
		return ""
	}
	name, ok := notionColor(st.color, false)
	c.colorLoss(st.color, name, ok, false, near)
	return name
}

func (c *converter) colorLoss(css, name string, ok, background bool, near func() string) {
	what := "text colour "
	if background {
		what = "highlight "
	}
	switch {
	case !ok:
		c.colorLossOnce(Degraded, what+quote(css)+" not recognised; dropped", near)
	case name != "":
		c.colorLossOnce(Mapped, what+quote(css)+" shown as Notion "+quote(name), near)
	}
}

// colorLossOnce reports a colour loss once for the block richText is
// converting: a paragraph whose grey spans three runs (split by bold, say)
// is one grey paragraph.
func (c *converter) colorLossOnce(sev Severity, detail string, near func() string) {
	if _, ok := c.blockColors[detail]; ok {
		return
	}
	if c.blockColors == nil {
		c.blockColors = make(map[string]struct{})
	}
	c.blockColors[detail] = struct{}{}
	c.losses.addLazy(LossColor, sev, detail, near)
}

// plainRuns is the text of runs, for loss excerpts.
func plainRuns(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		switch {
		case r.br:
			b.WriteByte(' ')
		case r.eq != "":
			b.WriteString(r.eq)
		default:
			b.WriteString(r.text)
		}
		if b.Len() > 4*excerptLen {
			break
		}
	}
	return b.String()
}
