package convert

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// equationBlock converts a block-level <math> to an equation block. LaTeX
// longer than Notion allows becomes a code block, reported. An empty
// equation makes no block.
func (c *converter) equationBlock(m *html.Node) []blocks.Block {
	tex := c.latex(m)
	if tex == "" {
		return nil
	}
	if blocks.UTF16Len(tex) > blocks.MaxEquationLen {
		c.losses.add(LossEquation, Degraded, "equation longer than Notion allows kept as LaTeX in a code block", tex)
		b := codeBlock(tex)
		b.Language = "latex"
		return []blocks.Block{b}
	}
	return []blocks.Block{{Type: blocks.Equation, Expression: tex}}
}

// inlineEquation converts a <math> inside text to an inline equation run,
// or to LaTeX in code style when it is too long.
func (c *converter) inlineEquation(m *html.Node, owner *html.Node) run {
	tex := c.latex(m)
	if tex == "" {
		return run{}
	}
	if blocks.UTF16Len(tex) > blocks.MaxEquationLen {
		c.losses.add(LossEquation, Degraded, "inline equation longer than Notion allows kept as LaTeX code", nodeText(owner))
		return run{text: tex, st: textStyle{code: true}}
	}
	return run{eq: tex}
}

// latex translates a MathML element to LaTeX and reports elements it does
// not know.
func (c *converter) latex(m *html.Node) string {
	t := texWriter{}
	t.node(m, 0)
	for _, name := range t.unknown {
		c.losses.addLazy(LossEquation, Degraded, "MathML <"+name+"> translated as its content", func() string { return textContent(m) })
	}
	return strings.TrimSpace(t.b.String())
}

// MathMLToLaTeX translates MathML markup (a <math> element) to LaTeX. It is
// the translator the converter uses for equations.
func MathMLToLaTeX(mathml string) string {
	nodes, err := html.ParseFragment(strings.NewReader(mathml), &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body})
	if err != nil {
		return ""
	}
	var t texWriter
	for _, n := range nodes {
		t.node(n, 0)
	}
	return strings.TrimSpace(t.b.String())
}

// texWriter accumulates LaTeX, inserting a space where a control word
// would otherwise run into a following letter.
type texWriter struct {
	b       strings.Builder
	unknown []string
}

// write appends s, separating it from a preceding control word.
func (t *texWriter) write(s string) {
	if s == "" {
		return
	}
	if endsWithControlWord(t.b.String()) {
		r := []rune(s)[0]
		if unicode.IsLetter(r) {
			t.b.WriteByte(' ')
		}
	}
	t.b.WriteString(s)
}

func endsWithControlWord(s string) bool {
	i := len(s)
	for i > 0 && isASCIILetter(s[i-1]) {
		i--
	}
	return i < len(s) && i > 0 && s[i-1] == '\\' && (i < 2 || s[i-2] != '\\')
}

func isASCIILetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }

// group writes n wrapped in braces.
func (t *texWriter) group(n *html.Node, depth int) {
	t.b.WriteByte('{')
	if n != nil {
		t.node(n, depth)
	}
	t.b.WriteByte('}')
}

// elementChildren returns the element children of n.
func elementChildren(n *html.Node) []*html.Node {
	var out []*html.Node
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		if ch.Type == html.ElementNode {
			out = append(out, ch)
		}
	}
	return out
}

// arg returns the i-th element child of n, or nil.
func arg(args []*html.Node, i int) *html.Node {
	if i < len(args) {
		return args[i]
	}
	return nil
}

// node writes the LaTeX for a MathML node.
func (t *texWriter) node(n *html.Node, depth int) {
	if depth > maxDepth {
		t.write(texEscape(collapse(textContent(n))))
		return
	}
	if n.Type == html.TextNode {
		// Text outside token elements (mi, mn, mo, mtext) is not valid
		// MathML, but it is content: keep it.
		if t2 := collapse(n.Data); t2 != "" {
			t.write(texEscape(t2))
		}
		return
	}
	if n.Type != html.ElementNode {
		return
	}
	args := elementChildren(n)
	switch n.Data {
	case "math", "mrow", "mstyle", "mpadded", "merror", "menclose", "mtd":
		t.children(childNodes(n), depth)
	case "mprescripts", "none":
	case "semantics":
		for _, a := range args {
			if a.Data == "annotation" && strings.Contains(strings.ToLower(attr(a, "encoding")), "tex") {
				t.write(strings.TrimSpace(textContent(a)))
				return
			}
		}
		if len(args) > 0 {
			t.node(args[0], depth+1)
		}
	case "annotation", "annotation-xml":
	case "mi":
		t.identifier(n)
	case "mn":
		t.write(texWords(collapse(textContent(n))))
	case "mo", "mtext":
		if isSpaceOperator(n) {
			// A space typed in the equation: OneNote writes it as an
			// NBSP operator. Next to an operator (or at either end) it
			// is the padding OneNote's linear format types around
			// operators, which LaTeX spaces by itself; between two
			// operands it is a space the equation shows.
			if !spaceIsPadding(n) {
				t.write(`\ `)
			}
			return
		}
		if n.Data == "mo" {
			t.operator(collapse(textContent(n)))
		} else {
			t.text(n)
		}
	case "ms":
		t.text(n)
	case "mspace":
		t.write(`\,`)
	case "mphantom":
		t.write(`\phantom`)
		t.groupChildren(args, depth)
	case "msup":
		t.script(arg(args, 0), nil, arg(args, 1), depth)
	case "msub":
		t.script(arg(args, 0), arg(args, 1), nil, depth)
	case "msubsup":
		t.script(arg(args, 0), arg(args, 1), arg(args, 2), depth)
	case "mmultiscripts":
		t.script(arg(args, 0), arg(args, 1), arg(args, 2), depth)
	case "mfrac":
		if lt := strings.TrimSpace(attr(n, "linethickness")); lt == "0" || lt == "0px" {
			t.write(`\binom`)
		} else {
			t.write(`\frac`)
		}
		t.group(arg(args, 0), depth+1)
		t.group(arg(args, 1), depth+1)
	case "msqrt":
		t.write(`\sqrt`)
		t.groupChildren(args, depth)
	case "mroot":
		t.write(`\sqrt[`)
		if idx := arg(args, 1); idx != nil {
			t.node(idx, depth+1)
		}
		t.b.WriteByte(']')
		t.group(arg(args, 0), depth+1)
	case "mfenced":
		t.fenced(n, args, depth)
	case "munder":
		t.underOver(arg(args, 0), arg(args, 1), nil, depth)
	case "mover":
		t.underOver(arg(args, 0), nil, arg(args, 1), depth)
	case "munderover":
		t.underOver(arg(args, 0), arg(args, 1), arg(args, 2), depth)
	case "mtable":
		t.write(`\begin{matrix}`)
		for i, row := range args {
			if i > 0 {
				t.write(` \\ `)
			}
			cells := elementChildren(row)
			if row.Data == "mlabeledtr" && len(cells) > 0 {
				cells = cells[1:]
			}
			for j, cell := range cells {
				if j > 0 {
					t.write(` & `)
				}
				t.node(cell, depth+1)
			}
		}
		t.write(`\end{matrix}`)
	case "mtr", "mlabeledtr":
		t.children(args, depth)
	default:
		t.unknown = append(t.unknown, n.Data)
		t.children(args, depth)
	}
}

func (t *texWriter) children(args []*html.Node, depth int) {
	for _, a := range args {
		t.node(a, depth+1)
	}
}

func (t *texWriter) groupChildren(args []*html.Node, depth int) {
	t.b.WriteByte('{')
	t.children(args, depth)
	t.b.WriteByte('}')
}

// script writes base_{sub}^{sup}. A base of more than one token is
// grouped.
func (t *texWriter) script(base, sub, sup *html.Node, depth int) {
	if base != nil {
		if len(elementChildren(base)) > 1 || base.Data == "msup" || base.Data == "msub" || base.Data == "msubsup" {
			t.group(base, depth+1)
		} else {
			t.node(base, depth+1)
		}
	} else {
		t.write("{}")
	}
	if sub != nil && sub.Data != "none" {
		t.b.WriteByte('_')
		t.group(sub, depth+1)
	}
	if sup != nil && sup.Data != "none" {
		t.b.WriteByte('^')
		t.group(sup, depth+1)
	}
}

// accents are the mover/munder marks LaTeX writes as accent commands.
var (
	overAccents = map[string]string{
		"^": `\hat`, "ˆ": `\hat`, "̂": `\hat`, "~": `\tilde`, "˜": `\tilde`, "̃": `\tilde`,
		"¯": `\overline`, "‾": `\overline`, "̅": `\overline`, "→": `\vec`, "⃗": `\vec`,
		"˙": `\dot`, "̇": `\dot`, "¨": `\ddot`, "̈": `\ddot`, "ˇ": `\check`, "˘": `\breve`,
		"⏞": `\overbrace`, "⌢": `\overset{\frown}`,
	}
	underAccents = map[string]string{
		"_": `\underline`, "¯": `\underline`, "‾": `\underline`, "̲": `\underline`, "⏟": `\underbrace`,
	}
)

// largeOperators take limits below and above as sub- and superscripts.
var largeOperators = map[string]bool{
	`\sum`: true, `\prod`: true, `\coprod`: true, `\int`: true, `\iint`: true, `\iiint`: true,
	`\oint`: true, `\bigcup`: true, `\bigcap`: true, `\bigoplus`: true, `\bigotimes`: true,
	`\bigvee`: true, `\bigwedge`: true, `\lim`: true, `\max`: true, `\min`: true, `\sup`: true,
	`\inf`: true, `\limsup`: true, `\liminf`: true,
}

// underOver writes munder, mover and munderover.
func (t *texWriter) underOver(base, under, over *html.Node, depth int) {
	if over != nil && under == nil {
		if cmd, ok := overAccents[strings.TrimSpace(textContent(over))]; ok && over.Data == "mo" {
			t.write(cmd)
			t.group(base, depth+1)
			return
		}
	}
	if under != nil && over == nil {
		if cmd, ok := underAccents[strings.TrimSpace(textContent(under))]; ok && under.Data == "mo" {
			t.write(cmd)
			t.group(base, depth+1)
			return
		}
	}
	if base != nil && largeOperators[baseCommand(base)] {
		t.script(base, under, over, depth)
		return
	}
	switch {
	case under != nil && over != nil:
		t.write(`\overset`)
		t.group(over, depth+1)
		t.write(`\underset`)
		t.group(under, depth+1)
		t.group(base, depth+1)
	case over != nil:
		t.write(`\overset`)
		t.group(over, depth+1)
		t.group(base, depth+1)
	default:
		t.write(`\underset`)
		t.group(under, depth+1)
		t.group(base, depth+1)
	}
}

// baseCommand is the LaTeX a simple base (mo or mi) translates to.
func baseCommand(n *html.Node) string {
	s := collapse(textContent(n))
	if cmd, ok := texSymbols[s]; ok {
		return cmd
	}
	if cmd, ok := texFunctions[s]; ok {
		return cmd
	}
	return s
}

// fenced writes mfenced: open, children joined by separators, close.
func (t *texWriter) fenced(n *html.Node, args []*html.Node, depth int) {
	open, close, seps := "(", ")", ","
	for _, a := range n.Attr {
		switch a.Key {
		case "open":
			open = a.Val
		case "close":
			close = a.Val
		case "separators":
			seps = strings.ReplaceAll(a.Val, " ", "")
		}
	}
	t.operator(open)
	sep := []rune(seps)
	for i, a := range args {
		if i > 0 && len(sep) > 0 {
			t.operator(string(sep[min(i-1, len(sep)-1)]))
		}
		t.node(a, depth+1)
	}
	t.operator(close)
}

// identifier writes mi: single letters as themselves, known functions as
// commands, other names upright.
func (t *texWriter) identifier(n *html.Node) {
	s := collapse(textContent(n))
	switch {
	case s == "":
	case texSymbols[s] != "":
		t.write(texSymbols[s])
	case texFunctions[s] != "":
		t.write(texFunctions[s])
	case len([]rune(s)) == 1:
		if strings.EqualFold(attr(n, "mathvariant"), "normal") && unicode.IsLetter([]rune(s)[0]) {
			t.write(`\mathrm{` + s + `}`)
		} else {
			t.write(texEscape(s))
		}
	default:
		t.write(`\mathrm{` + texWords(s) + `}`)
	}
}

// texWords escapes s with each space kept as "\ ": math mode ignores a
// plain space, so a space typed inside an identifier or a number would
// vanish.
func texWords(s string) string {
	words := strings.Split(s, " ")
	for i, w := range words {
		words[i] = texEscape(w)
	}
	return strings.Join(words, `\ `)
}

// text writes an mtext or ms as \text{…}, its spaces kept.
func (t *texWriter) text(n *html.Node) {
	if s := textContent(n); strings.TrimFunc(s, isCollapsible) != "" {
		t.write(`\text{` + texEscape(spaced(s)) + `}`)
	} else if s != "" {
		t.write(`\ `)
	}
}

// isSpaceOperator reports whether n is a typed space: an mo holding only
// spaces (NBSP, as OneNote writes a typed space), or an mtext holding
// only spaces, as other writers do.
func isSpaceOperator(n *html.Node) bool {
	if n == nil || n.Type != html.ElementNode || (n.Data != "mo" && n.Data != "mtext") {
		return false
	}
	s := textContent(n)
	return s != "" && isBlankText(s) && removeObjectReplacement(s) != ""
}

// spaceIsPadding reports whether the space operator n pads an operator:
// the nearest sibling on either side that is neither a space nor an
// invisible operator is a visible operator, or there is none.
func spaceIsPadding(n *html.Node) bool {
	side := func(step func(*html.Node) *html.Node) bool {
		for m := step(n); m != nil; m = step(m) {
			if m.Type != html.ElementNode || isSpaceOperator(m) || isInvisibleOperator(m) {
				continue
			}
			return m.Data == "mo"
		}
		return true
	}
	return side(func(m *html.Node) *html.Node { return m.PrevSibling }) ||
		side(func(m *html.Node) *html.Node { return m.NextSibling })
}

// isInvisibleOperator reports whether m is an mo that shows nothing:
// function application, invisible times, separator or plus, or a
// zero-width space.
func isInvisibleOperator(m *html.Node) bool {
	if m.Data != "mo" {
		return false
	}
	return invisibleOperator(collapse(textContent(m)))
}

// invisibleOperator reports whether s is an operator that shows nothing.
func invisibleOperator(s string) bool {
	switch s {
	case "", "\u2061", "\u2062", "\u2063", "\u2064", "\u200b":
		return true
	}
	return false
}

// spaced collapses whitespace runs in s to single spaces and keeps one
// at either end where s had any: spaces typed in MathML text are content.
func spaced(s string) string {
	inner := collapse(s)
	rs := []rune(removeObjectReplacement(s))
	if len(rs) > 0 && isCollapsible(rs[0]) {
		inner = " " + inner
	}
	if len(rs) > 1 && isCollapsible(rs[len(rs)-1]) {
		inner += " "
	}
	return inner
}

// operator writes mo. The invisible operators carry no meaning and are
// dropped (spaces are written by the caller).
func (t *texWriter) operator(s string) {
	if invisibleOperator(s) {
		return
	}
	if cmd, ok := texSymbols[s]; ok {
		t.write(cmd)
		return
	}
	if cmd, ok := texFunctions[s]; ok {
		t.write(cmd)
		return
	}
	switch s {
	case "{":
		t.write(`\{`)
	case "}":
		t.write(`\}`)
	default:
		var b strings.Builder
		for _, r := range s {
			if cmd, ok := texSymbols[string(r)]; ok {
				if b.Len() > 0 {
					t.write(texEscape(b.String()))
					b.Reset()
				}
				t.write(cmd)
				continue
			}
			b.WriteRune(r)
		}
		t.write(texEscape(b.String()))
	}
}

// texEscape escapes LaTeX's special characters in text and maps symbols to
// commands.
func texEscape(s string) string {
	var b strings.Builder
	afterWord := false // the output ends with a control word
	for _, r := range s {
		if r > 0x7f {
			if cmd, ok := texSymbols[string(r)]; ok {
				b.WriteString(cmd)
				afterWord = endsWithControlWord(cmd)
				continue
			}
		}
		switch r {
		case '#', '$', '%', '&', '_', '{', '}':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\\':
			b.WriteString(`\backslash`)
			afterWord = true
			continue
		case '^':
			b.WriteString(`\hat{}`)
		case '~':
			b.WriteString(`\sim`)
			afterWord = true
			continue
		default:
			if afterWord && unicode.IsLetter(r) {
				b.WriteByte(' ')
			}
			b.WriteRune(r)
		}
		afterWord = false
	}
	return b.String()
}

// texFunctions are identifiers LaTeX writes as upright function names.
var texFunctions = map[string]string{
	"sin": `\sin`, "cos": `\cos`, "tan": `\tan`, "cot": `\cot`, "sec": `\sec`, "csc": `\csc`,
	"arcsin": `\arcsin`, "arccos": `\arccos`, "arctan": `\arctan`, "sinh": `\sinh`, "cosh": `\cosh`,
	"tanh": `\tanh`, "log": `\log`, "ln": `\ln`, "lg": `\lg`, "exp": `\exp`, "lim": `\lim`,
	"max": `\max`, "min": `\min`, "sup": `\sup`, "inf": `\inf`, "det": `\det`, "dim": `\dim`,
	"gcd": `\gcd`, "deg": `\deg`, "arg": `\arg`, "ker": `\ker`, "Pr": `\Pr`, "hom": `\hom`,
	"limsup": `\limsup`, "liminf": `\liminf`,
}

// texSymbols maps Unicode symbols and entities' characters to LaTeX.
var texSymbols = map[string]string{
	// Greek.
	"α": `\alpha`, "β": `\beta`, "γ": `\gamma`, "δ": `\delta`, "ε": `\epsilon`, "ϵ": `\epsilon`,
	"ζ": `\zeta`, "η": `\eta`, "θ": `\theta`, "ϑ": `\vartheta`, "ι": `\iota`, "κ": `\kappa`,
	"λ": `\lambda`, "μ": `\mu`, "ν": `\nu`, "ξ": `\xi`, "π": `\pi`, "ϖ": `\varpi`, "ρ": `\rho`,
	"ϱ": `\varrho`, "σ": `\sigma`, "ς": `\varsigma`, "τ": `\tau`, "υ": `\upsilon`, "φ": `\phi`,
	"ϕ": `\phi`, "χ": `\chi`, "ψ": `\psi`, "ω": `\omega`, "Γ": `\Gamma`, "Δ": `\Delta`,
	"Θ": `\Theta`, "Λ": `\Lambda`, "Ξ": `\Xi`, "Π": `\Pi`, "Σ": `\Sigma`, "Υ": `\Upsilon`,
	"Φ": `\Phi`, "Ψ": `\Psi`, "Ω": `\Omega`,
	// Large operators.
	"∑": `\sum`, "∏": `\prod`, "∐": `\coprod`, "∫": `\int`, "∬": `\iint`, "∭": `\iiint`,
	"∮": `\oint`, "⋃": `\bigcup`, "⋂": `\bigcap`, "⨁": `\bigoplus`, "⨂": `\bigotimes`,
	"⋁": `\bigvee`, "⋀": `\bigwedge`,
	// Relations.
	"≤": `\le`, "≥": `\ge`, "≠": `\ne`, "≈": `\approx`, "≡": `\equiv`, "∼": `\sim`, "≃": `\simeq`,
	"≅": `\cong`, "∝": `\propto`, "≪": `\ll`, "≫": `\gg`, "∈": `\in`, "∉": `\notin`, "∋": `\ni`,
	"⊂": `\subset`, "⊃": `\supset`, "⊆": `\subseteq`, "⊇": `\supseteq`, "⊥": `\perp`,
	"∥": `\parallel`, "∣": `\mid`, "≺": `\prec`, "≻": `\succ`, "⊢": `\vdash`, "⊨": `\models`,
	"≔": `:=`, "≐": `\doteq`, "⩽": `\leqslant`, "⩾": `\geqslant`,
	// Operators.
	"±": `\pm`, "∓": `\mp`, "×": `\times`, "÷": `\div`, "·": `\cdot`, "⋅": `\cdot`, "∗": `\ast`,
	"∘": `\circ`, "∙": `\bullet`, "⊕": `\oplus`, "⊗": `\otimes`, "∪": `\cup`, "∩": `\cap`,
	"∧": `\wedge`, "∨": `\vee`, "¬": `\neg`, "∖": `\setminus`, "−": `-`, "∕": `/`, "⁄": `/`,
	"√": `\surd`, "†": `\dagger`, "⋆": `\star`,
	// Arrows.
	"→": `\to`, "←": `\leftarrow`, "↔": `\leftrightarrow`, "⇒": `\Rightarrow`, "⇐": `\Leftarrow`,
	"⇔": `\Leftrightarrow`, "↦": `\mapsto`, "↑": `\uparrow`, "↓": `\downarrow`, "⟶": `\longrightarrow`,
	"⟹": `\Longrightarrow`, "⟺": `\Longleftrightarrow`,
	// Letters and other symbols.
	"∞": `\infty`, "∂": `\partial`, "∇": `\nabla`, "∀": `\forall`, "∃": `\exists`, "∄": `\nexists`,
	"∅": `\emptyset`, "ℏ": `\hbar`, "ℓ": `\ell`, "℘": `\wp`, "ℜ": `\Re`, "ℑ": `\Im`, "ℵ": `\aleph`,
	"ℝ": `\mathbb{R}`, "ℕ": `\mathbb{N}`, "ℤ": `\mathbb{Z}`, "ℚ": `\mathbb{Q}`, "ℂ": `\mathbb{C}`,
	"…": `\ldots`, "⋯": `\cdots`, "⋮": `\vdots`, "⋱": `\ddots`, "′": `'`, "″": `''`, "°": `^\circ`,
	"∠": `\angle`, "△": `\triangle`, "□": `\square`, "∴": `\therefore`, "∵": `\because`,
	"⟨": `\langle`, "⟩": `\rangle`, "〈": `\langle`, "〉": `\rangle`, "‖": `\|`, "⌊": `\lfloor`,
	"⌋": `\rfloor`, "⌈": `\lceil`, "⌉": `\rceil`,
}
