package convert

import (
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/notebridge/notebridge/notion/blocks"
)

// media converts an img, object, iframe, embed, video or audio element.
func (c *converter) media(n *html.Node) []blocks.Block {
	switch n.DataAtom {
	case atom.Img:
		return c.image(n)
	case atom.Object, atom.Embed:
		src := attr(n, "data")
		if src == "" {
			src = attr(n, "src")
		}
		if c.opts.SkipAttachments {
			c.losses.add(LossSkippedAttachment, Skipped, skippedAttachment, attr(n, "data-attachment"))
			return nil
		}
		return c.attachment(n, src, attr(n, "data-attachment"), attr(n, "type"))
	case atom.Iframe:
		return c.frame(n)
	case atom.Video, atom.Audio:
		src := attr(n, "src")
		if src == "" {
			for s := n.FirstChild; s != nil && src == ""; s = s.NextSibling {
				if s.Type == html.ElementNode && s.DataAtom == atom.Source {
					src = attr(s, "src")
				}
			}
		}
		typ := blocks.Video
		if n.DataAtom == atom.Audio {
			typ = blocks.Audio
		}
		if !isWebURL(src) || len(src) > blocks.MaxURLLen {
			c.losses.add(LossEmbed, Dropped, "<"+n.Data+"> without a usable source", src)
			return nil
		}
		return []blocks.Block{{Type: typ, Media: &blocks.Media{URL: src}}}
	}
	return nil
}

// The details of what the options skip, one per option, as the loss
// report shows them.
const (
	skippedImage      = "image not migrated (option skipImages)"
	skippedAttachment = "attachment not migrated (option skipAttachments)"
	skippedInk        = "ink not migrated (option skipInk)"
)

// image converts an img. The full-resolution original in data-fullres-src
// is preferred to the web copy in src (see Options.PreferWebImages). alt is
// OneNote's OCR text or a person's alt text, which Graph does not tell
// apart: it is dropped unless Options.ImageAlt is AltCaption (altCaption).
func (c *converter) image(n *html.Node) []blocks.Block {
	if c.opts.SkipImages {
		c.losses.add(LossSkippedImage, Skipped, skippedImage, "")
		return nil
	}
	type source struct{ url, mime string }
	full := source{strings.TrimSpace(attr(n, "data-fullres-src")), attr(n, "data-fullres-src-type")}
	web := source{strings.TrimSpace(attr(n, "src")), attr(n, "data-src-type")}
	order := [2]source{full, web}
	if c.opts.PreferWebImages {
		order = [2]source{web, full}
	}
	var m *blocks.Media
	for _, s := range order {
		if m = c.mediaSource(s.url, s.mime, ""); m != nil {
			break
		}
	}
	if m == nil {
		c.losses.add(LossEmbed, Dropped, "image without a usable source", attr(n, "alt"))
		return nil
	}
	b := blocks.Block{Type: blocks.Image, Media: m}
	if c.opts.ImageAlt == AltCaption {
		b.Caption = c.altCaption(attr(n, "alt"))
	}
	c.applyTags(&b, parseTags(attr(n, "data-tag")), roleImage)
	return []blocks.Block{b}
}

// altCaption is an image's caption made of its alt text: whitespace
// (NBSP and line breaks too) collapsed to single spaces, nil when there
// is none. fitLimits later splits it into items of at most 2,000
// characters; an alt longer than 99 of them is cut (reported). An alt
// that is a data: URI (an image's bytes, not text) is not a caption and
// is reported.
func (c *converter) altCaption(alt string) []blocks.RichText {
	text := strings.Join(strings.Fields(alt), " ")
	if text == "" {
		return nil
	}
	if strings.HasPrefix(strings.ToLower(text), "data:") {
		c.losses.add(LossEmbed, Degraded, "image alt text is a data: URI, not kept as its caption", "")
		return nil
	}
	// One item is left for a tag marker, so the caption never needs
	// capItems (whose cut is worded for table cells).
	if pieces := splitText(text, blocks.MaxTextLen); len(pieces) > maxAltItems {
		c.losses.add(LossEmbed, Dropped, fmt.Sprintf("image alt text longer than a caption holds (%d items of %d characters) cut",
			maxAltItems, blocks.MaxTextLen), "")
		text = strings.Join(pieces[:maxAltItems], "")
	}
	return []blocks.RichText{{Text: text}}
}

// maxAltItems is the most rich-text items an alt caption fills.
const maxAltItems = blocks.MaxRichTextItems - 1

// attachment converts an object: a file block, or pdf, audio or video by
// MIME type, referring to the attachment's OneNote resource.
func (c *converter) attachment(n *html.Node, src, name, mime string) []blocks.Block {
	m := c.mediaSource(strings.TrimSpace(src), mime, name)
	if m == nil {
		c.losses.add(LossEmbed, Dropped, "<"+n.Data+"> without a usable source", name)
		return nil
	}
	m.Name = name
	if m.Name == "" && m.Resource != nil {
		m.Name = m.Resource.Name
	}
	typ := blocks.File
	switch mt := strings.ToLower(strings.TrimSpace(mime)); {
	case mt == "application/pdf":
		typ = blocks.PDF
	case strings.HasPrefix(mt, "audio/"):
		typ = blocks.Audio
	case strings.HasPrefix(mt, "video/"):
		typ = blocks.Video
	}
	return []blocks.Block{{Type: typ, Media: m}}
}

// frame converts an iframe: a video block for the source page of a video
// (data-original-src), an embed block for anything else.
func (c *converter) frame(n *html.Node) []blocks.Block {
	u := strings.TrimSpace(attr(n, "data-original-src"))
	if u == "" {
		u = strings.TrimSpace(attr(n, "src"))
	}
	if !isWebURL(u) || len(u) > blocks.MaxURLLen {
		c.losses.add(LossEmbed, Dropped, "<iframe> without a usable source", u)
		return nil
	}
	typ := blocks.Embed
	if isVideoHost(u) {
		typ = blocks.Video
	}
	return []blocks.Block{{Type: typ, Media: &blocks.Media{URL: u}}}
}

// mediaContent returns what follows a media element's start tag inside it:
// an object's children, or an iframe's text when its end tag was missing
// and the parser read the rest of the page as raw text. It is ordinary page
// content and is converted after the media block.
func (c *converter) mediaContent(n *html.Node) []*html.Node {
	switch n.DataAtom {
	case atom.Object, atom.Video, atom.Audio:
		return childNodes(n)
	case atom.Iframe:
		text := textContent(n)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
		nodes, err := html.ParseFragment(strings.NewReader(text), ctx)
		if err != nil {
			c.losses.add(LossUnsupported, Dropped, "content inside an <iframe> could not be read", text)
			return nil
		}
		return nodes
	}
	return nil
}

// mediaSource says where a media block's content comes from: a OneNote
// resource when the URL is a Graph resource URL, else a web URL Notion
// links to. It returns nil when neither applies.
func (c *converter) mediaSource(src, mime, name string) *blocks.Media {
	if id := resourceID(src); id != "" {
		if name == "" {
			name = id + extension(mime)
		}
		return &blocks.Media{Resource: &blocks.Resource{ID: id, URL: src, MIME: mime, Name: name}}
	}
	if isWebURL(src) && len(src) <= blocks.MaxURLLen {
		return &blocks.Media{URL: src}
	}
	return nil
}

// resourceID returns the OneNote resource id in a Graph resource URL: the
// path segment after /resources/.
func resourceID(u string) string {
	_, rest, ok := strings.Cut(u, "/resources/")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if id, err := url.PathUnescape(rest); err == nil {
		rest = id
	}
	return strings.TrimSpace(rest)
}

// extension is a file extension for a MIME type, for generated names.
func extension(mime string) string {
	switch strings.ToLower(strings.TrimSpace(mime)) {
	case "image/png":
		return ".png"
	case "image/jpeg", "image/jpg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "image/bmp":
		return ".bmp"
	case "image/tiff":
		return ".tiff"
	case "image/svg+xml":
		return ".svg"
	case "image/webp":
		return ".webp"
	case "application/pdf":
		return ".pdf"
	}
	return ""
}

// isWebURL reports whether u is an absolute http or https URL.
func isWebURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != ""
}

// videoHosts are the sites whose pages Notion's video block plays.
var videoHosts = []string{"youtube.com", "youtu.be", "vimeo.com", "dailymotion.com", "loom.com",
	"wistia.com", "microsoftstream.com", "twitch.tv", "ted.com"}

func isVideoHost(u string) bool {
	p, err := url.Parse(u)
	if err != nil {
		return false
	}
	host := strings.ToLower(p.Hostname())
	for _, h := range videoHosts {
		if host == h || strings.HasSuffix(host, "."+h) {
			return true
		}
	}
	return false
}

// collectResources lists the OneNote resources blocks refer to, each once,
// in order; drawn ink (a Resource without URL, see IsDrawn) is not one.
func collectResources(bs []blocks.Block, drawn []InkImage) []blocks.Resource {
	var out []blocks.Resource
	seen := make(map[string]bool)
	var walk func(bs []blocks.Block)
	walk = func(bs []blocks.Block) {
		for i := range bs {
			if m := bs[i].Media; m != nil && m.Resource != nil && !IsDrawn(*m.Resource, drawn) && !seen[m.Resource.ID] {
				seen[m.Resource.ID] = true
				out = append(out, *m.Resource)
			}
			walk(bs[i].Children)
		}
	}
	walk(bs)
	return out
}
