package ink

import (
	"cmp"
	"slices"
)

// Gap is how far apart, in CSS pixels, two strokes may be and still
// belong to one cluster: X across, Y down. Both are measured between the
// strokes' bounds, pen width included.
type Gap struct{ X, Y float64 }

// DefaultGapX and DefaultGapY are the gap the converter clusters with.
// They keep a handwritten line together (words on a line are rarely more
// than a few characters apart) and separate marks on neighbouring text
// lines: OneNote's default text line is about 20 px high, and a
// highlighter band over one line ends more than 10 px above an underline
// of the next. They are our choice, checked only on our own fixtures.
const (
	DefaultGapX = 48
	DefaultGapY = 10
)

// Clusters splits g into spatial clusters: two strokes are in one cluster
// when their bounds are within gap of each other, directly or through
// other strokes. Each cluster keeps its strokes in drawing order;
// clusters are ordered by their first stroke. A group of one cluster is
// returned as it is.
func (g Group) Clusters(gap Gap) []Group {
	n := len(g.Strokes)
	if n < 2 {
		return []Group{g}
	}
	rects := make([]Rect, n)
	order := make([]int, n)
	for i, s := range g.Strokes {
		rects[i] = Group{Strokes: []Stroke{s}}.Bounds()
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(rects[a].Min.Y, rects[b].Min.Y) })
	parent := make([]int, n)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	// Sweep down the page: a stroke can only be near the strokes that
	// start above its bottom plus the vertical gap.
	for k, i := range order {
		a := rects[i]
		for _, j := range order[k+1:] {
			b := rects[j]
			if b.Min.Y-a.Max.Y > gap.Y {
				break
			}
			if near(a, b, gap) {
				if ri, rj := find(i), find(j); ri != rj {
					parent[max(ri, rj)] = min(ri, rj)
				}
			}
		}
	}
	index := map[int]int{} // root stroke -> cluster
	var out []Group
	for i, s := range g.Strokes {
		r := find(i)
		c, ok := index[r]
		if !ok {
			c = len(out)
			index[r] = c
			out = append(out, Group{})
		}
		out[c].Strokes = append(out[c].Strokes, s)
	}
	return out
}

// near reports whether a and b are within gap of each other on both axes.
func near(a, b Rect, gap Gap) bool {
	dx := max(0, b.Min.X-a.Max.X, a.Min.X-b.Max.X)
	dy := max(0, b.Min.Y-a.Max.Y, a.Min.Y-b.Max.Y)
	return dx <= gap.X && dy <= gap.Y
}
