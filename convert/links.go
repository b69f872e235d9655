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

// linkSchemes are the URL schemes kept as links.
var linkSchemes = map[string]bool{"http": true, "https": true, "mailto": true, "tel": true,
	"onenote": true, "ftp": true, "sftp": true, "file": true, "ms-word": true, "ms-excel": true,
	"ms-powerpoint": true, "teams": true, "msteams": true, "sip": true, "skype": true}

// setLink links rt to href. onenote: links also get the target page's GUID
// as PageRef, for the writer to rewrite.
func (c *converter) setLink(rt *blocks.RichText, href string, near func() string) {
	scheme, _, ok := strings.Cut(href, ":")
	scheme = strings.ToLower(scheme)
	if !ok || !linkSchemes[scheme] {
		c.losses.addLazy(LossLink, Degraded, "link "+quote(excerpt(href))+" is not an absolute URL; kept as text", near)
		return
	}
	if scheme == "onenote" {
		rt.PageRef, _ = oneNoteTarget(href)
	}
	if len(href) > blocks.MaxURLLen {
		c.losses.addLazy(LossLink, Degraded, "link longer than Notion allows dropped", near)
		return
	}
	rt.Link = href
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
