package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func table(width int, rows ...[][]blocks.RichText) blocks.Block {
	t := blocks.Block{Type: blocks.Table, TableWidth: width}
	for _, r := range rows {
		t.Children = append(t.Children, blocks.Block{Type: blocks.TableRow, Cells: r})
	}
	return t
}

func cells(cs ...[]blocks.RichText) [][]blocks.RichText { return cs }

func rt(items ...blocks.RichText) []blocks.RichText { return items }

func TestTables(t *testing.T) {
	tests := []struct {
		name string
		html string
		want []blocks.Block
		loss LossKind
	}{
		{"cells and rows; empty cell",
			`<table><tr><td><span style="font-weight:bold">A</span></td><td></td></tr><tr><td>1</td><td>2</td></tr></table>`,
			[]blocks.Block{table(2, cells(rt(styled("A", bold)), nil), cells(rt(plain("1")), rt(plain("2"))))}, ""},
		{"a cell background is reported",
			`<table><tr><td style="background-color:#d9e2f3">A</td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(plain("A"))))}, LossCellFlattened},
		{"a white cell background is no fill",
			`<table><tr><td style="background-color:#ffffff">A</td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(plain("A"))))}, ""},
		{"short rows are padded to the table width",
			`<table><tr><td>a</td><td>b</td><td>c</td></tr><tr><td>d</td></tr></table>`,
			[]blocks.Block{table(3, cells(rt(plain("a")), rt(plain("b")), rt(plain("c"))), cells(rt(plain("d")), nil, nil))}, ""},
		{"paragraphs in a cell are joined by newlines",
			`<table><tr><td><p>one</p><p>two</p></td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(plain("one\ntwo"))))}, ""},
		{"Consolas paragraph in a cell is a code mark",
			`<table><tr><td><p style="font-family:Consolas">x = 1</p></td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(styled("x = 1", code))))}, ""},
		{"a list in a cell is flattened, one line per item",
			`<table><tr><td><ul><li>a<ul><li>b</li></ul></li></ul><p data-tag="to-do">c</p></td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(plain("a\nb\nc"))))}, LossCellFlattened},
		{"a nested table is flattened to its rows",
			`<table><tr><td><table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table></td></tr></table>`,
			[]blocks.Block{table(1, cells(rt(plain("a | b\nc | d"))))}, LossCellFlattened},
		{"an image in a cell follows the table, captioned with its cell, and is reported",
			`<table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>x<img src="https://graph.microsoft.com/v1.0/me/onenote/resources/r/$value" /></td></tr></table>`,
			[]blocks.Block{table(2, cells(rt(plain("a")), rt(plain("b"))), cells(rt(plain("c")), rt(plain("x")))),
				{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{ID: "r", URL: "https://graph.microsoft.com/v1.0/me/onenote/resources/r/$value", Name: "r"}},
					Caption: rt(plain("Image from row 2, column 2"))}}, LossCellFlattened},
		{"a table without cells makes no block", `<table></table>`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
			if tt.loss != "" && !hasLoss(res.Losses, tt.loss) {
				t.Errorf("no %s loss in %+v", tt.loss, res.Losses)
			}
			if tt.loss == "" && len(res.Losses) > 0 {
				t.Errorf("unexpected losses %+v", res.Losses)
			}
			checkResources(t, res)
		})
	}
}
