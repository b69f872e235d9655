package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestCode(t *testing.T) {
	c := func(s string) blocks.Block { return codeBlock(s) }
	const cp = `<p style="font-family:Consolas">`
	tests := []struct {
		name string
		html string
		want []blocks.Block
	}{
		{"consecutive code lines are one block", cp + "a</p>" + cp + "b</p>", []blocks.Block{c("a\nb")}},
		{"each br between code lines is an empty line", cp + "a</p><br /><br />" + cp + "b</p>", []blocks.Block{c("a\n\n\nb")}},
		{"a br after the last code line adds nothing", cp + "a</p><br /><p>x</p>", []blocks.Block{c("a"), para(plain("x"))}},
		{"whitespace is kept, NBSP is a space, trailing spaces go",
			cp + "  if x {&nbsp;&nbsp; </p>" + cp + "\tret&nbsp;&nbsp;y</p>", []blocks.Block{c("  if x {\n\tret  y")}},
		{"spans covering every non-blank character make a code line",
			`<p><span style="font-family:Consolas">a</span> <span style="font-family:Consolas">b</span></p>`, []blocks.Block{c("a b")}},
		{"an ordinary paragraph ends the run",
			cp + "a</p><p>text</p>" + cp + "b</p>", []blocks.Block{c("a"), para(plain("text")), c("b")}},
		{"code lines in different outlines are separate blocks", cp + "a</p></div>" +
			`<div style="position:absolute;left:48px;top:500px">` + cp + "b</p>", []blocks.Block{c("a"), c("b")}},
		{"br inside a code paragraph is a line break", cp + "a<br />b</p>", []blocks.Block{c("a\nb")}},
		{"pre is a code block", "<pre>x  = 1\n  y</pre>", []blocks.Block{c("x  = 1\n  y")}},
		{"Courier New is code too", `<p style="font-family:'Courier New'">a</p>`, []blocks.Block{c("a")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
		})
	}
}
