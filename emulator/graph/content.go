package graph

import (
	"fmt"
	"html"
	"math/rand/v2"
	"net/url"
	"strings"
)

// renderEnv is what rendering needs from the request: where resources
// live and whose OneDrive the pages are in.
type renderEnv struct {
	resourceURL func(id string) string
	cid         string // lower-case OneDrive owner id
}

// outline is one top-level, absolutely positioned block of a page.
type outline struct {
	top, left int
	html      string
}

// renderGenerated writes the output HTML of a generated page. The result
// depends only on the page, its version and env, so the same seed gives the
// same bytes.
func renderGenerated(b *strings.Builder, p *Page, env renderEnv) {
	g := p.gen
	rng := rand.New(rand.NewPCG(g.seed, uint64(p.version)))
	res := g.resources
	images := res[:g.images]
	attachments := res[g.images : g.images+g.attach]
	printout := res[g.images+g.attach:]

	var blocks []outline
	top := 115

	// Outline: heading, formatted text, to-dos and inline images.
	var o strings.Builder
	o.Grow(4 << 10)
	if p.Title != "" { // an untitled page (GenSpec.UntitledEvery) has no heading either
		fmt.Fprintf(&o, `<h1 style="font-size:16pt;color:#1e4e79;margin-top:0pt;margin-bottom:0pt">%s</h1>`, html.EscapeString(p.Title))
		o.WriteString("\n")
	}
	o.WriteString(styledParagraph(rng))
	if p.version > 0 {
		fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">Edited (revision %d): %s</p>`+"\n", p.version, sentence(rng, 6))
	}
	for i := range 1 + rng.IntN(3) {
		tag := pick(rng, todoTags)
		if i == 0 {
			tag = "to-do"
		}
		fmt.Fprintf(&o, `<p data-tag="%s" style="margin-top:0pt;margin-bottom:0pt">%s</p>`+"\n", tag, sentence(rng, 5))
	}
	for i, img := range images {
		if i == 0 {
			continue // the first image is a top-level block
		}
		o.WriteString(imageTag(rng, img, env, ""))
	}
	blocks = append(blocks, outline{top: top, left: 48, html: o.String()})

	// Outline: nested lists, attachments and a video.
	o = strings.Builder{}
	o.Grow(4 << 10)
	fmt.Fprintf(&o, `<h2 style="font-size:14pt;color:#2e75b5;margin-top:0pt;margin-bottom:0pt">%s</h2>`+"\n", sentence(rng, 3))
	o.WriteString(nestedList(rng, 0))
	for _, a := range attachments {
		name := strings.ReplaceAll(sentence(rng, 2), " ", "-") + ".pdf"
		fmt.Fprintf(&o, `<object data="%s" data-attachment="%s" type="%s" />`+"\n", env.resourceURL(a.ID), name, a.ContentType)
		fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">%s</p>`+"\n", sentence(rng, 7))
	}
	if rng.IntN(3) == 0 {
		v := fmt.Sprintf("%x", rng.Uint64())[:11]
		fmt.Fprintf(&o, `<iframe data-original-src="https://www.youtube.com/watch?v=%s" src="https://www.youtube.com/embed/%s?feature=oembed&amp;autoplay=true" width="480" height="270" />`+"\n", v, v)
		fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">%s</p>`+"\n", sentence(rng, 4))
	}
	top += 300 + rng.IntN(200)
	blocks = append(blocks, outline{top: top, left: 48, html: o.String()})

	// Outline: table and code.
	o = strings.Builder{}
	o.Grow(4 << 10)
	o.WriteString(table(rng))
	o.WriteString("<br />\n")
	for range 2 + rng.IntN(3) {
		fmt.Fprintf(&o, `<p style="font-family:Consolas;margin-top:0pt;margin-bottom:0pt">%s</p>`+"\n", html.EscapeString(pick(rng, codeLines)))
	}
	fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">Run <span style="font-family:Consolas">%s</span> first.</p>`+"\n", html.EscapeString(pick(rng, codeLines)))
	top += 300 + rng.IntN(200)
	blocks = append(blocks, outline{top: top, left: 48, html: o.String()})

	// Side outline: links, equation, cite, ink.
	o = strings.Builder{}
	o.Grow(4 << 10)
	for _, l := range g.links {
		fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">See <a href="%s">%s</a>.</p>`+"\n", html.EscapeString(internalLink(l, env)), html.EscapeString(l.title))
	}
	fmt.Fprintf(&o, `<p style="margin-top:0pt;margin-bottom:0pt">Reference: <a href="https://example.com/%s">%s</a></p>`+"\n", url.PathEscape(pick(rng, words)), sentence(rng, 2))
	if rng.IntN(2) == 0 {
		o.WriteString(equation(rng))
	}
	if g.ink {
		o.WriteString("<!-- InkNode is not supported -->\n")
	}
	fmt.Fprintf(&o, `<cite style="font-size:9pt;color:#595959;margin-top:0pt;margin-bottom:0pt">%s</cite>`+"\n", sentence(rng, 8))
	blocks = append(blocks, outline{top: 115 + rng.IntN(40), left: 700, html: o.String()})

	var loose []string
	if len(images) > 0 {
		loose = append(loose, imageTag(rng, images[0], env, fmt.Sprintf(` style="position:absolute;left:%dpx;top:%dpx"`, 700, 400+rng.IntN(100))))
	}
	if len(printout) > 0 {
		dataID := guidOf("printout", p.ID)
		origin := "https://files.example.com/" + url.PathEscape(p.Title) + ".pdf"
		for i, part := range printout {
			attrs := fmt.Sprintf(` data-render-original-src="%s" data-index="%d" data-options="printout" data-id="%s" style="position:absolute;left:48px;top:%dpx"`,
				origin, i, dataID, top+400+i*862)
			loose = append(loose, imageTag(rng, part, env, attrs))
		}
	}
	if g.ink {
		loose = append(loose, "<!-- InkNode is not supported -->\n")
	}

	all := make([]string, 0, len(blocks)+len(loose))
	for _, bl := range blocks {
		all = append(all, fmt.Sprintf(`<div style="position:absolute;left:%dpx;top:%dpx;width:624px">`+"\n%s</div>\n", bl.left, bl.top, bl.html))
	}
	all = append(all, loose...)
	// Output order is not reading order.
	rng.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })

	fmt.Fprintf(b, "<html lang=\"en-US\">\n<head>\n<title>%s</title>\n", html.EscapeString(p.Title))
	b.WriteString(`<meta http-equiv="Content-Type" content="text/html; charset=utf-8" />` + "\n")
	fmt.Fprintf(b, "<meta name=\"created\" content=\"%s\" />\n</head>\n", p.CreatedDateTime.UTC().Format("2006-01-02T15:04:05.0000000"))
	b.WriteString(`<body data-absolute-enabled="true" style="font-family:Calibri;font-size:11pt">` + "\n")
	size := 1024
	for _, s := range all {
		size += len(s)
	}
	b.Grow(size)
	for _, s := range all {
		b.WriteString(s)
	}
	b.WriteString("</body>\n</html>\n")
}

func imageTag(rng *rand.Rand, r Resource, env renderEnv, extra string) string {
	u := env.resourceURL(r.ID)
	return fmt.Sprintf(`<img alt="%s" width="%d" height="%d" src="%s" data-src-type="%s" data-fullres-src="%s" data-fullres-src-type="%s"%s />`+"\n",
		sentence(rng, 4), 320+rng.IntN(300), 200+rng.IntN(300), u, r.ContentType, u, r.ContentType, extra)
}

// internalLink is the onenote: link OneNote writes for a link to another
// page: title, section-id and page-id GUIDs, and the section file path.
func internalLink(l pageLink, env renderEnv) string {
	return fmt.Sprintf("onenote:#%s&section-id={%s}&page-id={%s}&end&base-path=https://d.docs.live.net/%s/Documents/%s/%s.one",
		url.PathEscape(l.title), l.sectionGUID, l.pageGUID, env.cid, url.PathEscape(l.book), url.PathEscape(l.section))
}

func styledParagraph(rng *rand.Rand) string {
	styles := []string{"font-weight:bold", "font-style:italic", "text-decoration:underline", "text-decoration:line-through", "color:#c00000", "background-color:yellow"}
	var b strings.Builder
	b.WriteString(`<p style="margin-top:0pt;margin-bottom:0pt">`)
	b.WriteString(sentence(rng, 4))
	for range 2 {
		fmt.Fprintf(&b, ` <span style="%s">%s</span> %s`, pick(rng, styles), sentence(rng, 2), sentence(rng, 3))
	}
	b.WriteString(" x<sup>2</sup> and H<sub>2</sub>O.</p>\n")
	return b.String()
}

func nestedList(rng *rand.Rand, depth int) string {
	ordered := rng.IntN(2) == 0
	tag, types := "ul", []string{"disc", "circle", "square"}
	if ordered {
		tag, types = "ol", []string{"decimal", "lower-alpha", "lower-roman"}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>\n", tag)
	for i := range 2 + rng.IntN(2) {
		style := types[depth%len(types)]
		switch {
		case depth < 2 && i == 0:
			fmt.Fprintf(&b, `<li style="list-style-type:%s"><p style="margin-top:0pt;margin-bottom:0pt">%s</p>`+"\n%s</li>\n", style, sentence(rng, 3), nestedList(rng, depth+1))
		case rng.IntN(4) == 0:
			fmt.Fprintf(&b, `<li style="list-style-type:%s"><span data-tag="%s">%s</span></li>`+"\n", style, pick(rng, []string{"to-do", "to-do:completed"}), sentence(rng, 4))
		default:
			fmt.Fprintf(&b, `<li style="list-style-type:%s">%s</li>`+"\n", style, sentence(rng, 4))
		}
	}
	fmt.Fprintf(&b, "</%s>\n", tag)
	return b.String()
}

func table(rng *rand.Rand) string {
	var b strings.Builder
	border := pick(rng, []string{"1px solid", "0px"})
	fmt.Fprintf(&b, `<table style="border:%s;border-collapse:collapse">`+"\n", border)
	cols := 2 + rng.IntN(3)
	for r := range 2 + rng.IntN(3) {
		b.WriteString("<tr>\n")
		for range cols {
			cell := sentence(rng, 2)
			bg := ""
			if r == 0 {
				bg = "background-color:#d9e2f3;"
				cell = `<span style="font-weight:bold">` + cell + "</span>"
			}
			if rng.IntN(8) == 0 {
				cell = ""
			}
			fmt.Fprintf(&b, `<td style="%sborder:%s">%s</td>`+"\n", bg, border, cell)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
	return b.String()
}

func equation(rng *rand.Rand) string {
	a, c := pick(rng, []string{"x", "y", "a"}), 2+rng.IntN(7)
	return fmt.Sprintf(`<p style="margin-top:0pt;margin-bottom:0pt"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block"><msup><mi>%s</mi><mn>2</mn></msup><mo>+</mo><mfrac><mn>1</mn><mn>%d</mn></mfrac><mo>=</mo><mn>0</mn></math></p>`+"\n", a, c)
}

// sentence returns n escaped words.
func sentence(rng *rand.Rand, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = pick(rng, words)
	}
	return html.EscapeString(strings.Join(ws, " "))
}

var (
	todoTags  = []string{"to-do", "to-do:completed", "important", "question", "idea, send-in-email", "critical", "remember-for-later", "call-back:completed", "to-do-priority-1"}
	words     = []string{"budget", "review", "R&D", "latency", "Kraków", "東京", "naïve", "<draft>", "sync", "owner", "deadline", "Q3", "migration", "notebook", "page", "café", "🚀", "rollout", "plan", "sprint", "vendor", "quote", "\"quoted\"", "risk", "α-test"}
	codeLines = []string{
		`SELECT id, title FROM pages WHERE level > 0;`,
		`go test ./... -race -count=1`,
		`curl -fsS https://example.com/health && echo ok`,
		`if err != nil { return fmt.Errorf("fetch: %w", err) }`,
		`kubectl rollout status deploy/api --timeout=60s`,
	}
)
