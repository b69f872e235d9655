package convert

import (
	"strings"
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestMathMLToLaTeX(t *testing.T) {
	tests := []struct {
		name, mathml, want string
	}{
		{"identifiers, numbers, operators", `<mi>x</mi><mo>+</mo><mn>12</mn><mo>=</mo><mi>y</mi>`, `x+12=y`},
		{"NBSP operators padding an operator are dropped", `<mi>a</mi><mo>&#160;</mo><mo>=</mo><mo>&#160;</mo><mi>b</mi>`, `a=b`},
		{"NBSP operators at either end are dropped", `<mo>&#160;</mo><mi>a</mi><mo>&#160;</mo>`, `a`},
		{"a space typed between operands is kept", `<mi>a</mi><mo>&#160;</mo><mi>b</mi>`, `a\ b`},
		{"a space typed inside an identifier is kept", `<mi>total cost</mi><mo>=</mo><mi>unit&#160;price</mi>`, `\mathrm{total\ cost}=\mathrm{unit\ price}`},
		{"a space typed inside a number is kept", `<mn>1 000</mn>`, `1\ 000`},
		{"spaces inside mtext are kept", `<mi>x</mi><mo>=</mo><mtext>&#160;Mac&#160;price</mtext>`, `x=\text{ Mac price}`},
		{"a multi-word equation does not run together", `<mi>total</mi><mo>&#160;</mo><mi>cost</mi>`, `\mathrm{total}\ \mathrm{cost}`},
		{"invisible operators are dropped", `<mi>f</mi><mo>&#x2061;</mo><mo>(</mo><mi>x</mi><mo>)</mo>`, `f(x)`},
		{"msup groups a compound base", `<msup><mrow><mo>(</mo><mi>a</mi><mo>)</mo></mrow><mn>2</mn></msup>`, `{(a)}^{2}`},
		{"msub", `<msub><mi>x</mi><mi>i</mi></msub>`, `x_{i}`},
		{"msubsup", `<msubsup><mi>x</mi><mn>0</mn><mn>2</mn></msubsup>`, `x_{0}^{2}`},
		{"mfrac", `<mfrac><mi>a</mi><mrow><mi>b</mi><mo>+</mo><mn>1</mn></mrow></mfrac>`, `\frac{a}{b+1}`},
		{"binomial", `<mfrac linethickness="0"><mi>n</mi><mi>k</mi></mfrac>`, `\binom{n}{k}`},
		{"msqrt", `<msqrt><mi>x</mi><mo>+</mo><mn>1</mn></msqrt>`, `\sqrt{x+1}`},
		{"mroot", `<mroot><mi>x</mi><mn>3</mn></mroot>`, `\sqrt[3]{x}`},
		{"mfenced defaults", `<mfenced><mi>a</mi><mi>b</mi></mfenced>`, `(a,b)`},
		{"mfenced brackets", `<mfenced open="[" close="]" separators=";"><mi>a</mi><mi>b</mi></mfenced>`, `[a;b]`},
		{"mfenced braces", `<mfenced open="{" close="}"><mi>a</mi></mfenced>`, `\{a\}`},
		{"sum with limits", `<munderover><mo>&#x2211;</mo><mrow><mi>i</mi><mo>=</mo><mn>1</mn></mrow><mi>n</mi></munderover><msub><mi>a</mi><mi>i</mi></msub>`,
			`\sum_{i=1}^{n}a_{i}`},
		{"integral entity", `<msubsup><mo>&int;</mo><mn>0</mn><mi>&infin;</mi></msubsup><mi>f</mi>`, `\int_{0}^{\infty}f`},
		{"lim under", `<munder><mi>lim</mi><mrow><mi>x</mi><mo>&rarr;</mo><mn>0</mn></mrow></munder>`, `\lim_{x\to0}`},
		{"accent over", `<mover><mi>x</mi><mo>^</mo></mover>`, `\hat{x}`},
		{"vector arrow", `<mover><mi>v</mi><mo>&#x2192;</mo></mover>`, `\vec{v}`},
		{"overline", `<mover><mi>z</mi><mo>&#xAF;</mo></mover>`, `\overline{z}`},
		{"generic over", `<mover><mi>x</mi><mi>def</mi></mover>`, `\overset{\mathrm{def}}{x}`},
		{"generic under", `<munder><mi>x</mi><mi>k</mi></munder>`, `\underset{k}{x}`},
		{"underline", `<munder><mi>x</mi><mo>_</mo></munder>`, `\underline{x}`},
		{"matrix", `<mfenced><mtable><mtr><mtd><mn>1</mn></mtd><mtd><mn>0</mn></mtd></mtr><mtr><mtd><mn>0</mn></mtd><mtd><mn>1</mn></mtd></mtr></mtable></mfenced>`,
			`(\begin{matrix}1 & 0 \\ 0 & 1\end{matrix})`},
		{"mtext", `<mtext>if </mtext><mi>x</mi><mtext>&gt; 0 &amp; 50%</mtext>`, `\text{if }x\text{> 0 \& 50\%}`},
		{"mspace", `<mi>a</mi><mspace width="1em"/><mi>b</mi>`, `a\,b`},
		{"relations and Greek", `<mi>&alpha;</mi><mo>&le;</mo><mi>&beta;</mi><mo>&ne;</mo><mi>&Omega;</mi>`, `\alpha\le\beta\ne\Omega`},
		{"a command is separated from a following letter", `<mi>&pi;</mi><mi>r</mi>`, `\pi r`},
		{"functions", `<mi>sin</mi><mi>x</mi>`, `\sin x`},
		{"multi-letter identifiers are upright", `<mi>rate</mi>`, `\mathrm{rate}`},
		{"normal variant", `<mi mathvariant="normal">d</mi><mi>x</mi>`, `\mathrm{d}x`},
		{"TeX annotation wins", `<semantics><mi>x</mi><annotation encoding="application/x-tex">\xi</annotation></semantics>`, `\xi`},
		{"braces in operators are escaped", `<mo>{</mo><mi>x</mi><mo>}</mo>`, `\{x\}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MathMLToLaTeX(`<math xmlns="http://www.w3.org/1998/Math/MathML">` + tt.mathml + `</math>`); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestEquationBlocks(t *testing.T) {
	const frac = `<math><mfrac><mi>a</mi><mi>b</mi></mfrac></math>`
	tests := []struct {
		name string
		html string
		want []blocks.Block
	}{
		{"math alone in a p", `<p>` + frac + `</p>`, []blocks.Block{{Type: blocks.Equation, Expression: `\frac{a}{b}`}}},
		{"math directly in the outline", frac, []blocks.Block{{Type: blocks.Equation, Expression: `\frac{a}{b}`}}},
		{"math in a sentence is an inline equation", `<p>so ` + frac + ` holds</p>`,
			[]blocks.Block{para(plain("so "), blocks.RichText{Equation: `\frac{a}{b}`}, plain(" holds"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, outlineDiv(tt.html), Options{})
			assertBlocks(t, res.Blocks, tt.want)
		})
	}
}

func TestLongEquationBecomesCode(t *testing.T) {
	long := "<p><math>" + strings.Repeat("<mi>x</mi><mo>+</mo>", 600) + "<mn>1</mn></math></p>"
	res := convertBody(t, outlineDiv(long), Options{})
	if len(res.Blocks) != 1 || res.Blocks[0].Type != blocks.Code || res.Blocks[0].Language != "latex" {
		t.Fatalf("got %s", dumpBlocks(res.Blocks))
	}
	if !hasLoss(res.Losses, LossEquation) {
		t.Errorf("no equation loss")
	}
}

func TestUnknownMathMLIsReported(t *testing.T) {
	res := convertBody(t, outlineDiv(`<p><math><mblah><mi>x</mi></mblah></math></p>`), Options{})
	assertBlocks(t, res.Blocks, []blocks.Block{{Type: blocks.Equation, Expression: "x"}})
	if !hasLoss(res.Losses, LossEquation) {
		t.Errorf("no equation loss for an unknown element")
	}
}
