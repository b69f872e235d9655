package verify

import (
	"context"
	"strings"

	notionemu "github.com/notebridge/notebridge/emulator/notion"
)

// Check builds the expectation of src and compares ws with it.
func Check(ctx context.Context, src Source, ws notionemu.Workspace, parentPageID string) (*Report, error) {
	exp, err := Expect(ctx, src)
	if err != nil {
		return nil, err
	}
	return Compare(exp, ws, parentPageID), nil
}

// lineDiff is the outcome of diffLines.
type lineDiff struct {
	missing, extra int
	text           string
}

// diffContext is how many equal lines a diff shows around a change.
const diffContext = 2

// diffLines diffs want against got by a longest common subsequence: lines
// only in want are missing ("-"), lines only in got extra ("+"). Pages
// hold tens to a few hundred blocks, so the quadratic table is small.
func diffLines(want, got []string) lineDiff {
	n, m := len(want), len(got)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if want[i] == got[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && want[i] == got[j]:
			ops = append(ops, op{' ', want[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', want[i]})
			i++
		default:
			ops = append(ops, op{'+', got[j]})
			j++
		}
	}
	var d lineDiff
	show := make([]bool, len(ops))
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		if o.kind == '-' {
			d.missing++
		} else {
			d.extra++
		}
		for c := max(0, k-diffContext); c <= min(len(ops)-1, k+diffContext); c++ {
			show[c] = true
		}
	}
	var b strings.Builder
	gap := false
	for k, o := range ops {
		if !show[k] {
			gap = true
			continue
		}
		if gap && b.Len() > 0 {
			b.WriteString("    …\n")
		}
		gap = false
		b.WriteString("  ")
		b.WriteByte(o.kind)
		b.WriteByte(' ')
		b.WriteString(o.line)
		b.WriteByte('\n')
	}
	d.text = b.String()
	return d
}
