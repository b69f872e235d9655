package verify

import (
	"fmt"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// RunFunc rewrites a run before it is rendered, for links between pages:
// a run with Mention set renders as "@page(<Mention>)". Expected pages
// turn internal links to migrated pages into mentions of the target's
// OneNote page ID and other internal links into plain text; runs read
// from Notion turn mentions of rows into mentions of the rows' OneNote
// page IDs.
type RunFunc func(r blocks.RichText) blocks.RichText

// MediaFunc renders the source of a media block, e.g. "file
// sha256:<first 12 hex digits> <size>B" or an external URL.
type MediaFunc func(m *blocks.Media) string

// Lines renders a block tree depth first, one line per block:
// indentation by depth, the type, attributes in brackets (colour,
// checked, icon, language, table shape), then the text. Rich text is
// normalised so that a run Notion's 2,000-character rule split, or
// adjacent runs of the same formatting, render the same: formatting shows
// as {b,i,s,u,code,color=…} before the text it applies to, links as
// [text](url), inline equations as $…$. Table rows show their cells
// between bars, media blocks their source in <…>, captions after "caption:".
func Lines(bs []blocks.Block, run RunFunc, media MediaFunc) []string {
	var out []string
	var walk func(bs []blocks.Block, depth int)
	walk = func(bs []blocks.Block, depth int) {
		for _, b := range bs {
			out = append(out, line(b, depth, run, media))
			walk(b.Children, depth+1)
		}
	}
	walk(bs, 0)
	return out
}

func line(b blocks.Block, depth int, run RunFunc, media MediaFunc) string {
	var s strings.Builder
	s.WriteString(strings.Repeat("  ", depth))
	s.WriteString(string(b.Type))
	var attrs []string
	if c := normColor(b.Color); c != "" && b.Type != blocks.Code {
		attrs = append(attrs, "color="+c)
	}
	switch b.Type {
	case blocks.ToDo:
		if b.Checked {
			attrs = append(attrs, "x")
		} else {
			attrs = append(attrs, " ")
		}
	case blocks.Callout:
		if b.Icon != "" {
			attrs = append(attrs, "icon="+b.Icon)
		}
	case blocks.Code:
		lang := b.Language
		if lang == "" {
			lang = "plain text"
		}
		attrs = append(attrs, "lang="+lang)
	case blocks.Table:
		attrs = append(attrs, fmt.Sprintf("width=%d", b.TableWidth))
		if b.HasColumnHeader {
			attrs = append(attrs, "column-header")
		}
		if b.HasRowHeader {
			attrs = append(attrs, "row-header")
		}
	}
	if len(attrs) > 0 {
		s.WriteString("[" + strings.Join(attrs, ",") + "]")
	}
	s.WriteString(":")
	if len(b.RichText) > 0 {
		s.WriteString(" " + richText(b.RichText, run))
	}
	for _, cell := range b.Cells {
		s.WriteString(" | " + richText(cell, run))
	}
	if len(b.Cells) > 0 {
		s.WriteString(" |")
	}
	if b.Expression != "" {
		s.WriteString(" $" + b.Expression + "$")
	}
	if b.Media != nil {
		s.WriteString(" <" + media(b.Media) + ">")
	}
	if len(b.Caption) > 0 {
		s.WriteString(" caption: " + richText(b.Caption, run))
	}
	return s.String()
}

func normColor(c string) string {
	if c == "default" {
		return ""
	}
	return c
}

// piece is a normalised run.
type piece struct {
	annot, link, text string
	merge             bool // plain text that may join a neighbour
}

func richText(rt []blocks.RichText, run RunFunc) string {
	var ps []piece
	for _, r := range rt {
		r = run(r)
		p := piece{annot: annotations(r.Annotations)}
		switch {
		case r.Equation != "":
			p.text = "$" + r.Equation + "$"
		case r.Mention != "":
			p.text = "@page(" + r.Mention + ")"
		default:
			p.text, p.link, p.merge = r.Text, r.Link, true
		}
		if n := len(ps); n > 0 && p.merge && ps[n-1].merge && ps[n-1].annot == p.annot && ps[n-1].link == p.link {
			ps[n-1].text += p.text
			continue
		}
		ps = append(ps, p)
	}
	var s strings.Builder
	for _, p := range ps {
		s.WriteString(p.annot)
		if p.link != "" {
			s.WriteString("[" + p.text + "](" + p.link + ")")
		} else {
			s.WriteString(p.text)
		}
	}
	return s.String()
}

func annotations(a blocks.Annotations) string {
	var fs []string
	for _, f := range []struct {
		on   bool
		name string
	}{{a.Bold, "b"}, {a.Italic, "i"}, {a.Strikethrough, "s"}, {a.Underline, "u"}, {a.Code, "code"}} {
		if f.on {
			fs = append(fs, f.name)
		}
	}
	if c := normColor(a.Color); c != "" {
		fs = append(fs, "color="+c)
	}
	if len(fs) == 0 {
		return ""
	}
	return "{" + strings.Join(fs, ",") + "}"
}
