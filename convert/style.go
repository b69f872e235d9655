package convert

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textStyle is the formatting in effect for a run of source text.
type textStyle struct {
	bold, italic, underline, strike, code bool
	sup, sub                              bool
	// color and background are CSS values as written.
	color, background string
	// href is the link target, entity-decoded.
	href string
}

// cssDeclarations yields a style attribute's declarations in order, with
// lower-case property names and trimmed values.
func cssDeclarations(style string) func(yield func(prop, value string) bool) {
	return func(yield func(prop, value string) bool) {
		for style != "" {
			var decl string
			decl, style, _ = strings.Cut(style, ";")
			k, v, ok := strings.Cut(decl, ":")
			if !ok {
				continue
			}
			k = strings.TrimSpace(k)
			if k == "" {
				continue
			}
			if !yield(asciiLower(k), strings.TrimSpace(v)) {
				return
			}
		}
	}
}

// asciiLower lower-cases ASCII letters, without allocating when s is
// already lower case.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// codeFonts are the font families (lower case) whose text is code. OneNote
// writes Consolas; the others are common monospace fonts in pasted text.
var codeFonts = map[string]bool{
	"consolas": true, "courier new": true, "courier": true, "lucida console": true,
	"monospace": true, "menlo": true, "monaco": true, "cascadia code": true,
	"cascadia mono": true, "source code pro": true,
}

// isCodeFont reports whether a CSS font-family value names a code font
// first.
func isCodeFont(family string) bool {
	first, _, _ := strings.Cut(family, ",")
	first = strings.Trim(strings.ToLower(strings.TrimSpace(first)), `"'`)
	return codeFonts[first]
}

// applyCSS returns st with the declarations of a style attribute applied
// in order. Presentation-only properties (sizes, margins, alignment) are
// ignored, and so is the background unless withBackground is set.
func (st textStyle) applyCSS(style string, withBackground bool) textStyle {
	if style == "" {
		return st
	}
	for k, v := range cssDeclarations(style) {
		switch k {
		case "font-weight":
			st.bold = isBoldWeight(asciiLower(v))
		case "font-style":
			lv := asciiLower(v)
			st.italic = strings.HasPrefix(lv, "italic") || strings.HasPrefix(lv, "oblique")
		case "text-decoration", "text-decoration-line":
			lv := asciiLower(v)
			st.underline = strings.Contains(lv, "underline")
			st.strike = strings.Contains(lv, "line-through")
		case "font-family":
			st.code = isCodeFont(v)
		case "color":
			st.color = v
		case "background-color", "background":
			if withBackground {
				st.background = v
			}
		case "vertical-align":
			switch asciiLower(v) {
			case "super":
				st.sup, st.sub = true, false
			case "sub":
				st.sup, st.sub = false, true
			}
		}
	}
	return st
}

func isBoldWeight(v string) bool {
	switch v {
	case "bold", "bolder":
		return true
	}
	n, err := strconv.Atoi(v)
	return err == nil && n >= 600
}

// inlineStyle returns the style in effect inside the inline element n,
// given the style st around it.
func inlineStyle(n *html.Node, st textStyle) textStyle {
	switch n.DataAtom {
	case atom.B, atom.Strong:
		st.bold = true
	case atom.I, atom.Em:
		st.italic = true
	case atom.U, atom.Ins:
		st.underline = true
	case atom.S, atom.Strike, atom.Del:
		st.strike = true
	case atom.Sup:
		st.sup, st.sub = true, false
	case atom.Sub:
		st.sup, st.sub = false, true
	case atom.Code, atom.Kbd, atom.Samp, atom.Tt:
		st.code = true
	case atom.Mark:
		st.background = "yellow"
	case atom.Font:
		if c := attr(n, "color"); c != "" {
			st.color = c
		}
		if f := attr(n, "face"); f != "" {
			st.code = isCodeFont(f)
		}
	case atom.A:
		if h := strings.TrimSpace(attr(n, "href")); h != "" {
			st.href = h
		}
	}
	if s := attr(n, "style"); s != "" {
		st = st.applyCSS(s, true)
	}
	return st
}

// builtinStyle is one of OneNote's built-in paragraph styles that has a
// Notion block of its own.
type builtinStyle int

const (
	styleNone builtinStyle = iota
	// styleQuote is OneNote's "Quote": grey (#595959) italic text. It
	// becomes a quote block.
	styleQuote
	// styleTitle is OneNote's "Title" paragraph style: Calibri Light 20pt.
	// It becomes a heading_1.
	styleTitle
)

// builtinStyleOf recognises a built-in paragraph style from the style
// attribute of a p, as Graph's output HTML writes it (styles are pushed
// down onto the element; there is no style name).
func builtinStyleOf(style string) builtinStyle {
	if style == "" {
		return styleNone
	}
	var italic, grey, light, size20 bool
	for k, v := range cssDeclarations(style) {
		lv := asciiLower(v)
		switch k {
		case "font-style":
			italic = strings.HasPrefix(lv, "italic")
		case "color":
			grey = isStyleGrey(lv)
		case "font-family":
			first, _, _ := strings.Cut(lv, ",")
			light = strings.Trim(strings.TrimSpace(first), `"'`) == "calibri light"
		case "font-size":
			size20 = lv == "20pt" || lv == "20.0pt"
		}
	}
	switch {
	case italic && grey:
		return styleQuote
	case light && size20:
		return styleTitle
	}
	return styleNone
}

// isStyleGrey reports whether the lower-case CSS colour lv is the grey
// (#595959) of OneNote's Quote and Citation styles.
func isStyleGrey(lv string) bool {
	return lv == "#595959" || strings.ReplaceAll(lv, " ", "") == "rgb(89,89,89)"
}
