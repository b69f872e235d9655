package convert

import (
	"testing"

	"github.com/notebridge/notebridge/notion/blocks"
)

const resBase = "https://graph.microsoft.com/v1.0/me/onenote/resources/"

func res(id, mime, name string) *blocks.Resource {
	return &blocks.Resource{ID: id, URL: resBase + id + "/$value", MIME: mime, Name: name}
}

func TestMedia(t *testing.T) {
	img := `<img alt="OCR TEXT" src="` + resBase + `web/$value" data-src-type="image/jpeg" data-fullres-src="` + resBase + `full/$value" data-fullres-src-type="image/png" />`
	tests := []struct {
		name string
		html string
		opts Options
		want []blocks.Block
		loss LossKind
	}{
		{"image prefers the full-resolution original; alt is not text", img, Options{},
			[]blocks.Block{{Type: blocks.Image, Media: &blocks.Media{Resource: res("full", "image/png", "full.png")}}}, ""},
		{"web copy on request", img, Options{PreferWebImages: true},
			[]blocks.Block{{Type: blocks.Image, Media: &blocks.Media{Resource: res("web", "image/jpeg", "web.jpg")}}}, ""},
		{"the other source is used when the preferred one is not usable",
			`<img src="data:image/png;base64,AAAA" data-fullres-src="` + resBase + `full/$value" />`, Options{PreferWebImages: true},
			[]blocks.Block{{Type: blocks.Image, Media: &blocks.Media{Resource: res("full", "", "full")}}}, ""},
		{"external image is linked", `<img src="https://example.com/a.png" />`, Options{},
			[]blocks.Block{{Type: blocks.Image, Media: &blocks.Media{URL: "https://example.com/a.png"}}}, ""},
		{"data URL image is reported", `<img src="data:image/png;base64,AAAA" />`, Options{}, nil, LossEmbed},
		{"PDF attachment is a pdf block",
			`<object data="` + resBase + `a/$value" data-attachment="spec.pdf" type="application/pdf" />`, Options{},
			[]blocks.Block{{Type: blocks.PDF, Media: &blocks.Media{Name: "spec.pdf", Resource: res("a", "application/pdf", "spec.pdf")}}}, ""},
		{"other attachments are file blocks",
			`<object data="` + resBase + `b/$value" data-attachment="notes.docx" type="application/vnd.openxmlformats-officedocument.wordprocessingml.document" />`, Options{},
			[]blocks.Block{{Type: blocks.File, Media: &blocks.Media{Name: "notes.docx",
				Resource: res("b", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "notes.docx")}}}, ""},
		{"audio attachment", `<object data="` + resBase + `c/$value" data-attachment="memo.m4a" type="audio/mp4" />`, Options{},
			[]blocks.Block{{Type: blocks.Audio, Media: &blocks.Media{Name: "memo.m4a", Resource: res("c", "audio/mp4", "memo.m4a")}}}, ""},
		{"self-closing object and iframe do not swallow what follows",
			`<object data="` + resBase + `d/$value" data-attachment="x.zip" type="application/zip" /><p>after object</p>` +
				`<iframe data-original-src="https://youtu.be/abc" src="https://www.youtube.com/embed/abc" /><p>after iframe</p>`, Options{},
			[]blocks.Block{{Type: blocks.File, Media: &blocks.Media{Name: "x.zip", Resource: res("d", "application/zip", "x.zip")}},
				para(plain("after object")),
				{Type: blocks.Video, Media: &blocks.Media{URL: "https://youtu.be/abc"}},
				para(plain("after iframe"))}, ""},
		{"an iframe that is not a video is an embed",
			`<iframe src="https://maps.example.com/embed?q=x"></iframe>`, Options{},
			[]blocks.Block{{Type: blocks.Embed, Media: &blocks.Media{URL: "https://maps.example.com/embed?q=x"}}}, ""},
		{"an iframe whose end tag is missing keeps the page after it",
			`<iframe src="https://www.youtube.com/embed/abc"><p>rest of <b>page</b></p>`, Options{},
			[]blocks.Block{{Type: blocks.Video, Media: &blocks.Media{URL: "https://www.youtube.com/embed/abc"}},
				para(plain("rest of "), styled("page", bold))}, ""},
		{"an iframe without a source is reported", `<iframe></iframe>`, Options{}, nil, LossEmbed},
		{"an image inside a paragraph splits it",
			`<p>before <img src="` + resBase + `e/$value" /> after</p>`, Options{},
			[]blocks.Block{para(plain("before")), {Type: blocks.Image, Media: &blocks.Media{Resource: res("e", "", "e")}}, para(plain("after"))}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := convertBody(t, outlineDiv(tt.html), tt.opts)
			assertBlocks(t, r.Blocks, tt.want)
			if tt.loss != "" && !hasLoss(r.Losses, tt.loss) {
				t.Errorf("no %s loss in %+v", tt.loss, r.Losses)
			}
		})
	}
}

func TestResourcesAreDeduplicatedInOrder(t *testing.T) {
	img := func(id string) string { return `<img src="` + resBase + id + `/$value" />` }
	r := convertBody(t, outlineDiv(img("b")+img("a")+img("b")+`<ul><li>x`+img("c")+`</li></ul>`), Options{})
	var ids []string
	for _, x := range r.Resources {
		ids = append(ids, x.ID)
	}
	if len(ids) != 3 || ids[0] != "b" || ids[1] != "a" || ids[2] != "c" {
		t.Errorf("resources %q, want [b a c]", ids)
	}
	if n := blocks.Count(r.Blocks); n != 5 {
		t.Errorf("%d blocks, want every image kept (5 blocks)", n)
	}
}

func TestResourceID(t *testing.T) {
	tests := map[string]string{
		resBase + "0-abc!1-DEF!2176/$value":                            "0-abc!1-DEF!2176",
		resBase + "0-abc!1-DEF!2176/content?preferAsRendered=true":     "0-abc!1-DEF!2176",
		"https://graph.microsoft.com/v1.0/users/u/onenote/resources/x": "x",
		"https://example.com/a.png":                                    "",
	}
	for in, want := range tests {
		if got := resourceID(in); got != want {
			t.Errorf("resourceID(%q) = %q, want %q", in, got, want)
		}
	}
}
