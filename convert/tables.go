package convert

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// table converts a table: one table_row per tr, one cell per td, every row
// as wide as the widest (OneNote output has no rowspan or colspan). Cell
// border and width are not recorded; a cell background is reported. Images
// and files in cells follow the table, in reading order, each captioned
// with its cell. OneNote output has no th, so there is no column header.
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
	out := []blocks.Block{table}
	for ri, r := range rows {
		cells := make([][]blocks.RichText, width)
		for ci, td := range r {
			var media []blocks.Block
			cells[ci], media = c.cell(td, base, depth+1)
			for _, m := range media {
				out = append(out, c.movedFromCell(m, ri+1, ci+1))
			}
		}
		out[0].Children = append(out[0].Children, blocks.Block{Type: blocks.TableRow, Cells: cells})
	}
	return out
}

// movedFromCell captions a media block taken out of the cell at row, col
// (1-based) with where it was, and reports the move.
func (c *converter) movedFromCell(b blocks.Block, row, col int) blocks.Block {
	what := mediaNoun(b.Type)
	where := fmt.Sprintf("row %d, column %d", row, col)
	_, rest := SplitTagMarker(b.Caption)
	note := what + " from " + where
	if t := blocks.PlainText(rest); t != "" {
		note = t + " (" + strings.ToLower(what[:1]) + what[1:] + " from " + where + ")"
	}
	marker := b.Caption[:len(b.Caption)-len(rest)]
	b.Caption = append(append([]blocks.RichText(nil), marker...), blocks.RichText{Text: note})
	c.losses.add(LossCellFlattened, Degraded, strings.ToLower(what)+" in a table cell moved after the table", where)
	return b
}

// mediaNoun names a media block's type for a reader.
func mediaNoun(t blocks.Type) string {
	switch t {
	case blocks.Image:
		return "Image"
	case blocks.PDF:
		return "PDF"
	case blocks.Video:
		return "Video"
	case blocks.Audio:
		return "Audio"
	case blocks.Embed:
		return "Embed"
	}
	return "File"
}

// isMedia reports whether a block of type t shows a file or an embed.
func isMedia(t blocks.Type) bool {
	switch t {
	case blocks.Image, blocks.File, blocks.PDF, blocks.Video, blocks.Audio, blocks.Embed:
		return true
	}
	return false
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
// table as its rows with cells joined by " | "; images and files give no
// line and are returned as media, for the table to place after itself.
// Every flattening is reported, and so is a cell background (Notion cells
// have none).
func (c *converter) cell(td *html.Node, base textStyle, depth int) (_ []blocks.RichText, media []blocks.Block) {
	style := attr(td, "style")
	st := base.applyCSS(style, false)
	for k, v := range cssDeclarations(style) {
		if k == "background-color" || k == "background" {
			if name, ok := notionColor(v, true); !ok || name != "" {
				c.losses.add(LossCellFlattened, Degraded, "table cell background "+quote(v)+" not kept", collapse(textContent(td)))
			}
		}
	}
	bs := c.flowOfChildren(childNodes(td), st, true, depth+1)
	var fl cellFlattener
	fl.blocks(bs)
	if fl.flattened != "" {
		c.losses.add(LossCellFlattened, Degraded, "table cell with "+fl.flattened+" flattened into text", blocks.PlainText(fl.out))
	}
	if fl.dropped != "" {
		c.losses.add(LossCellFlattened, Dropped, string(fl.dropped)+" in a table cell dropped", blocks.PlainText(fl.out))
	}
	return mergeRichText(fl.out), fl.media
}

// cellFlattener collects the lines of a flattened cell.
type cellFlattener struct {
	out []blocks.RichText
	// flattened and dropped name the first structure flattened and the
	// first block type dropped.
	flattened string
	dropped   blocks.Type
	// media are the image, file and embed blocks met, in order.
	media []blocks.Block
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
			if isMedia(b.Type) {
				fl.media = append(fl.media, b)
				continue
			}
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
