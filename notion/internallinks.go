package notion

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/notebridge/notebridge/notion/blocks"
)

// InternalLink records where a page written to Notion holds the text of an
// internal onenote: link, so that the link pass can find it in Notion
// whatever happened since: onenote: links are never sent to Notion (see
// blocks.LinkAllowed), so nothing in the written content says which text
// was a link. The writer stores a row's links in PropInternalLinks in the
// request that marks the row done, so a done row's record always
// describes the content it was written with.
type InternalLink struct {
	// Block is the block's position in the page: 1-based indexes of the
	// block and its ancestors, outermost first ("3.2" is the second child
	// of the third block), as Notion lists live children.
	Block string
	// Field is which text of the block: "" for rich_text, "caption", or
	// "cell" (then Cell is the 0-based cell of a table row).
	Field string
	Cell  int
	// Start and Len are the link text's place in that text, in Unicode
	// code points of the field's items joined (an inline equation counts
	// its expression).
	Start int
	Len   int
	// Page is the GUID of the page-id the link named: the target's
	// OneNote link ID (PropLinkID), lower case, no braces.
	Page string
}

// The values of InternalLink.Field.
const (
	fieldRichText = ""
	fieldCaption  = "caption"
	fieldCell     = "cell"
)

// notMigratedNote is added after the text of an internal link whose
// target page was not migrated.
const notMigratedNote = " (OneNote page not migrated)"

// recordLinks finds the runs of a write plan that carry an internal link
// (a PageRef), records where they are, and returns the plan with those
// runs as plain text. Adjacent runs naming the same page are one link.
func recordLinks(bs []blocks.Block) ([]blocks.Block, []InternalLink) {
	var out []InternalLink
	bs = recordBlocks(bs, "", &out)
	return bs, out
}

func recordBlocks(bs []blocks.Block, prefix string, out *[]InternalLink) []blocks.Block {
	if bs == nil {
		return nil
	}
	res := make([]blocks.Block, len(bs))
	for i, b := range bs {
		path := prefix + strconv.Itoa(i+1)
		b.RichText = recordRuns(b.RichText, InternalLink{Block: path}, out)
		b.Caption = recordRuns(b.Caption, InternalLink{Block: path, Field: fieldCaption}, out)
		if b.Cells != nil {
			cells := make([][]blocks.RichText, len(b.Cells))
			for j, cell := range b.Cells {
				cells[j] = recordRuns(cell, InternalLink{Block: path, Field: fieldCell, Cell: j}, out)
			}
			b.Cells = cells
		}
		b.Children = recordBlocks(b.Children, path+".", out)
		res[i] = b
	}
	return res
}

func recordRuns(rt []blocks.RichText, where InternalLink, out *[]InternalLink) []blocks.RichText {
	if !slices.ContainsFunc(rt, func(r blocks.RichText) bool { return r.PageRef != "" }) {
		return rt
	}
	res := slices.Clone(rt)
	pos := 0
	for i := range res {
		r := &res[i]
		n := itemLen(*r)
		if r.PageRef != "" && r.Mention == "" && r.Equation == "" {
			page := normalizeGUID(r.PageRef)
			if last := len(*out) - 1; i > 0 && rt[i-1].PageRef != "" && normalizeGUID(rt[i-1].PageRef) == page &&
				last >= 0 && (*out)[last].sameField(where) && (*out)[last].Start+(*out)[last].Len == pos {
				(*out)[last].Len += n
			} else {
				l := where
				l.Start, l.Len, l.Page = pos, n, page
				*out = append(*out, l)
			}
			// Sent as text (PageRef is not part of Notion's shape); the
			// link pass turns it into a mention.
			r.Link = ""
		}
		pos += n
	}
	return res
}

func (l InternalLink) sameField(o InternalLink) bool {
	return l.Block == o.Block && l.Field == o.Field && l.Cell == o.Cell
}

// itemLen is an item's length in the unit of InternalLink offsets.
func itemLen(r blocks.RichText) int {
	if r.Equation != "" {
		return utf8.RuneCountInString(r.Equation)
	}
	return utf8.RuneCountInString(r.Text)
}

// maxLinkRecord is the most text PropInternalLinks holds: a rich-text
// property of at most 100 items of 2000 characters, with room to spare.
// The request that sets it carries no blocks, so it stays far below
// Notion's 500 KB even with its quotes escaped.
const maxLinkRecord = 90 * blocks.MaxTextLen

// linkRecord is the JSON form of PropInternalLinks, compact so that a
// page of thousands of links fits: the target GUIDs once each, and each
// link as [block, field, cell, start, length, index in Pages], field 0
// for rich_text, 1 for caption, 2 for a table cell.
type linkRecord struct {
	Pages []string            `json:"pages"`
	Links [][]json.RawMessage `json:"links"`
}

var fieldCodes = []string{fieldRichText, fieldCaption, fieldCell}

func marshalLinks(links []InternalLink) []byte {
	rec := linkRecord{Pages: []string{}, Links: [][]json.RawMessage{}}
	index := map[string]int{}
	num := func(n int) json.RawMessage { return json.RawMessage(strconv.Itoa(n)) }
	for _, l := range links {
		i, ok := index[l.Page]
		if !ok {
			i = len(rec.Pages)
			index[l.Page] = i
			rec.Pages = append(rec.Pages, l.Page)
		}
		block, _ := json.Marshal(l.Block)
		rec.Links = append(rec.Links, []json.RawMessage{block, num(slices.Index(fieldCodes, l.Field)), num(l.Cell), num(l.Start), num(l.Len), num(i)})
	}
	raw, _ := json.Marshal(rec)
	return raw
}

// encodeLinks is the PropInternalLinks value of a page's links: as many
// as fit; those that do not fit stay text and are reported.
func encodeLinks(links []InternalLink) ([]blocks.RichText, []Loss) {
	if len(links) == 0 {
		return text(""), nil
	}
	kept := links
	raw := marshalLinks(kept)
	for len(raw) > maxLinkRecord {
		kept = kept[:len(kept)*9/10]
		raw = marshalLinks(kept)
	}
	var losses []Loss
	for _, l := range links[len(kept):] {
		losses = append(losses, Loss{Kind: LossLink, Location: l.location(""),
			Detail: fmt.Sprintf("internal link to OneNote page %s kept as text: the page has more internal links than its row can record", l.Page)})
	}
	return text(string(raw)), losses
}

// decodeLinks reads a PropInternalLinks value ("" is none).
func decodeLinks(s string) ([]InternalLink, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	bad := func(why string, args ...any) error {
		return fmt.Errorf("%w: property %q does not hold a link record: %s", ErrInconsistent, PropInternalLinks, fmt.Sprintf(why, args...))
	}
	var rec linkRecord
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		return nil, bad("%v", err)
	}
	out := make([]InternalLink, 0, len(rec.Links))
	for _, e := range rec.Links {
		var l InternalLink
		var field, page int
		if len(e) != 6 {
			return nil, bad("a link of %d fields", len(e))
		}
		for i, dst := range []any{&l.Block, &field, &l.Cell, &l.Start, &l.Len, &page} {
			if err := json.Unmarshal(e[i], dst); err != nil {
				return nil, bad("%v", err)
			}
		}
		if field < 0 || field >= len(fieldCodes) || page < 0 || page >= len(rec.Pages) {
			return nil, bad("field %d or page %d out of range", field, page)
		}
		l.Field, l.Page = fieldCodes[field], rec.Pages[page]
		out = append(out, l)
	}
	return out, nil
}

// location is where a link is, as losses name places; typ is the
// block's type, if known.
func (l InternalLink) location(typ blocks.Type) string {
	where := "block " + l.Block
	if typ != "" {
		where += " (" + string(typ) + ")"
	}
	switch l.Field {
	case fieldCaption:
		return where + " caption"
	case fieldCell:
		return fmt.Sprintf("%s cell %d", where, l.Cell+1)
	}
	return where
}

// notMigrated is the loss of a link to a page not migrated.
func notMigrated(l InternalLink, typ blocks.Type, linkText string) Loss {
	what := "internal link"
	if linkText != "" {
		what = fmt.Sprintf("link %q", short(linkText))
	}
	return Loss{Kind: LossLink, Location: l.location(typ),
		Detail: fmt.Sprintf("%s points to OneNote page %s, which was not migrated; kept as text", what, l.Page)}
}

// linkMode is how resolved internal links are written.
type linkMode int

const (
	// asMention writes a page mention (Notion shows the page's title).
	asMention linkMode = iota
	// asURL keeps the link text and links it to the page's Notion URL,
	// for when Notion refuses the mention.
	asURL
)

// PageURL is the web address of a Notion page.
func PageURL(id string) string {
	return "https://www.notion.so/" + strings.ReplaceAll(id, "-", "")
}

// fieldText returns the rich text of block b that a link's Field names
// (nil if the block has no such text).
func fieldText(b blocks.Block, l InternalLink) []blocks.RichText {
	switch l.Field {
	case fieldCaption:
		return b.Caption
	case fieldCell:
		if l.Cell >= 0 && l.Cell < len(b.Cells) {
			return b.Cells[l.Cell]
		}
		return nil
	}
	return b.RichText
}

func setFieldText(b *blocks.Block, l InternalLink, rt []blocks.RichText) {
	switch l.Field {
	case fieldCaption:
		b.Caption = rt
	case fieldCell:
		cells := slices.Clone(b.Cells)
		cells[l.Cell] = rt
		b.Cells = cells
	default:
		b.RichText = rt
	}
}

// linksRewritten reports whether block b, as Notion holds it, already
// went through the link pass. A block's links are rewritten in one
// update, so it is enough that one shows the pass's work: a page mention
// (the first write never sends one), or, at a link's recorded place, the
// note of a page not migrated after it or a link to a Notion page over
// it. The links of a text are looked at in order, and the first one the
// pass changed shows it, so the places of those after it (which an added
// note moves) never matter.
func linksRewritten(b blocks.Block, links []InternalLink) bool {
	for _, rt := range [][]blocks.RichText{b.RichText, b.Caption} {
		if slices.ContainsFunc(rt, func(r blocks.RichText) bool { return r.Mention != "" }) {
			return true
		}
	}
	for _, cell := range b.Cells {
		if slices.ContainsFunc(cell, func(r blocks.RichText) bool { return r.Mention != "" }) {
			return true
		}
	}
	links = slices.Clone(links)
	slices.SortStableFunc(links, func(a, b InternalLink) int { return a.Start - b.Start })
	for _, l := range links {
		rt := fieldText(b, l)
		runes := []rune(joinedText(rt))
		end := l.Start + l.Len
		if end <= len(runes) && strings.HasPrefix(string(runes[end:]), notMigratedNote) {
			return true
		}
		if parts, ok := cutRange(rt, l.Start, end); ok && len(parts) > 0 &&
			!slices.ContainsFunc(parts, func(r blocks.RichText) bool { return !strings.HasPrefix(r.Link, "https://www.notion.so/") }) {
			return true
		}
	}
	return false
}

// joinedText is a rich-text array's text in the unit of InternalLink
// offsets.
func joinedText(rt []blocks.RichText) string {
	var b strings.Builder
	for _, r := range rt {
		if r.Equation != "" {
			b.WriteString(r.Equation)
			continue
		}
		b.WriteString(r.Text)
	}
	return b.String()
}

// cutRange returns the items of rt that cover [start, end), text items cut
// at the edges. ok is false if the range is out of bounds or cuts an
// equation, or covers anything but text.
func cutRange(rt []blocks.RichText, start, end int) (parts []blocks.RichText, ok bool) {
	if start < 0 || end <= start {
		return nil, false
	}
	_, rest, ok := splitAt(rt, start)
	if !ok {
		return nil, false
	}
	mid, _, ok := splitAt(rest, end-start)
	if !ok {
		return nil, false
	}
	for _, r := range mid {
		if r.Equation != "" || r.Mention != "" {
			return nil, false
		}
	}
	return mid, true
}

// splitAt cuts rt into the items before offset at and those from it,
// splitting a text item in two if need be; ok is false if at is beyond
// the text or inside an equation.
func splitAt(rt []blocks.RichText, at int) (head, tail []blocks.RichText, ok bool) {
	if at < 0 {
		return nil, nil, false
	}
	pos := 0
	for i, r := range rt {
		if pos == at {
			return rt[:i:i], rt[i:], true
		}
		n := itemLen(r)
		if at < pos+n {
			if r.Equation != "" || r.Mention != "" {
				return nil, nil, false
			}
			runes := []rune(r.Text)
			a, b := r, r
			a.Text, b.Text = string(runes[:at-pos]), string(runes[at-pos:])
			head = append(slices.Clone(rt[:i]), a)
			tail = append([]blocks.RichText{b}, rt[i+1:]...)
			return head, tail, true
		}
		pos += n
	}
	if pos == at {
		return rt, nil, true
	}
	return nil, nil, false
}

// rewriteRecorded rewrites the recorded internal links of one block, as
// Notion holds it: a link to a migrated page (targets maps normalized
// link IDs to Notion page IDs) becomes a mention of it (or, mode asURL, a
// link to it); a link to a page not migrated keeps its text followed by
// notMigratedNote. changed is false when nothing could be rewritten. A
// link not found where it was recorded is reported and left alone.
func rewriteRecorded(b blocks.Block, links []InternalLink, targets map[string]string, mode linkMode) (nb blocks.Block, losses []Loss, changed bool) {
	nb = b
	byField := map[InternalLink][]InternalLink{}
	var order []InternalLink
	for _, l := range links {
		key := InternalLink{Block: l.Block, Field: l.Field, Cell: l.Cell}
		if _, ok := byField[key]; !ok {
			order = append(order, key)
		}
		byField[key] = append(byField[key], l)
	}
	for _, key := range order {
		ls := byField[key]
		slices.SortFunc(ls, func(a, b InternalLink) int { return a.Start - b.Start })
		rt := fieldText(nb, key)
		if rt == nil {
			for _, l := range ls {
				losses = append(losses, notFound(l, b.Type))
			}
			continue
		}
		var out []blocks.RichText
		rest, pos, fieldChanged := rt, 0, false
		for _, l := range ls {
			ok := l.Start >= pos && l.Len > 0
			var head, tail, mid, after []blocks.RichText
			if ok {
				head, tail, ok = splitAt(rest, l.Start-pos)
			}
			if ok {
				mid, after, ok = splitAt(tail, l.Len)
			}
			if ok {
				ok = !slices.ContainsFunc(mid, func(r blocks.RichText) bool { return r.Equation != "" || r.Mention != "" || r.Link != "" })
			}
			if !ok {
				losses = append(losses, notFound(l, b.Type))
				continue
			}
			out = append(out, head...)
			linkText := joinedText(mid)
			if id, found := targets[normalizeGUID(l.Page)]; found {
				if mode == asMention {
					out = append(out, blocks.RichText{Text: linkText, Mention: id, Annotations: mid[0].Annotations})
				} else {
					for _, r := range mid {
						r.Link, r.PageRef = PageURL(id), ""
						out = append(out, r)
					}
				}
			} else {
				out = append(out, mid...)
				out = append(out, blocks.RichText{Text: notMigratedNote, Annotations: mid[len(mid)-1].Annotations})
				losses = append(losses, notMigrated(l, b.Type, linkText))
			}
			fieldChanged = true
			rest, pos = after, l.Start+l.Len
		}
		out = append(out, rest...)
		if !fieldChanged {
			continue
		}
		if len(out) > blocks.MaxRichTextItems {
			for _, l := range ls {
				losses = append(losses, Loss{Kind: LossLink, Location: l.location(b.Type),
					Detail: fmt.Sprintf("internal link to OneNote page %s kept as text: the text would hold more than %d items", l.Page, blocks.MaxRichTextItems)})
			}
			continue
		}
		setFieldText(&nb, key, out)
		changed = true
	}
	return nb, losses, changed && !sameText(b, nb)
}

// sameText reports whether two versions of a block hold the same text.
func sameText(a, b blocks.Block) bool {
	if !slices.Equal(a.RichText, b.RichText) || !slices.Equal(a.Caption, b.Caption) || len(a.Cells) != len(b.Cells) {
		return false
	}
	for i := range a.Cells {
		if !slices.Equal(a.Cells[i], b.Cells[i]) {
			return false
		}
	}
	return true
}

func notFound(l InternalLink, typ blocks.Type) Loss {
	return Loss{Kind: LossLink, Location: l.location(typ),
		Detail: fmt.Sprintf("internal link to OneNote page %s not found where it was written (the page was edited in Notion?); kept as text", l.Page)}
}
