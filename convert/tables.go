package convert

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// table converts a table: one table_row per tr, one cell per td, every row
// as wide as the widest (OneNote output has no rowspan or colspan). Cell
// background, border and width are not recorded. OneNote output has no th,
// so there is no column header.
func (c *converter) table(t *html.Node, base textStyle, depth int) []blocks.Block {
	var rows [][]*html.Node
	for _, tr := range tableRows(t) {
		var cells []*html.Node
		for n := tr.FirstChild; n != nil; n = n.NextSibling {
			if n.Type == html.ElementNode && n.Namespace == "" && (n.DataAtom == atom.Td || n.DataAtom == atom.Th) {
				cells = append(cells, n)
			}
		}
		rows = append(rows, cells)
	}
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	if width == 0 {
		if t := collapse(textContent(t)); t != "" {
			c.losses.add(LossUnsupported, Degraded, "table without cells kept as text", t)
			return []blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: t}}}}
		}
		return nil
	}
	table := blocks.Block{Type: blocks.Table, TableWidth: width, Children: make([]blocks.Block, 0, len(rows))}
	for _, r := range rows {
		cells := make([][]blocks.RichText, width)
		for i, td := range r {
			cells[i] = c.cell(td, base, depth+1)
		}
		table.Children = append(table.Children, blocks.Block{Type: blocks.TableRow, Cells: cells})
	}
	return []blocks.Block{table}
}

// tableRows returns a table's tr elements, directly or in tbody, thead and
// tfoot, in document order.
func tableRows(t *html.Node) []*html.Node {
	var rows []*html.Node
	for n := t.FirstChild; n != nil; n = n.NextSibling {
		if n.Type != html.ElementNode || n.Namespace != "" {
			continue
		}
		switch n.DataAtom {
		case atom.Tr:
			rows = append(rows, n)
		case atom.Tbody, atom.Thead, atom.Tfoot:
			for m := n.FirstChild; m != nil; m = m.NextSibling {
				if m.Type == html.ElementNode && m.Namespace == "" && m.DataAtom == atom.Tr {
					rows = append(rows, m)
				}
			}
		}
	}
	return rows
}

// cell converts a td into the rich text a Notion cell holds. Paragraphs
// are joined with "\n". Structure (lists, to-dos, callouts, nested tables)
// is flattened to one line per block, children after their parent, a nested
// table as its rows with cells joined by " | "; images give no line. Every
// flattening is reported.
func (c *converter) cell(td *html.Node, base textStyle, depth int) []blocks.RichText {
	st := base.applyCSS(attr(td, "style"), false)
	bs := c.flowOfChildren(childNodes(td), st, true, depth+1)
	var fl cellFlattener
	fl.blocks(bs)
	if fl.flattened != "" {
		c.losses.add(LossCellFlattened, Degraded, "table cell with "+fl.flattened+" flattened into text", blocks.PlainText(fl.out))
	}
	if fl.dropped != "" {
		c.losses.add(LossCellFlattened, Dropped, string(fl.dropped)+" in a table cell dropped", blocks.PlainText(fl.out))
	}
	return mergeRichText(fl.out)
}

// cellFlattener collects the lines of a flattened cell.
type cellFlattener struct {
	out []blocks.RichText
	// flattened and dropped name the first structure flattened and the
	// first block type dropped.
	flattened string
	dropped   blocks.Type
}

func (fl *cellFlattener) line(rt []blocks.RichText) {
	if len(fl.out) > 0 {
		fl.out = append(fl.out, blocks.RichText{Text: "\n"})
	}
	fl.out = append(fl.out, rt...)
}

func (fl *cellFlattener) blocks(bs []blocks.Block) {
	for _, b := range bs {
		switch b.Type {
		case blocks.Paragraph, blocks.Heading1, blocks.Heading2, blocks.Heading3, blocks.Quote, blocks.Code:
			_, rt := SplitTagMarker(b.RichText)
			if len(rt) != len(b.RichText) && fl.flattened == "" {
				fl.flattened = "a note tag"
			}
			fl.line(rt)
		case blocks.BulletedListItem, blocks.NumberedListItem, blocks.ToDo, blocks.Callout, blocks.Toggle:
			if fl.flattened == "" {
				fl.flattened = "a " + strings.ReplaceAll(string(b.Type), "_", " ")
			}
			_, rt := SplitTagMarker(b.RichText)
			fl.line(rt)
		case blocks.Equation:
			fl.line([]blocks.RichText{{Equation: b.Expression}})
		case blocks.Table:
			if fl.flattened == "" {
				fl.flattened = "a nested table"
			}
			for _, row := range b.Children {
				var rt []blocks.RichText
				for i, cell := range row.Cells {
					if i > 0 {
						rt = append(rt, blocks.RichText{Text: " | "})
					}
					rt = append(rt, cell...)
				}
				fl.line(rt)
			}
			continue
		case blocks.Divider:
		default:
			if fl.dropped == "" {
				fl.dropped = b.Type
			}
		}
		fl.blocks(b.Children)
	}
}

// mergeRichText merges adjacent items with the same formatting.
func mergeRichText(rt []blocks.RichText) []blocks.RichText {
	var out []blocks.RichText
	for _, r := range rt {
		if r.Text == "" && r.Equation == "" && r.Mention == "" {
			continue
		}
		if n := len(out); n > 0 && r.Equation == "" && out[n-1].Equation == "" && sameFormat(out[n-1], r) {
			out[n-1].Text += r.Text
			continue
		}
		out = append(out, r)
	}
	return out
}
