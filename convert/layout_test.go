package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

func TestReadingOrder(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"top compares as a number, not a string",
			`<div style="position:absolute;left:48px;top:1000px"><p>third</p></div>` +
				`<div style="position:absolute;left:48px;top:200px"><p>second</p></div>` +
				`<div style="position:absolute;left:48px;top:30px"><p>first</p></div>`,
			[]string{"first", "second", "third"}},
		{"equal tops sort by left",
			`<div style="position:absolute;left:384px;top:115px"><p>right</p></div>` +
				`<div style="position:absolute;left:48px;top:115px"><p>left</p></div>`,
			[]string{"left", "right"}},
		{"missing top counts as 120 and missing left as 48",
			`<div style="position:absolute;left:48px;top:121px"><p>after</p></div>` +
				`<div style="position:absolute;left:47px;top:120px"><p>before</p></div>` +
				`<div style="position:absolute"><p>default</p></div>`,
			[]string{"before", "default", "after"}},
		{"decimal and negative positions",
			`<div style="position:absolute;top:10.5px"><p>b</p></div><div style="position:absolute;top:-3px"><p>a</p></div>`,
			[]string{"a", "b"}},
		{"ties keep document order",
			`<div style="position:absolute;left:48px;top:115px"><p>one</p></div>` +
				`<div style="position:absolute;left:48px;top:115px"><p>two</p></div>`,
			[]string{"one", "two"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := convertBody(t, tt.body, Options{})
			var got []string
			for _, b := range res.Blocks {
				got = append(got, blocks.PlainText(b.RichText))
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestPositionedImagesFollowReadingOrder(t *testing.T) {
	img := func(id string, top int) string {
		return `<img src="https://graph.microsoft.com/v1.0/me/onenote/resources/` + id + `/$value" data-index="0" data-options="printout" style="position:absolute;left:48px;top:` +
			itoa(top) + `px" />`
	}
	res := convertBody(t, img("p3", 2000)+img("p1", 700)+img("p2", 1500), Options{})
	var ids []string
	for _, r := range res.Resources {
		ids = append(ids, r.ID)
	}
	if want := []string{"p1", "p2", "p3"}; len(ids) != 3 || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Errorf("resources %q, want %q", ids, want)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func TestTitleAndCreated(t *testing.T) {
	res, err := Page([]byte(`<html><head><title>  A &amp; B &lt;C&gt;  </title><meta name="created" content="2024-03-14T09:27:00.0000000" /></head><body></body></html>`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Title != "A & B <C>" || res.Created != "2024-03-14T09:27:00.0000000" || len(res.Blocks) != 0 {
		t.Errorf("got title %q created %q blocks %d", res.Title, res.Created, len(res.Blocks))
	}
	tm, err := res.CreatedTime()
	if err != nil || tm.Year() != 2024 || tm.Month() != 3 || tm.Minute() != 27 {
		t.Errorf("CreatedTime = %v, %v", tm, err)
	}
}
