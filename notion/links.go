package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// RewriteLinks returns a copy of bs in which every internal link (a run
// whose PageRef, or whose onenote: Link, names a OneNote page) becomes a
// mention of the Notion page targets maps that OneNote page ID to. A link
// to a page that is not in targets keeps its text, loses the link, and is
// reported as a Loss. OneNote page IDs match without regard to case or
// braces.
func RewriteLinks(bs []blocks.Block, targets map[string]string) ([]blocks.Block, []Loss) {
	norm := make(map[string]string, len(targets))
	for k, v := range targets {
		norm[normalizeGUID(k)] = v
	}
	var losses []Loss
	out, _ := rewriteBlocks(bs, norm, "", &losses)
	return out, losses
}

// rewriteBlocks rewrites the links of bs; changed reports whether any was.
func rewriteBlocks(bs []blocks.Block, targets map[string]string, prefix string, losses *[]Loss) ([]blocks.Block, bool) {
	out := make([]blocks.Block, len(bs))
	any := false
	for i, b := range bs {
		loc := prefix + strconv.Itoa(i+1)
		nb, changed := rewriteBlock(b, targets, loc, losses)
		if len(b.Children) > 0 {
			kids, ch := rewriteBlocks(b.Children, targets, loc+".", losses)
			nb.Children, changed = kids, changed || ch
		}
		out[i] = nb
		any = any || changed
	}
	return out, any
}

// rewriteBlock rewrites the links of one block's own text (not its
// children's).
func rewriteBlock(b blocks.Block, targets map[string]string, loc string, losses *[]Loss) (blocks.Block, bool) {
	where := fmt.Sprintf("block %s (%s)", loc, b.Type)
	var changed bool
	var ch bool
	b.RichText, ch = rewriteRuns(b.RichText, targets, where, losses)
	changed = changed || ch
	b.Caption, ch = rewriteRuns(b.Caption, targets, where+" caption", losses)
	changed = changed || ch
	if len(b.Cells) > 0 {
		cells := make([][]blocks.RichText, len(b.Cells))
		for j, cell := range b.Cells {
			cells[j], ch = rewriteRuns(cell, targets, fmt.Sprintf("%s cell %d", where, j+1), losses)
			changed = changed || ch
		}
		b.Cells = cells
	}
	return b, changed
}

func rewriteRuns(rt []blocks.RichText, targets map[string]string, where string, losses *[]Loss) ([]blocks.RichText, bool) {
	var out []blocks.RichText
	for i, r := range rt {
		ref := r.PageRef
		if ref == "" {
			ref = oneNotePageID(r.Link)
		}
		if ref == "" {
			continue
		}
		if out == nil {
			out = append([]blocks.RichText(nil), rt...)
		}
		nr := r
		nr.PageRef, nr.Link = "", ""
		if id, ok := targets[normalizeGUID(ref)]; ok {
			nr.Mention = id
		} else {
			*losses = append(*losses, Loss{Kind: LossLink, Location: where,
				Detail: fmt.Sprintf("link %q points to OneNote page %s, which was not migrated; kept as text", r.Text, ref)})
		}
		out[i] = nr
	}
	if out == nil {
		return rt, false
	}
	return out, true
}

// oneNotePageID extracts the page ID from a onenote: link
// ("…&page-id={GUID}&end"), or returns "".
func oneNotePageID(link string) string {
	if !strings.HasPrefix(strings.ToLower(link), "onenote:") {
		return ""
	}
	i := strings.Index(strings.ToLower(link), "page-id=")
	if i < 0 {
		return ""
	}
	s := link[i+len("page-id="):]
	if j := strings.IndexAny(s, "&#"); j >= 0 {
		s = s[:j]
	}
	return normalizeGUID(s)
}

func normalizeGUID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "%7B"), "%7b")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "%7D"), "%7d")
	return strings.ToLower(strings.Trim(s, "{}"))
}

// RewritePageLinks is the second pass: once every page of a migration is
// written, it reads page pageID back and rewrites, in place, each block
// whose text links to a OneNote page (see RewriteLinks). Each changed
// block costs one update; the Result counts them as BlocksWritten.
func (c *Client) RewritePageLinks(ctx context.Context, pageID string, targets map[string]string) (res Result, err error) {
	ctx, n := withCounter(ctx)
	defer func() { res.Requests = int(n.Load()) }()
	res.PageID = pageID
	norm := make(map[string]string, len(targets))
	for k, v := range targets {
		norm[normalizeGUID(k)] = v
	}
	err = c.rewriteChildren(ctx, pageID, norm, "", &res)
	return res, err
}

func (c *Client) rewriteChildren(ctx context.Context, parentID string, targets map[string]string, prefix string, res *Result) error {
	raws, err := c.listChildrenRaw(ctx, parentID)
	if err != nil {
		return err
	}
	for i, raw := range raws {
		var head childBlock
		if err := json.Unmarshal(raw, &head); err != nil {
			return fmt.Errorf("notion: decoding block: %w", err)
		}
		if head.Archived || head.InTrash {
			continue
		}
		loc := prefix + strconv.Itoa(i+1)
		var b blocks.Block
		if json.Unmarshal(raw, &b) == nil {
			nb, changed := rewriteBlock(b, targets, loc, &res.Losses)
			if changed {
				if err := c.updateBlockText(ctx, nb, targets); err != nil {
					return err
				}
				res.BlocksWritten++
			}
		}
		if head.HasChildren && head.Type != "child_page" && head.Type != "child_database" {
			if err := c.rewriteChildren(ctx, head.ID, targets, loc+".", res); err != nil {
				return err
			}
		}
	}
	return nil
}

// updateBlockText sets the text (rich_text, caption or cells) of block b.
// If the outcome is unknown the block is read back: it took effect if no
// link is left to rewrite.
func (c *Client) updateBlockText(ctx context.Context, b blocks.Block, targets map[string]string) error {
	bare := b
	bare.ID, bare.Children = "", nil
	raw, err := json.Marshal(bare)
	if err != nil {
		return err
	}
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(raw, &outer); err != nil {
		return err
	}
	path := "/v1/blocks/" + b.ID
	body := map[string]json.RawMessage{string(b.Type): outer[string(b.Type)]}
	return c.do(ctx, call{method: http.MethodPatch, path: path, body: jsonBody(body),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var now blocks.Block
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &now}); err != nil {
				return nil, false, err
			}
			var discard []Loss
			_, changed := rewriteBlock(now, targets, "", &discard)
			return nil, !changed, nil
		}})
}
