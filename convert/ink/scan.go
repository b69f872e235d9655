package ink

import "bytes"

// tokenKind is the kind of a scanned token.
type tokenKind int

const (
	tokEOF tokenKind = iota
	tokStart
	tokEnd
	tokText
)

// token is one scanned piece of XML. For start and end tags, name is the
// local name (the prefix removed); a self-closing tag yields a start token
// with selfClosing set and no end token. attrs are raw name="value" pairs
// of a start tag, names local too.
type token struct {
	kind        tokenKind
	name        []byte
	attrs       []attr
	selfClosing bool
	text        []byte
}

type attr struct{ name, value []byte }

// scanner yields tokens from a document. It never fails: markup it cannot
// read ends the document.
type scanner struct {
	s     []byte
	i     int
	attrs []attr // reused between start tags
}

// next returns the next token. Comments, processing instructions, CDATA
// markers and doctypes are skipped.
func (sc *scanner) next() token {
	for sc.i < len(sc.s) {
		if sc.s[sc.i] != '<' {
			j := bytes.IndexByte(sc.s[sc.i:], '<')
			if j < 0 {
				j = len(sc.s) - sc.i
			}
			t := token{kind: tokText, text: sc.s[sc.i : sc.i+j]}
			sc.i += j
			return t
		}
		rest := sc.s[sc.i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			sc.skipPast("-->")
			continue
		case bytes.HasPrefix(rest, []byte("<?")):
			sc.skipPast("?>")
			continue
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			start := sc.i + 9
			end := bytes.Index(sc.s[start:], []byte("]]>"))
			if end < 0 {
				sc.i = len(sc.s)
				return token{kind: tokText, text: sc.s[start:]}
			}
			sc.i = start + end + 3
			return token{kind: tokText, text: sc.s[start : start+end]}
		case bytes.HasPrefix(rest, []byte("<!")):
			sc.skipPast(">")
			continue
		case bytes.HasPrefix(rest, []byte("</")):
			sc.i += 2
			name := sc.name()
			sc.skipPast(">")
			return token{kind: tokEnd, name: local(name)}
		}
		sc.i++
		name := sc.name()
		if len(name) == 0 {
			sc.skipPast(">")
			continue
		}
		t := token{kind: tokStart, name: local(name)}
		sc.attrs = sc.attrs[:0]
		for sc.i < len(sc.s) {
			sc.space()
			if sc.i >= len(sc.s) {
				break
			}
			if c := sc.s[sc.i]; c == '>' {
				sc.i++
				break
			} else if c == '/' {
				t.selfClosing = true
				sc.i++
				continue
			}
			an := sc.name()
			if len(an) == 0 {
				sc.i++
				continue
			}
			sc.space()
			var val []byte
			if sc.i < len(sc.s) && sc.s[sc.i] == '=' {
				sc.i++
				sc.space()
				if sc.i < len(sc.s) && (sc.s[sc.i] == '"' || sc.s[sc.i] == '\'') {
					q := sc.s[sc.i]
					end := bytes.IndexByte(sc.s[sc.i+1:], q)
					if end < 0 {
						sc.i = len(sc.s)
						break
					}
					val = sc.s[sc.i+1 : sc.i+1+end]
					sc.i += end + 2
				}
			}
			sc.attrs = append(sc.attrs, attr{local(an), val})
		}
		t.attrs = sc.attrs
		return t
	}
	return token{kind: tokEOF}
}

// skipPast moves past the next occurrence of end, or to the end.
func (sc *scanner) skipPast(end string) {
	j := bytes.Index(sc.s[sc.i:], []byte(end))
	if j < 0 {
		sc.i = len(sc.s)
		return
	}
	sc.i += j + len(end)
}

// name reads an XML name (letters, digits, "-", "_", ".", ":").
func (sc *scanner) name() []byte {
	start := sc.i
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if c == '>' || c == '/' || c == '=' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '<' || c == '"' || c == '\'' {
			break
		}
		sc.i++
	}
	return sc.s[start:sc.i]
}

func (sc *scanner) space() {
	for sc.i < len(sc.s) {
		switch sc.s[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
			continue
		}
		return
	}
}

// local drops a namespace prefix.
func local(name []byte) []byte {
	if i := bytes.LastIndexByte(name, ':'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// attrValue returns the value of the attribute with local name key.
func (t token) attrValue(key string) string {
	for _, a := range t.attrs {
		if string(a.name) == key {
			return string(a.value)
		}
	}
	return ""
}
