package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// MoveRow moves row pageID into section database db with the "Move a
// page" endpoint (POST /v1/pages/{id}/move): the row keeps its Notion page
// ID and content, so mentions of it and links to it in other pages still
// lead to it. The parent is sent as database_id, the 2022-06-28 spelling
// this client speaks; the endpoint documents page_id and data_source_id
// (see emulator/notion/README.md for what is assumed). Moving a row that
// is already there changes nothing.
func (c *Client) MoveRow(ctx context.Context, pageID, db string) error {
	path := "/v1/pages/" + pageID
	var p pageObject
	if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &p}); err != nil {
		return fmt.Errorf("notion: reading row %s before moving it: %w", pageID, err)
	}
	if sameID(p.Parent.DatabaseID, db) {
		return nil
	}
	body := map[string]any{"parent": map[string]any{"type": "database_id", "database_id": db}}
	err := c.do(ctx, call{method: http.MethodPost, path: path + "/move", body: jsonBody(body),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var now pageObject
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &now}); err != nil {
				return nil, false, err
			}
			return nil, sameID(now.Parent.DatabaseID, db), nil
		}})
	if err != nil {
		return fmt.Errorf("notion: moving row %s to database %s: %w", pageID, db, err)
	}
	return nil
}

// RowUpdate is what a sync run sets on a row it did not write again: a
// new title, a new OneNote page ID (a moved page), a new timestamp (a
// wobble). Empty fields are left alone.
type RowUpdate struct {
	Title         string
	OneNotePageID string
	SectionPath   string
	LinkID        string
	Link          string
	LastModified  time.Time
	Order         int
	// ClearParent empties PropParent (a moved row's parent was a row of
	// its old database).
	ClearParent bool
}

// UpdateRow sets the properties u names on row pageID. Repeating it is
// harmless.
func (c *Client) UpdateRow(ctx context.Context, pageID string, u RowUpdate) error {
	props := map[string]any{}
	if u.Title != "" {
		props[PropName] = map[string]any{"title": text(u.Title)}
	}
	if u.OneNotePageID != "" {
		props[PropOneNoteID] = map[string]any{"rich_text": text(u.OneNotePageID)}
	}
	if u.SectionPath != "" {
		props[PropSectionPath] = map[string]any{"rich_text": text(u.SectionPath)}
	}
	if u.LinkID != "" {
		props[PropLinkID] = map[string]any{"rich_text": text(u.LinkID)}
	}
	if u.Link != "" && blocks.IsWebURL(u.Link) && blocks.UTF16Len(u.Link) <= blocks.MaxURLLen {
		props[PropLink] = map[string]any{"url": u.Link}
	}
	if !u.LastModified.IsZero() {
		props[PropLastModified] = dateValue(u.LastModified)
	}
	if u.Order > 0 {
		props[PropOrder] = map[string]any{"number": u.Order}
	}
	if u.ClearParent {
		props[PropParent] = map[string]any{"relation": []map[string]any{}}
	}
	if len(props) == 0 {
		return nil
	}
	err := c.setProps(ctx, pageID, props, func(p pageObject) bool {
		r := rowOf(p)
		return (u.Title == "" || r.Title == u.Title) && (u.OneNotePageID == "" || r.OneNotePageID == u.OneNotePageID) &&
			(u.LastModified.IsZero() || sameTime(r.LastModified, u.LastModified))
	})
	if err != nil {
		return fmt.Errorf("notion: updating row %s: %w", pageID, err)
	}
	return nil
}

// ArchiveRow moves row pageID to the trash (a page deleted in OneNote,
// when the operator chose to archive such pages). Archiving a row already
// in the trash changes nothing (Notion refuses edits of an archived page,
// so it is looked at first).
func (c *Client) ArchiveRow(ctx context.Context, pageID string) error {
	var p pageObject
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pages/" + pageID, out: &p}); err != nil {
		return fmt.Errorf("notion: reading row %s before archiving it: %w", pageID, err)
	}
	if p.Archived || p.InTrash {
		return nil
	}
	if err := c.archivePage(ctx, pageID); err != nil {
		return fmt.Errorf("notion: archiving row %s: %w", pageID, err)
	}
	return nil
}

// syncIcon marks a sync run's entry on the migration report page.
const syncIcon = "🔄"

// SyncEntry is one sync run's entry on the report page: a headline and a
// line per change.
type SyncEntry struct {
	Headline string
	Lines    []string
}

// AppendSyncReport appends e to the notebook's ReportTitle page (made if
// missing) as a callout, after the entries of earlier runs. An entry with
// the same headline already there is not appended again, so a retried
// activity appends once. It returns the report page's ID.
func (c *Client) AppendSyncReport(ctx context.Context, notebookPageID string, e SyncEntry) (string, error) {
	id, err := c.EnsurePage(ctx, notebookPageID, ReportTitle)
	if err != nil {
		return "", err
	}
	now, err := c.readTree(ctx, id)
	if err != nil {
		return "", err
	}
	for _, b := range syncEntries(now) {
		if plainRuns(b.RichText) == e.Headline {
			return id, nil
		}
	}
	b := blocks.Block{Type: blocks.Callout, Icon: syncIcon, RichText: text(e.Headline)}
	for _, l := range e.Lines {
		b.Children = append(b.Children, blocks.Block{Type: blocks.BulletedListItem, RichText: text(l)})
	}
	bs, _ := fitText([]blocks.Block{b})
	batches, err := splitBatches(bs, c.limits)
	if err != nil {
		return "", err
	}
	w := &pageWriter{c: c, media: newMedia(c, nil), counts: map[string]int{id: len(now)}}
	if err := w.appendBatches(ctx, id, batches); err != nil {
		return "", fmt.Errorf("notion: appending the sync report: %w", err)
	}
	return id, nil
}

// syncEntries are the sync runs' entries among a report page's blocks.
func syncEntries(bs []blocks.Block) []blocks.Block {
	var out []blocks.Block
	for _, b := range bs {
		if b.Type == blocks.Callout && b.Icon == syncIcon {
			b.ID = ""
			out = append(out, b)
		}
	}
	return out
}

func plainRuns(rt []blocks.RichText) string {
	var s strings.Builder
	for _, r := range rt {
		s.WriteString(r.Text)
	}
	return s.String()
}

// sameID compares Notion IDs with or without dashes.
func sameID(a, b string) bool {
	return a != "" && strings.ReplaceAll(a, "-", "") == strings.ReplaceAll(b, "-", "")
}
