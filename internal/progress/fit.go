package progress

import (
	"io"
	"os"
	"strings"

	"golang.org/x/term"
	"golang.org/x/text/width"
)

// Width is the width in columns of the terminal w writes to, or 0 when w
// is not a terminal (or its size is unknown).
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	cols, _, err := term.GetSize(int(f.Fd()))
	if err != nil || cols <= 0 {
		return 0
	}
	return cols
}

// partSep separates the parts of a Line.
const partSep = " · "

// Fit shortens line to fewer than cols columns, so that a line redrawn
// with "\r" never wraps (the last column is left free: a terminal that
// wraps on writing it would push the line down). It keeps the leading
// parts of the line that fit whole (Line puts the most telling first)
// and the last one (the phase) when it fits too, with "…" for the parts
// left out; else it cuts the first part and ends it with "…". cols <= 0
// leaves the line as it is.
func Fit(line string, cols int) string {
	limit := cols - 1
	if cols <= 0 || Columns(line) <= limit {
		return line
	}
	parts := strings.Split(line, partSep)
	last := parts[len(parts)-1]
	for _, tail := range []string{partSep + "…" + partSep + last, partSep + "…"} {
		kept, n := 0, Columns(tail)
		for ; kept < len(parts)-1; kept++ {
			w := Columns(parts[kept])
			if kept > 0 {
				w += Columns(partSep)
			}
			if n+w > limit {
				break
			}
			n += w
		}
		if kept > 0 {
			return strings.Join(parts[:kept], partSep) + tail
		}
	}
	if limit < 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range line {
		w := runeColumns(r)
		if n+w > limit-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return b.String() + "…"
}

// Columns is how many terminal columns s takes: two for wide East Asian
// characters, one for the others.
func Columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}
