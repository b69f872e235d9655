package convert

import (
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// codeLanguage is the language of every code block: OneNote does not
// record one.
const codeLanguage = "plain text"

// isCodeLine reports whether runs are a code line: some non-blank text, all
// of it in a code font.
func isCodeLine(runs []run) bool {
	seen := false
	for _, r := range runs {
		switch {
		case r.block != nil || r.eq != "":
			return false
		case r.br:
		case strings.TrimFunc(r.text, isBlankInCode) == "":
		case !r.st.code:
			return false
		default:
			seen = true
		}
	}
	return seen
}

func isBlankInCode(r rune) bool {
	return isCollapsible(r) || r == objectReplacement
}

// codeFormatLosses reports the highlights and text colours of a code line:
// a Notion code block holds plain text.
func (c *converter) codeFormatLosses(runs []run, line string) {
	for _, r := range runs {
		if r.st.background != "" {
			if name, _ := notionColor(r.st.background, true); name != "" {
				c.losses.add(LossColor, Degraded, "highlight "+quote(r.st.background)+" dropped in a code block", line)
			}
		}
		if r.st.color != "" {
			if name, _ := notionColor(r.st.color, false); name != "" {
				c.losses.add(LossColor, Degraded, "text colour "+quote(r.st.color)+" dropped in a code block", line)
			}
		}
	}
}

// rawText joins runs keeping their whitespace; line breaks become "\n".
func rawText(runs []run) string {
	var b strings.Builder
	for _, r := range runs {
		if r.br {
			b.WriteByte('\n')
			continue
		}
		b.WriteString(r.text)
	}
	return b.String()
}

// codeText is codeText(raw) with each U+FFFC it deletes reported as
// normalize reports them in text: once for a line with nothing else, else
// each as left out.
func (c *converter) codeText(raw string) string {
	line := codeText(raw)
	if n := strings.Count(raw, string(objectReplacement)); n > 0 {
		if line == "" {
			c.losses.add(LossUnsupported, Dropped, objectLeftOut, "")
		} else {
			c.objectsLeftOut(n, func() string { return line })
		}
	}
	return line
}

// codeText applies the rules for text inside code: whitespace is kept,
// NBSP becomes a space, U+FFFC is deleted, CR LF becomes LF, trailing
// spaces on each line go, and so do blank lines at the start and end.
func codeText(s string) string {
	s = removeObjectReplacement(s)
	s = strings.ReplaceAll(s, "\u00a0", " ")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\f")
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// addCodeLine adds a code line to the run being built; the <br />s since
// the previous line become empty lines.
func (f *flow) addCodeLine(line string) {
	if f.codeOpen {
		for range f.blanks {
			f.code = append(f.code, "")
		}
	}
	f.code = append(f.code, line)
	f.codeOpen, f.blanks = true, 0
}

// flushCode ends the code run, if any, as one code block.
func (f *flow) flushCode() {
	if !f.codeOpen {
		return
	}
	f.out = append(f.out, codeBlock(strings.Join(f.code, "\n")))
	f.code, f.codeOpen, f.blanks = nil, false, 0
}

// codeBlock is a code block holding text.
func codeBlock(text string) blocks.Block {
	return blocks.Block{Type: blocks.Code, Language: codeLanguage, RichText: []blocks.RichText{{Text: text}}}
}
