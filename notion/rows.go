package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/report"
)

// Row is a section database row as a migration reads it back.
type Row struct {
	// PageID is the row's Notion page ID.
	PageID string
	// OneNotePageID is the OneNote page it holds (PropOneNoteID).
	OneNotePageID string
	// Status is PropStatus: StatusWriting, StatusDone, or "".
	Status string
	// LastModified is PropLastModified as stored (ISO 8601), or "".
	LastModified string
	// LinkID is PropLinkID: the page-id GUID internal links name the page
	// by ("" for rows written before rows held it).
	LinkID string
	// LinksPending is PropLinksPending: its internal links still point at
	// OneNote.
	LinksPending bool
	// Title is the row's title (PropName).
	Title string
	// Order is PropOrder (0 when unset).
	Order int
	// LossRecord is PropLossRecord as stored (see report.Decode).
	LossRecord string
	// ContentHash is PropContentHash ("" for rows written before it).
	ContentHash string
	// ParentRow is the row PropParent names ("" for a top-level page).
	ParentRow string
	// SectionPath is PropSectionPath.
	SectionPath string
	// Verification is PropVerification (readback.State as text, "" when
	// not verified) and Written is PropWritten (readback.Summary.Encode).
	Verification string
	Written      string
	// linkRecord is PropInternalLinks as stored: where the page's
	// internal links are (see InternalLink).
	linkRecord string
}

// rowOf reads a row's properties.
func rowOf(p pageObject) Row {
	r := Row{PageID: p.ID, OneNotePageID: plain(p.Properties[PropOneNoteID].RichText),
		LinkID: plain(p.Properties[PropLinkID].RichText), Title: plain(p.Properties[PropName].Title),
		linkRecord: plain(p.Properties[PropInternalLinks].RichText)}
	if s := p.Properties[PropStatus].Select; s != nil {
		r.Status = s.Name
	}
	if d := p.Properties[PropLastModified].Date; d != nil {
		r.LastModified = d.Start
	}
	if b := p.Properties[PropLinksPending].Checkbox; b != nil {
		r.LinksPending = *b
	}
	if n := p.Properties[PropOrder].Number; n != nil {
		r.Order = int(*n)
	}
	r.LossRecord = plain(p.Properties[PropLossRecord].RichText)
	r.ContentHash = plain(p.Properties[PropContentHash].RichText)
	r.SectionPath = plain(p.Properties[PropSectionPath].RichText)
	if v := p.Properties[PropVerification].Select; v != nil {
		r.Verification = v.Name
	}
	r.Written = plain(p.Properties[PropWritten].RichText)
	if rel := p.Properties[PropParent].Relation; len(rel) > 0 {
		r.ParentRow = rel[0].ID
	}
	return r
}

// RowFilter narrows Rows. The zero value reads every live row.
type RowFilter struct {
	// Done keeps only rows marked done.
	Done bool
	// LinksPending keeps only rows whose internal links are still to be
	// rewritten.
	LinksPending bool
	// OneNoteIDs, when set, keeps only the rows of these OneNote pages
	// (PropOneNoteID). At most MaxRowIDs: Notion takes at most 100
	// conditions in one compound filter.
	OneNoteIDs []string
}

// MaxRowIDs is the most OneNote page IDs one RowFilter names.
const MaxRowIDs = 100

// Rows calls fn for each live (not archived) row of section database db
// that matches f, 100 rows per request, through the Client's pacing and
// retries. It stops at fn's first error and returns it.
func (c *Client) Rows(ctx context.Context, db string, f RowFilter, fn func(Row) error) error {
	if db == "" {
		return fmt.Errorf("notion: Rows needs a database ID")
	}
	if len(f.OneNoteIDs) > MaxRowIDs {
		return fmt.Errorf("notion: Rows asks for %d OneNote pages, at most %d", len(f.OneNoteIDs), MaxRowIDs)
	}
	var and []any
	if len(f.OneNoteIDs) > 0 {
		or := make([]any, len(f.OneNoteIDs))
		for i, id := range f.OneNoteIDs {
			or[i] = map[string]any{"property": PropOneNoteID, "rich_text": map[string]any{"equals": id}}
		}
		and = append(and, map[string]any{"or": or})
	}
	if f.Done {
		and = append(and, map[string]any{"property": PropStatus, "select": map[string]any{"equals": StatusDone}})
	}
	if f.LinksPending {
		and = append(and, map[string]any{"property": PropLinksPending, "checkbox": map[string]any{"equals": true}})
	}
	q := map[string]any{"page_size": 100}
	switch len(and) {
	case 0:
	case 1:
		q["filter"] = and[0]
	default:
		q["filter"] = map[string]any{"and": and}
	}
	for {
		var res listResponse
		path, err := c.queryPath(ctx, db)
		if err != nil {
			return err
		}
		if err := c.do(ctx, call{method: http.MethodPost, path: path, body: jsonBody(q), out: &res,
			// A query changes nothing: sending it again is safe.
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }}); err != nil {
			return fmt.Errorf("notion: reading the rows of database %s: %w", db, err)
		}
		for _, raw := range res.Results {
			var p pageObject
			if err := json.Unmarshal(raw, &p); err != nil {
				return fmt.Errorf("notion: decoding row: %w", err)
			}
			if p.Archived || p.InTrash {
				continue
			}
			if err := fn(rowOf(p)); err != nil {
				return err
			}
		}
		if !res.HasMore || res.NextCursor == nil {
			return nil
		}
		q["start_cursor"] = *res.NextCursor
	}
}

// MarkLinksRewritten clears PropLinksPending on row r once its internal
// links are rewritten, and adds to its loss properties what the link pass
// could not carry over (linkLosses: links whose page was not migrated, a
// page Notion refused to change), so the migration report and the JSON
// report built from the rows hold them. The entries are added to the
// record r was read with: marking it again from the same read writes the
// same.
func (c *Client) MarkLinksRewritten(ctx context.Context, r Row, linkLosses []report.Entry) error {
	props := map[string]any{PropLinksPending: map[string]any{"checkbox": false}}
	if len(linkLosses) > 0 {
		es, err := report.Decode(r.LossRecord)
		if err != nil {
			// A person edited the record: the link pass's entries replace it.
			es = nil
		}
		for k, v := range lossProperties(report.Merge(append(es, linkLosses...))) {
			props[k] = v
		}
	}
	return c.setProps(ctx, r.PageID, props,
		func(p pageObject) bool { b := p.Properties[PropLinksPending].Checkbox; return b != nil && !*b })
}

// setLinkID stores a row's PropLinkID.
func (c *Client) setLinkID(ctx context.Context, pageID, linkID string) error {
	return c.setProps(ctx, pageID, map[string]any{PropLinkID: map[string]any{"rich_text": text(linkID)}},
		func(p pageObject) bool { return plain(p.Properties[PropLinkID].RichText) == linkID })
}

// setProps sets properties of a row; if the outcome is unknown the row is
// read back and applied tells whether they took effect.
func (c *Client) setProps(ctx context.Context, pageID string, props map[string]any, applied func(pageObject) bool) error {
	path := "/v1/pages/" + pageID
	return c.do(ctx, call{method: http.MethodPatch, path: path, body: jsonBody(map[string]any{"properties": props}),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var p pageObject
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &p}); err != nil {
				return nil, false, err
			}
			return nil, applied(p), nil
		}})
}

// MaxUploadBytes returns the workspace's cap on one file upload, as
// GET /v1/users/me reports it (read once per Client); 0 means no cap was
// reported.
func (c *Client) MaxUploadBytes(ctx context.Context) (int64, error) {
	return c.workspaceMaxFileSize(ctx)
}

// plain is the text of a rich-text array.
func plain(rt []blocks.RichText) string {
	var b strings.Builder
	for _, r := range rt {
		b.WriteString(r.Text)
	}
	return b.String()
}
