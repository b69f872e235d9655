package convert

import (
	"net/url"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// Link is an internal onenote: link on the page.
type Link struct {
	// PageID is the GUID in the link's page-id, without braces, case kept.
	// It is "" for a link to a whole section. It is not a Graph page id:
	// match it against the page-id in each migrated page's
	// links.oneNoteClientUrl.href.
	PageID string
	// SectionID is the GUID in the link's section-id, if any.
	SectionID string
	// URL is the original onenote: URL.
	URL string
	// Text is the linked text.
	Text string
	// Path locates the rich text that carries the link in Result.Blocks,
	// e.g. "blocks[3].children[0].rich_text[1]" or
	// "blocks[2].children[1].cells[0][0]".
	Path string
}

// setLink links rt to href, which keptAsLink accepts. An onenote: page
// link gets the target page's GUID as PageRef instead: the writer sends it
// as text and the link pass makes it a mention of the migrated page.
func (c *converter) setLink(rt *blocks.RichText, href string, near func() string) {
	if page, _ := oneNoteTarget(href); page != "" && hasPrefixFold(href, "onenote:") {
		rt.PageRef = page
		if len(href) <= blocks.MaxURLLen {
			rt.Link = href
		}
		return
	}
	if !blocks.LinkAllowed(href) {
		c.losses.addLazy(LossLink, Degraded, "link longer than Notion allows dropped", near)
		return
	}
	rt.Link = href
}

// keptAsLink reports whether an anchor's href stays a link: a web URL
// (setLink drops one too long to send), or an onenote: link to a page.
func keptAsLink(href string) bool {
	if blocks.IsWebURL(href) {
		return true
	}
	page, _ := oneNoteTarget(href)
	return page != "" && hasPrefixFold(href, "onenote:")
}

// textLink keeps an anchor whose href Notion does not accept as a link
// (see blocks.LinkAllowed) as text: runs[start:] are its text, and the
// target is added after it in the anchor's style, "text (file:///…)",
// unless the text already shows it. A relative link is kept as its text
// alone. Either way the loss is reported, naming the scheme.
func (c *converter) textLink(ic *inlineContent, start int, href string, st textStyle, near func() string) {
	scheme := blocks.LinkScheme(href)
	if scheme == "" {
		c.losses.addLazy(LossLink, Degraded, "link "+quote(excerpt(href))+" is not an absolute URL; kept as text", near)
		return
	}
	what := scheme + ": link"
	if scheme == "onenote" {
		what = "onenote: link to a section or notebook (not to a page)"
	}
	c.losses.addLazy(LossLink, Degraded, what+" "+quote(excerpt(href))+" kept as text with its target shown: Notion links only to http and https URLs", near)
	shown := strings.TrimSpace(plainRuns(ic.runs[start:]))
	_, opaque, _ := strings.Cut(href, ":")
	if shown == href || shown == strings.TrimPrefix(opaque, "//") {
		return
	}
	sep := " ("
	if shown == "" {
		sep = "("
	}
	ic.runs = append(ic.runs, run{text: sep + href + ")", st: st})
}

// oneNoteTarget returns the page-id and section-id GUIDs of an onenote:
// link, without braces.
func oneNoteTarget(href string) (pageID, sectionID string) {
	_, frag, _ := strings.Cut(href, "#")
	for part := range strings.SplitSeq(frag, "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "page-id":
			pageID = guid(v)
		case "section-id":
			sectionID = guid(v)
		}
	}
	return pageID, sectionID
}

// guid strips the braces (plain or percent-encoded) around a GUID and
// checks that what is left looks like one.
func guid(v string) string {
	if u, err := url.PathUnescape(v); err == nil {
		v = u
	}
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "{"), "}"))
	if len(v) != 36 {
		return ""
	}
	for i, r := range v {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return ""
			}
		case r >= '0' && r <= '9', r >= 'a' && r <= 'f', r >= 'A' && r <= 'F':
		default:
			return ""
		}
	}
	return v
}

// collectLinks finds the onenote: links in a block tree.
func collectLinks(bs []blocks.Block) []Link {
	w := linkWalker{path: pathStack{{name: "blocks"}}}
	w.blocks(bs)
	return w.out
}

type linkWalker struct {
	path pathStack
	out  []Link
}

func (w *linkWalker) blocks(bs []blocks.Block) {
	for i := range bs {
		w.path.index(i)
		w.path.field("rich_text")
		w.items(bs[i].RichText)
		w.path.pop(1)
		for j, cell := range bs[i].Cells {
			w.path.field("cells")
			w.path.index(j)
			w.items(cell)
			w.path.pop(2)
		}
		w.path.field("children")
		w.blocks(bs[i].Children)
		w.path.pop(2)
	}
}

func (w *linkWalker) items(rt []blocks.RichText) {
	for i, r := range rt {
		if r.PageRef == "" && !hasPrefixFold(r.Link, "onenote:") {
			continue
		}
		_, section := oneNoteTarget(r.Link)
		w.path.index(i)
		w.out = append(w.out, Link{PageID: r.PageRef, SectionID: section, URL: r.Link, Text: r.Text, Path: w.path.String()})
		w.path.pop(1)
	}
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case.
func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
