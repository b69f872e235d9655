package convert

import (
	"testing"
)

// FuzzPage checks that no input makes Page fail or panic, and that every
// output passes Validate. Run: go test -fuzz=FuzzPage ./convert/
func FuzzPage(f *testing.F) {
	for _, name := range fixtureNames(f) {
		f.Add(readFixture(f, name, ".html"), false)
	}
	for _, s := range []string{
		"",
		"<",
		"<object data=x/>",
		"<iframe src=https://youtu.be/x>",
		"<p><math><msup><mi>a</mi></msup></math></p>",
		"<table><tr><td><table><tr><td><ul><li>x</ul></td></tr></table></td></tr></table>",
		`<p data-tag="to-do,,:completed, x">a<sup>b</sup><sub>1</sub></p>`,
		`<p style="font-family:Consolas">a</p><br><p style="font-family:Consolas"> </p>`,
		"<ul><ul><ul><li>x</li></ul></ul></ul>",
		"<div style=\"position:absolute;top:NaNpx;left:1e400px\">x</div>",
		`<a href="onenote:#x&page-id={bad}">y</a>`,
	} {
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, page []byte, webImages bool) {
		res, err := Page(page, Options{PreferWebImages: webImages})
		if err != nil {
			t.Fatalf("Page: %v", err)
		}
		if err := Validate(res.Blocks); err != nil {
			t.Fatalf("Validate: %v", err)
		}
		seen := map[string]bool{}
		for _, r := range res.Resources {
			if r.ID == "" || seen[r.ID] {
				t.Fatalf("resource %+v empty or repeated", r)
			}
			seen[r.ID] = true
		}
	})
}
