package convert

import (
	"strings"
	"testing"
)

func TestExpandSelfClosing(t *testing.T) {
	tests := []struct{ in, want string }{
		{`<object data="x" />`, `<object data="x"></object>`},
		{`<OBJECT data="x"/><p>a</p>`, `<OBJECT data="x"></OBJECT><p>a</p>`},
		{`<iframe src="a?b=1&amp;c=2" />tail`, `<iframe src="a?b=1&amp;c=2"></iframe>tail`},
		{`<object data="a/>b" title='x > y' />`, `<object data="a/>b" title='x > y'></object>`},
		{`<object data="x"></object>`, `<object data="x"></object>`},
		{`<objects />`, `<objects />`},
		{`<p>no tags</p>`, `<p>no tags</p>`},
		{`<iframe src="x" `, `<iframe src="x" `},
	}
	for _, tt := range tests {
		if got := string(preprocess([]byte(tt.in))); got != tt.want {
			t.Errorf("preprocess(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	r := convertBody(t, outlineDiv("<p>a\xffb</p>"), Options{})
	if got := r.Blocks[0].RichText[0].Text; got != "a\uFFFDb" {
		t.Errorf("text %q", got)
	}
}

func TestTooDeepMarkupIsFlattened(t *testing.T) {
	html := strings.Repeat("<div>", 700) + "<p>deep text</p>"
	r := convertBody(t, html, Options{})
	found := false
	for _, b := range r.Blocks {
		if strings.Contains(b.RichText[0].Text, "deep text") {
			found = true
		}
	}
	if !found || !hasLoss(r.Losses, LossTooDeep) {
		t.Errorf("deep text kept = %v, losses %+v", found, r.Losses)
	}
}
