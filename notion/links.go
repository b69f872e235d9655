package notion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// RewriteLinks returns a copy of bs in which every internal link (a run
// whose PageRef, or whose onenote: Link, names a OneNote page) becomes a
// mention of the Notion page targets maps that OneNote page ID to. A link
// to a page that is not in targets keeps its text, followed by "(OneNote
// page not migrated)", loses the link, and is reported as a Loss. OneNote page IDs match without regard to case or
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
			nr.Text += notMigratedNote
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

// RewritePageLinks is the second pass for one page: it reads row pageID
// and rewrites its internal links (see RewriteRowLinks).
func (c *Client) RewritePageLinks(ctx context.Context, pageID string, targets map[string]string) (res Result, err error) {
	var p pageObject
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pages/" + pageID, out: &p}); err != nil {
		return Result{PageID: pageID}, fmt.Errorf("notion: reading row %s: %w", pageID, err)
	}
	return c.RewriteRowLinks(ctx, rowOf(p), targets)
}

// RewriteRowLinks is the second pass: once every page of a migration is
// written, it rewrites, in place, the internal links of row r's page.
// targets maps OneNote link IDs (the page-id GUIDs links name pages by)
// to Notion page IDs. Where the row records its links (PropInternalLinks,
// written as text), each becomes a mention of its target's page (or, if
// Notion refuses the mention, a link to the page's Notion URL); a link
// to a page not in targets keeps its text, followed by "(OneNote page not
// migrated)", and is reported as a Loss. A row written before rows
// recorded their links is read back block by block and its onenote:
// links rewritten (see RewriteLinks). Each changed block costs one update
// (counted in BlocksWritten); a block already rewritten is recognised
// and left alone, so calling it again after a crash goes on where it
// stopped.
func (c *Client) RewriteRowLinks(ctx context.Context, r Row, targets map[string]string) (res Result, err error) {
	ctx, n := withCounter(ctx)
	defer func() { res.Requests = int(n.Load()) }()
	res.PageID = r.PageID
	norm := make(map[string]string, len(targets))
	for k, v := range targets {
		norm[normalizeGUID(k)] = v
	}
	links, err := decodeLinks(r.linkRecord)
	if err != nil {
		return res, fmt.Errorf("notion: row %s: %w", r.PageID, err)
	}
	if len(links) == 0 {
		err = c.rewriteChildren(ctx, r.PageID, norm, "", &res)
		return res, err
	}
	err = c.rewriteRecordedLinks(ctx, r.PageID, links, norm, &res)
	return res, err
}

// rewriteRecordedLinks rewrites the recorded links of page pageID, block
// by block, listing only the blocks on the way to them.
func (c *Client) rewriteRecordedLinks(ctx context.Context, pageID string, links []InternalLink, targets map[string]string, res *Result) error {
	byBlock := map[string][]InternalLink{}
	var order []string
	for _, l := range links {
		if _, ok := byBlock[l.Block]; !ok {
			order = append(order, l.Block)
		}
		byBlock[l.Block] = append(byBlock[l.Block], l)
	}
	tree := &liveTree{c: c, pageID: pageID, kids: map[string][]json.RawMessage{}}
	for _, path := range order {
		ls := byBlock[path]
		raw, err := tree.block(ctx, path)
		if err != nil {
			return err
		}
		var b blocks.Block
		if raw == nil || json.Unmarshal(raw, &b) != nil {
			for _, l := range ls {
				res.Losses = append(res.Losses, notFound(l, ""))
			}
			continue
		}
		if linksRewritten(b, ls) {
			// Rewritten by an earlier call: report what it reported.
			for _, l := range ls {
				if _, ok := targets[normalizeGUID(l.Page)]; !ok {
					res.Losses = append(res.Losses, notMigrated(l, b.Type, ""))
				}
			}
			continue
		}
		done := func(now blocks.Block) bool { return linksRewritten(now, ls) }
		nb, losses, changed := rewriteRecorded(b, ls, targets, asMention)
		if changed {
			err = c.updateBlockText(ctx, nb, done)
			if errors.Is(err, ErrValidation) {
				// A mention Notion will not take (a target it cannot
				// see): link the text to the pages instead.
				c.log.LogAttrs(ctx, slog.LevelWarn, "notion refused page mentions; linking to the pages' URLs instead",
					slog.String("block", b.ID), slog.String("error", err.Error()))
				nb, losses, changed = rewriteRecorded(b, ls, targets, asURL)
				if changed {
					err = c.updateBlockText(ctx, nb, done)
				}
			}
			if err != nil {
				return err
			}
			if changed {
				res.BlocksWritten++
			}
		}
		res.Losses = append(res.Losses, losses...)
	}
	return nil
}

// liveTree finds a page's blocks by position (InternalLink.Block),
// listing each parent's live children once.
type liveTree struct {
	c      *Client
	pageID string
	kids   map[string][]json.RawMessage // parent path ("" for the page) -> live children
}

// block returns the block at path, or nil if there is none.
func (t *liveTree) block(ctx context.Context, path string) (json.RawMessage, error) {
	parentID, parentPath := t.pageID, ""
	parts := strings.Split(path, ".")
	for i, p := range parts {
		kids, ok := t.kids[parentPath]
		if !ok {
			raws, err := t.c.listChildrenRaw(ctx, parentID)
			if err != nil {
				return nil, err
			}
			for _, raw := range raws {
				var head childBlock
				if err := json.Unmarshal(raw, &head); err != nil {
					return nil, fmt.Errorf("notion: decoding block: %w", err)
				}
				if !head.Archived && !head.InTrash {
					kids = append(kids, raw)
				}
			}
			t.kids[parentPath] = kids
		}
		idx, err := strconv.Atoi(p)
		if err != nil || idx < 1 || idx > len(kids) {
			return nil, nil
		}
		raw := kids[idx-1]
		if i == len(parts)-1 {
			return raw, nil
		}
		var head childBlock
		if err := json.Unmarshal(raw, &head); err != nil {
			return nil, fmt.Errorf("notion: decoding block: %w", err)
		}
		if !head.HasChildren {
			return nil, nil
		}
		parentID, parentPath = head.ID, parentPath+"."+p
	}
	return nil, nil
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
				done := func(now blocks.Block) bool {
					var discard []Loss
					_, changed := rewriteBlock(now, targets, "", &discard)
					return !changed
				}
				if err := c.updateBlockText(ctx, nb, done); err != nil {
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
// If the outcome is unknown the block is read back: applied tells whether
// the update took effect.
func (c *Client) updateBlockText(ctx context.Context, b blocks.Block, applied func(blocks.Block) bool) error {
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
			return nil, applied(now), nil
		}})
}
