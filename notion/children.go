package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
)

// listChildren returns every child of a block or page, following
// pagination.
func (c *Client) listChildren(ctx context.Context, parentID string) ([]childBlock, error) {
	raws, err := c.listChildrenRaw(ctx, parentID)
	if err != nil {
		return nil, err
	}
	out := make([]childBlock, 0, len(raws))
	for _, r := range raws {
		var b childBlock
		if err := json.Unmarshal(r, &b); err != nil {
			return nil, fmt.Errorf("notion: decoding children of %s: %w", parentID, err)
		}
		if b.Archived || b.InTrash {
			continue
		}
		out = append(out, b)
	}
	return out, nil
}

// listChildrenRaw returns the children of a block or page as Notion
// shapes them.
func (c *Client) listChildrenRaw(ctx context.Context, parentID string) ([]json.RawMessage, error) {
	var all []json.RawMessage
	cursor := ""
	for {
		q := url.Values{"page_size": {"100"}}
		if cursor != "" {
			q.Set("start_cursor", cursor)
		}
		var page listResponse
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/blocks/" + parentID + "/children", query: q, out: &page}); err != nil {
			return nil, err
		}
		all = append(all, page.Results...)
		if !page.HasMore || page.NextCursor == nil || *page.NextCursor == "" {
			return all, nil
		}
		cursor = *page.NextCursor
	}
}

// deleteBlock archives a block (and with it its subtree). If the outcome
// is unknown, the block is read back: already archived (or gone) means
// done.
func (c *Client) deleteBlock(ctx context.Context, id string) error {
	path := "/v1/blocks/" + id
	return c.do(ctx, call{method: http.MethodDelete, path: path,
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var b childBlock
			err := c.do(ctx, call{method: http.MethodGet, path: path, out: &b})
			if isNotFound(err) {
				return nil, true, nil
			}
			if err != nil {
				return nil, false, err
			}
			return nil, b.Archived || b.InTrash, nil
		}})
}

// clearChildren archives every child of a page.
func (c *Client) clearChildren(ctx context.Context, pageID string) error {
	kids, err := c.listChildren(ctx, pageID)
	if err != nil {
		return err
	}
	for _, k := range kids {
		if err := c.deleteBlock(ctx, k.ID); err != nil {
			return fmt.Errorf("notion: clearing page %s: %w", pageID, err)
		}
	}
	return nil
}
