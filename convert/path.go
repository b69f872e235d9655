package convert

import (
	"strconv"
	"strings"
)

// step is one step of a path into a block tree: a field name, or an index
// when name is "".
type step struct {
	name  string
	index int
}

// pathStack is the path to the value a tree walk is at, kept as a stack so
// that walking does not allocate; it is rendered only when needed.
type pathStack []step

func (p *pathStack) field(name string) { *p = append(*p, step{name: name}) }

func (p *pathStack) index(i int) { *p = append(*p, step{index: i}) }

func (p *pathStack) pop(n int) { *p = (*p)[:len(*p)-n] }

// String renders the path, e.g. "blocks[3].children[0].rich_text[1]".
func (p pathStack) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.name == "":
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.index))
			b.WriteByte(']')
		case i == 0:
			b.WriteString(s.name)
		default:
			b.WriteByte('.')
			b.WriteString(s.name)
		}
	}
	return b.String()
}
