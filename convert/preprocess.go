package convert

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// selfClosingTags are the non-void elements Graph writes self-closing. An
// HTML5 parser ignores the "/" on them, which would nest the following
// content inside an object, or swallow the rest of the page as an iframe's
// raw text.
var selfClosingTags = []string{"object", "iframe"}

// preprocess makes page HTML safe to parse: invalid UTF-8 becomes U+FFFD
// and every self-closing <object …/> or <iframe …/> becomes an explicit
// <object …></object> pair.
func preprocess(src []byte) []byte {
	if !utf8.Valid(src) {
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	if !hasSelfClosingCandidate(src) {
		return src
	}
	return expandSelfClosing(src)
}

// hasSelfClosingCandidate reports whether src has a start tag named in
// selfClosingTags.
func hasSelfClosingCandidate(src []byte) bool {
	for i := 0; i < len(src); {
		lt := bytes.IndexByte(src[i:], '<')
		if lt < 0 {
			return false
		}
		i += lt + 1
		if tagNameAt(src, i) != "" {
			return true
		}
	}
	return false
}

// expandSelfClosing rewrites <name …/> to <name …></name> for the names in
// selfClosingTags. It scans start tags honouring quoted attribute values, so
// a ">" or "/>" inside a value does not end the tag.
func expandSelfClosing(src []byte) []byte {
	out := make([]byte, 0, len(src)+64)
	i := 0
	for i < len(src) {
		lt := bytes.IndexByte(src[i:], '<')
		if lt < 0 {
			break
		}
		lt += i
		name := tagNameAt(src, lt+1)
		if name == "" {
			out = append(out, src[i:lt+1]...)
			i = lt + 1
			continue
		}
		end, selfClosing := startTagEnd(src, lt+1+len(name))
		if end < 0 {
			break
		}
		if !selfClosing {
			out = append(out, src[i:end+1]...)
			i = end + 1
			continue
		}
		// end is the index of '>'; drop the '/' (and the spaces before it).
		slash := bytes.LastIndexByte(src[:end], '/')
		out = append(out, bytes.TrimRight(src[i:slash], " \t\n\r\f")...)
		out = append(out, "></"...)
		out = append(out, name...)
		out = append(out, '>')
		i = end + 1
	}
	return append(out, src[i:]...)
}

// tagNameAt returns the element name in selfClosingTags that starts at
// src[i] (case-insensitively) and is followed by a delimiter, or "".
func tagNameAt(src []byte, i int) string {
	for _, name := range selfClosingTags {
		j := i + len(name)
		if j > len(src) || !strings.EqualFold(string(src[i:j]), name) {
			continue
		}
		if j == len(src) {
			return ""
		}
		switch src[j] {
		case ' ', '\t', '\n', '\r', '\f', '/', '>':
			return string(src[i:j])
		}
	}
	return ""
}

// startTagEnd finds the '>' that ends the start tag whose attributes begin
// at src[i]. It reports whether the tag ends with "/>", and returns -1 if
// the tag never ends.
func startTagEnd(src []byte, i int) (end int, selfClosing bool) {
	var quote byte
	lastSignificant := byte(0)
	for ; i < len(src); i++ {
		ch := src[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			}
			lastSignificant = 'q'
		case ch == '"' || ch == '\'':
			quote = ch
		case ch == '>':
			return i, lastSignificant == '/'
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f':
		default:
			lastSignificant = ch
		}
	}
	return -1, false
}

// maxOpenElements is how deep flattenDeep lets elements nest. The HTML
// parser refuses documents with more than 512 open elements.
const maxOpenElements = 400

// flattenDeep rewrites src so that elements nest at most maxOpenElements
// deep: start and end tags below that depth are dropped and their text
// kept. It is the fallback for pages the parser refuses as too deep.
func flattenDeep(src []byte) []byte {
	z := html.NewTokenizer(bytes.NewReader(src))
	var out bytes.Buffer
	out.Grow(len(src))
	depth := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out.Bytes()
		case html.StartTagToken:
			name, _ := z.TagName()
			if voidElements[string(name)] {
				break
			}
			depth++
			if depth > maxOpenElements {
				continue
			}
		case html.EndTagToken:
			depth = max(depth-1, 0)
			if depth >= maxOpenElements {
				continue
			}
		}
		out.Write(z.Raw())
	}
}

// voidElements have no end tag and do not nest.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true,
	"hr": true, "img": true, "input": true, "link": true, "meta": true, "param": true, "source": true,
	"track": true, "wbr": true}

// textOnly returns the text of src as escaped HTML paragraphs, one per text
// token: the last fallback for markup the parser refuses.
func textOnly(src []byte) []byte {
	z := html.NewTokenizer(bytes.NewReader(src))
	var out bytes.Buffer
	for {
		switch z.Next() {
		case html.ErrorToken:
			return out.Bytes()
		case html.TextToken:
			out.WriteString("<p>")
			out.WriteString(html.EscapeString(string(z.Text())))
			out.WriteString("</p>")
		}
	}
}
