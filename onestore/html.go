package onestore

import (
	"fmt"
	"html"
	"strings"
)

// ResourceURLPrefix starts the URLs HTML gives a page's images and files:
// the resource's ID follows, then "/$value", the same shape as the Graph
// resource URLs the converter reads resource IDs from (the segment after
// "/resources/"). A file source opens them with Page.Resource.
const ResourceURLPrefix = "onestore:/resources/"

// Resource returns the page's resource with id (Resource.ID), or nil.
func (p *Page) Resource(id string) *Resource {
	for _, r := range p.Resources {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// HTML renders the page as the output HTML Microsoft Graph returns for a
// page's content: a head with the title and creation time, absolutely
// positioned outlines, paragraphs with inline styles, lists, tables,
// images and attachments by resource URL, and note tags as data-tag. The
// converter (package convert) reads it as it reads a Graph page, so both
// sources share one converter and one set of loss kinds. Losses the
// reader saw (Page.Losses) are not in the HTML; a caller adds them to the
// converter's report.
func (p *Page) HTML() []byte {
	var b strings.Builder
	b.WriteString(`<html lang="en-US"><head><title>`)
	b.WriteString(html.EscapeString(p.Info.Title))
	b.WriteString(`</title><meta http-equiv="Content-Type" content="text/html; charset=utf-8" />`)
	if !p.Info.Created.IsZero() {
		fmt.Fprintf(&b, `<meta name="created" content="%s" />`, p.Info.Created.UTC().Format("2006-01-02T15:04:05.0000000"))
	}
	b.WriteString(`</head><body data-absolute-enabled="true" style="font-family:Calibri;font-size:11pt">`)
	for _, o := range p.Outlines {
		fmt.Fprintf(&b, `<div style="position:absolute;left:%dpx;top:%dpx`, px(o.X), px(o.Y))
		if o.Width > 0 {
			fmt.Fprintf(&b, `;width:%dpx`, px(o.Width))
		}
		b.WriteString(`">`)
		r := htmlRenderer{b: &b, page: p}
		r.elements(o.Elements)
		b.WriteString(`</div>`)
	}
	b.WriteString(`</body></html>`)
	return []byte(b.String())
}

// px converts points to CSS pixels (96 per inch, 72 points per inch).
func px(pt float32) int { return int(pt * 4 / 3) }

type htmlRenderer struct {
	b    *strings.Builder
	page *Page
}

// elements renders sibling elements, grouping list items into <ul> or <ol>.
func (r *htmlRenderer) elements(els []*Element) {
	for i := 0; i < len(els); {
		el := els[i]
		if el.List == nil {
			r.element(el, "")
			i++
			continue
		}
		tag := "ul"
		if el.List.Ordered {
			tag = "ol"
		}
		r.b.WriteString("<" + tag + ">")
		for ; i < len(els) && els[i].List != nil && els[i].List.Ordered == el.List.Ordered; i++ {
			r.b.WriteString("<li>")
			r.element(els[i], "li")
			r.b.WriteString("</li>")
		}
		r.b.WriteString("</" + tag + ">")
	}
}

// element renders one element's content, then its children indented as a
// nested list (Graph's shape for indented paragraphs under a list item)
// or as following paragraphs.
func (r *htmlRenderer) element(el *Element, in string) {
	tag := tagAttr(el.Tags)
	for _, c := range el.Content {
		switch {
		case c.Paragraph != nil:
			r.paragraph(c.Paragraph, tag)
		case c.Table != nil:
			r.table(c.Table)
		case c.Image != nil:
			r.image(c.Image, tag)
		case c.File != nil:
			r.file(c.File)
		}
	}
	if len(el.Children) == 0 {
		return
	}
	if in == "li" || el.Children[0].List != nil {
		r.elements(el.Children)
		return
	}
	// Indented paragraphs that are not list items: Graph nests them in a
	// list without markers; here they follow, as the converter would
	// flatten them the same way.
	r.elements(el.Children)
}

// tagAttr renders note tags as Graph's data-tag ("to-do", "to-do:completed", ...).
func tagAttr(tags []NoteTag) string {
	var parts []string
	for _, t := range tags {
		switch {
		case t.Checkable && t.Checked:
			parts = append(parts, "to-do:completed")
		case t.Checkable:
			parts = append(parts, "to-do")
		case strings.EqualFold(t.Label, "Important"):
			parts = append(parts, "important")
		case strings.EqualFold(t.Label, "Question"):
			parts = append(parts, "question")
		case strings.EqualFold(t.Label, "Critical"):
			parts = append(parts, "critical")
		case strings.EqualFold(t.Label, "Idea"):
			parts = append(parts, "idea")
		case strings.EqualFold(t.Label, "Remember for later"):
			parts = append(parts, "remember-for-later")
		case strings.EqualFold(t.Label, "Definition"):
			parts = append(parts, "definition")
		case strings.EqualFold(t.Label, "Highlight"):
			parts = append(parts, "highlight")
		case strings.EqualFold(t.Label, "Contact"):
			parts = append(parts, "contact")
		case strings.EqualFold(t.Label, "Address"):
			parts = append(parts, "address")
		case strings.EqualFold(t.Label, "Phone number"):
			parts = append(parts, "phone-number")
		case strings.EqualFold(t.Label, "Web site to visit"):
			parts = append(parts, "web-site-to-visit")
		case strings.EqualFold(t.Label, "Source for article"):
			parts = append(parts, "source-for-article")
		case strings.EqualFold(t.Label, "Project A"):
			parts = append(parts, "project-a")
		case strings.EqualFold(t.Label, "Project B"):
			parts = append(parts, "project-b")
		default:
			parts = append(parts, "important") // a custom tag: Graph shows the nearest built-in
		}
	}
	return strings.Join(parts, ",")
}

// paragraph renders a paragraph: a heading for h1 to h6, <pre>-like code
// in Consolas, else <p>, with one <span> per formatted run.
func (r *htmlRenderer) paragraph(p *Paragraph, tag string) {
	el, style := "p", "margin-top:0pt;margin-bottom:0pt"
	switch p.Style {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		el = p.Style
	case "code":
		style = "font-family:Consolas;" + style
	case "cite":
		el = "cite"
	}
	r.b.WriteString("<" + el)
	if tag != "" {
		fmt.Fprintf(r.b, ` data-tag="%s"`, tag)
	}
	fmt.Fprintf(r.b, ` style="%s">`, style)
	for _, run := range p.Runs {
		r.run(run)
	}
	r.b.WriteString("</" + el + ">")
}

func (r *htmlRenderer) run(run Run) {
	text := html.EscapeString(strings.ReplaceAll(run.Text, "\u000b", "\n"))
	text = strings.ReplaceAll(text, "\n", "<br />")
	var css []string
	if run.Bold {
		css = append(css, "font-weight:bold")
	}
	if run.Italic {
		css = append(css, "font-style:italic")
	}
	switch {
	case run.Underline && run.Strike:
		css = append(css, "text-decoration:underline line-through")
	case run.Underline:
		css = append(css, "text-decoration:underline")
	case run.Strike:
		css = append(css, "text-decoration:line-through")
	}
	if run.Color != "" {
		css = append(css, "color:"+run.Color)
	}
	if run.Highlight != "" {
		css = append(css, "background-color:"+run.Highlight)
	}
	if run.Font != "" {
		css = append(css, "font-family:"+run.Font)
	}
	if run.Size > 0 {
		css = append(css, fmt.Sprintf("font-size:%gpt", run.Size))
	}
	if len(css) > 0 {
		text = `<span style="` + html.EscapeString(strings.Join(css, ";")) + `">` + text + `</span>`
	}
	if run.Superscript {
		text = "<sup>" + text + "</sup>"
	}
	if run.Subscript {
		text = "<sub>" + text + "</sub>"
	}
	if run.Link != "" {
		text = `<a href="` + html.EscapeString(run.Link) + `">` + text + `</a>`
	}
	r.b.WriteString(text)
}

func (r *htmlRenderer) table(t *Table) {
	if t.Borders {
		r.b.WriteString(`<table style="border:1px solid;border-collapse:collapse">`)
	} else {
		r.b.WriteString(`<table style="border-collapse:collapse">`)
	}
	for _, row := range t.Rows {
		r.b.WriteString("<tr>")
		for _, c := range row {
			style := ""
			if t.Borders {
				style = "border:1px solid"
			}
			if c.Shading != "" {
				style = strings.TrimPrefix(style+";background-color:"+c.Shading, ";")
			}
			if style != "" {
				fmt.Fprintf(r.b, `<td style="%s">`, style)
			} else {
				r.b.WriteString("<td>")
			}
			r.elements(c.Elements)
			r.b.WriteString("</td>")
		}
		r.b.WriteString("</tr>")
	}
	r.b.WriteString("</table>")
}

func (r *htmlRenderer) image(im *Image, tag string) {
	if im.Resource == "" {
		return
	}
	res := r.page.Resource(im.Resource)
	mime := mimeType(res.Extension)
	u := html.EscapeString(ResourceURLPrefix + im.Resource + "/$value")
	// Graph puts a person's alt text, or else the OCR text, in alt.
	alt := im.Alt
	if alt == "" {
		alt = im.OCR
	}
	fmt.Fprintf(r.b, `<img alt="%s"`, html.EscapeString(alt))
	if im.Width > 0 && im.Height > 0 {
		fmt.Fprintf(r.b, ` width="%d" height="%d"`, px(im.Width), px(im.Height))
	}
	if tag != "" {
		fmt.Fprintf(r.b, ` data-tag="%s"`, tag)
	}
	fmt.Fprintf(r.b, ` src="%s" data-src-type="%s" data-fullres-src="%s" data-fullres-src-type="%s" />`, u, mime, u, mime)
}

func (r *htmlRenderer) file(f *EmbeddedFile) {
	if f.Resource == "" {
		return
	}
	name := f.Name
	if name == "" {
		name = "attachment"
	}
	res := r.page.Resource(f.Resource)
	fmt.Fprintf(r.b, `<object data-attachment="%s" type="%s" data="%s" />`,
		html.EscapeString(name), mimeType(extOf(name, res.Extension)), html.EscapeString(ResourceURLPrefix+f.Resource+"/$value"))
}

func extOf(name, ext string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i:]
	}
	return ext
}

// mimeType is the media type Graph gives a resource of that extension.
func mimeType(ext string) string {
	switch strings.ToLower(ext) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".bmp":
		return "image/bmp"
	case ".tif", ".tiff":
		return "image/tiff"
	case ".emf":
		return "image/emf"
	case ".pdf":
		return "application/pdf"
	}
	return "application/octet-stream"
}
