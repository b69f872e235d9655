package convert

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

// convertBody converts a page whose body is body, inside one default
// outline unless body starts its own outlines.
func convertBody(t *testing.T, body string, opts Options) *Result {
	t.Helper()
	src := `<html><head><title>T</title><meta name="created" content="2024-01-01T00:00:00.0000000" /></head>` +
		`<body data-absolute-enabled="true" style="font-family:Calibri;font-size:11pt">` + body + `</body></html>`
	res, err := Page([]byte(src), opts)
	if err != nil {
		t.Fatalf("Page: %v", err)
	}
	if err := Validate(res.Blocks); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	return res
}

// outlineDiv wraps content in a positioned outline div.
func outlineDiv(content string) string {
	return `<div style="position:absolute;left:48px;top:120px;width:624px">` + content + `</div>`
}

// assertBlocks fails with both trees as JSON when got differs from want.
func assertBlocks(t *testing.T, got, want []blocks.Block) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	t.Errorf("blocks differ\n got: %s\nwant: %s", dumpBlocks(got), dumpBlocks(want))
}

// dumpBlocks writes a block tree one block a line, every field that is
// set, children indented.
func dumpBlocks(bs []blocks.Block) string {
	var b strings.Builder
	var walk func(bs []blocks.Block, indent string)
	walk = func(bs []blocks.Block, indent string) {
		if bs != nil && len(bs) == 0 {
			fmt.Fprintf(&b, "%s(empty non-nil children)\n", indent)
		}
		for _, x := range bs {
			fmt.Fprintf(&b, "\n%s%s", indent, x.Type)
			if x.Checked {
				b.WriteString(" checked")
			}
			for _, f := range []struct{ k, v string }{{"icon", x.Icon}, {"lang", x.Language}, {"expr", x.Expression}, {"color", x.Color}} {
				if f.v != "" {
					fmt.Fprintf(&b, " %s=%q", f.k, f.v)
				}
			}
			if x.TableWidth != 0 {
				fmt.Fprintf(&b, " width=%d", x.TableWidth)
			}
			if x.Media != nil {
				m := *x.Media
				fmt.Fprintf(&b, " media{url=%q name=%q", m.URL, m.Name)
				if m.Resource != nil {
					fmt.Fprintf(&b, " res=%+v", *m.Resource)
				}
				b.WriteString("}")
			}
			b.WriteString(richDump(x.RichText))
			if x.Caption != nil {
				b.WriteString(" caption" + richDump(x.Caption))
			}
			for _, c := range x.Cells {
				b.WriteString(" cell" + richDump(c))
			}
			walk(x.Children, indent+"  ")
		}
	}
	walk(bs, "")
	return b.String()
}

func richDump(rt []blocks.RichText) string {
	var b strings.Builder
	if rt != nil && len(rt) == 0 {
		b.WriteString(" [](non-nil)")
	}
	for _, r := range rt {
		fmt.Fprintf(&b, " [%q", r.Text)
		if r.Annotations != (blocks.Annotations{}) {
			fmt.Fprintf(&b, " %+v", r.Annotations)
		}
		for _, f := range []struct{ k, v string }{{"link", r.Link}, {"page", r.PageRef}, {"eq", r.Equation}, {"mention", r.Mention}} {
			if f.v != "" {
				fmt.Fprintf(&b, " %s=%q", f.k, f.v)
			}
		}
		b.WriteString("]")
	}
	return b.String()
}

// Rich-text and block constructors that keep the expectations short.

func plain(s string) blocks.RichText { return blocks.RichText{Text: s} }

func styled(s string, a blocks.Annotations) blocks.RichText {
	return blocks.RichText{Text: s, Annotations: a}
}

func linked(s, href string) blocks.RichText { return blocks.RichText{Text: s, Link: href} }

func para(rt ...blocks.RichText) blocks.Block {
	return blocks.Block{Type: blocks.Paragraph, RichText: rt}
}

func textBlock(typ blocks.Type, rt ...blocks.RichText) blocks.Block {
	return blocks.Block{Type: typ, RichText: rt}
}

func withChildren(b blocks.Block, children ...blocks.Block) blocks.Block {
	b.Children = children
	return b
}

func hasLoss(losses []Loss, kind LossKind) bool {
	for _, l := range losses {
		if l.Kind == kind {
			return true
		}
	}
	return false
}

var (
	bold   = blocks.Annotations{Bold: true}
	italic = blocks.Annotations{Italic: true}
	code   = blocks.Annotations{Code: true}
)
