package convert

import "strings"

// superscripts and subscripts map characters to their Unicode superscript
// and subscript forms. Only characters with a form that every common font
// draws are listed.
var (
	superscripts = map[rune]rune{
		'0': '⁰', '1': '¹', '2': '²', '3': '³', '4': '⁴', '5': '⁵', '6': '⁶', '7': '⁷', '8': '⁸', '9': '⁹',
		'+': '⁺', '-': '⁻', '−': '⁻', '=': '⁼', '(': '⁽', ')': '⁾', 'n': 'ⁿ', 'i': 'ⁱ',
	}
	subscripts = map[rune]rune{
		'0': '₀', '1': '₁', '2': '₂', '3': '₃', '4': '₄', '5': '₅', '6': '₆', '7': '₇', '8': '₈', '9': '₉',
		'+': '₊', '-': '₋', '−': '₋', '=': '₌', '(': '₍', ')': '₎',
		'a': 'ₐ', 'e': 'ₑ', 'o': 'ₒ', 'x': 'ₓ', 'i': 'ᵢ', 'j': 'ⱼ', 'n': 'ₙ',
	}
)

// superscript shows <sup> text, which Notion cannot format: as Unicode
// superscript characters when every character has one (2³⁰), else as
// ^(text).
func (c *converter) superscript(text string, near func() string) string {
	if s, ok := mapScript(text, superscripts); ok {
		c.losses.addLazy(LossScript, Mapped, "superscript shown with Unicode superscript characters", near)
		return s
	}
	c.losses.addLazy(LossScript, Mapped, "superscript shown as ^(…)", near)
	return wrapScript("^(", text)
}

// subscript is superscript's counterpart for <sub>: log₂, or _(text).
func (c *converter) subscript(text string, near func() string) string {
	if s, ok := mapScript(text, subscripts); ok {
		c.losses.addLazy(LossScript, Mapped, "subscript shown with Unicode subscript characters", near)
		return s
	}
	c.losses.addLazy(LossScript, Mapped, "subscript shown as _(…)", near)
	return wrapScript("_(", text)
}

// wrapScript wraps the non-blank part of text in open…), keeping the
// surrounding spaces outside.
func wrapScript(open, text string) string {
	core := strings.Trim(text, " ")
	if core == "" {
		return text
	}
	i := strings.Index(text, core)
	return text[:i] + open + core + ")" + text[i+len(core):]
}

// mapScript maps every non-space character of s through m.
func mapScript(s string, m map[rune]rune) (string, bool) {
	var b strings.Builder
	b.Grow(len(s) * 3)
	for _, r := range s {
		if r == ' ' {
			b.WriteRune(r)
			continue
		}
		mapped, ok := m[r]
		if !ok {
			return "", false
		}
		b.WriteRune(mapped)
	}
	return b.String(), true
}
