package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// MoveRow moves row pageID into section database db with the "Move a
// page" endpoint (POST /v1/pages/{id}/move): the row keeps its Notion page
// ID and content, so mentions of it and links to it in other pages still
// lead to it. The parent is the database's data source, as the endpoint
// documents. Moving a row that is already there changes nothing.
func (c *Client) MoveRow(ctx context.Context, pageID, db string) error {
	path := "/v1/pages/" + pageID
	var p pageObject
	if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &p}); err != nil {
		return fmt.Errorf("notion: reading row %s before moving it: %w", pageID, err)
	}
	if SameID(p.Parent.DatabaseID, db) {
		return nil
	}
	parent, err := c.rowParent(ctx, db)
	if err != nil {
		return fmt.Errorf("notion: moving row %s to database %s: %w", pageID, db, err)
	}
	body := map[string]any{"parent": parent}
	err = c.do(ctx, call{method: http.MethodPost, path: path + "/move", body: jsonBody(body),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var now pageObject
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &now}); err != nil {
				return nil, false, err
			}
			return nil, SameID(now.Parent.DatabaseID, db), nil
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
	// Status, if set, is PropStatus's new value (StatusDeletedKept).
	Status string
	// Parent, when SetParent, is the row PropParent must name ("" for a
	// top-level page).
	Parent    string
	SetParent bool
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
	if u.Status != "" {
		props[PropStatus] = map[string]any{"select": map[string]any{"name": u.Status}}
	}
	if u.ClearParent || (u.SetParent && u.Parent == "") {
		props[PropParent] = map[string]any{"relation": []map[string]any{}}
	} else if u.SetParent {
		props[PropParent] = map[string]any{"relation": []map[string]any{{"id": u.Parent}}}
	}
	if len(props) == 0 {
		return nil
	}
	err := c.setProps(ctx, pageID, props, func(p pageObject) bool {
		r := rowOf(p)
		return (u.Title == "" || r.Title == u.Title) && (u.OneNotePageID == "" || r.OneNotePageID == u.OneNotePageID) &&
			(u.LastModified.IsZero() || sameTime(r.LastModified, u.LastModified)) &&
			(!u.SetParent || SameID(r.ParentRow, u.Parent))
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

// syncIcon marks a sync run's entry on the migration report page, and
// totalsIcon the totals over every run.
const (
	syncIcon   = "🔄"
	totalsIcon = "🧮"
)

// MaxSyncEntries is how many sync runs' entries the report page keeps: the
// latest, under the totals over every run. A scheduled sync runs many
// times a day; a page that kept every entry would grow without bound, and
// a person reads the last few runs and the sums, not a year of them.
const MaxSyncEntries = 10

// SyncEntry is one sync run's entry on the report page: a headline, a line
// per change, and its counts, which are added to the page's totals.
type SyncEntry struct {
	// Key names the run (its workflow ID): the totals name the run they
	// counted last by it.
	Key      string
	Headline string
	Lines    []string
	Counts   SyncCounts
}

// SyncCounts are what a sync run changed, summed over runs on the report
// page.
type SyncCounts struct {
	Runs, Added, Updated, Renamed, Moved, Deleted, Placed int
}

// totalsLabels name SyncCounts on the totals line, in its order.
var totalsLabels = []string{"runs that changed something", "added", "updated", "renamed", "moved", "deleted in OneNote", "placed again"}

func (t *SyncCounts) fields() []*int {
	return []*int{&t.Runs, &t.Added, &t.Updated, &t.Renamed, &t.Moved, &t.Deleted, &t.Placed}
}

// totalsText is the totals callout's text; last is the headline of the
// run counted last, so a retried append counts a run once.
func totalsText(t SyncCounts, last string) string {
	var parts []string
	for i, f := range t.fields() {
		parts = append(parts, fmt.Sprintf("%d %s", *f, totalsLabels[i]))
	}
	return "Sync totals: " + strings.Join(parts, ", ") + ". Last run counted: " + last
}

// parseTotals reads a totals callout's text.
func parseTotals(s string) (SyncCounts, string) {
	var t SyncCounts
	body, last, _ := strings.Cut(s, ". Last run counted: ")
	body = strings.TrimPrefix(body, "Sync totals: ")
	fs := t.fields()
	for i, part := range strings.Split(body, ", ") {
		if i >= len(fs) {
			break
		}
		n, label, _ := strings.Cut(part, " ")
		if v, err := strconv.Atoi(n); err == nil && label == totalsLabels[i] {
			*fs[i] = v
		}
	}
	return t, last
}

func (t SyncCounts) plus(o SyncCounts) SyncCounts {
	a, b := t.fields(), o.fields()
	for i := range a {
		*a[i] += *b[i]
	}
	return t
}

// AppendSyncReport appends e to the notebook's ReportTitle page (made if
// missing) as a callout, after the entries of earlier runs, adds its
// counts to the totals callout, and drops the oldest entries beyond
// MaxSyncEntries (their runs stay in the totals). An entry with the same
// headline already there is not appended again, and the totals name the
// run they counted last, so a retried activity appends and counts once.
// It returns the report page's ID.
func (c *Client) AppendSyncReport(ctx context.Context, notebookPageID string, e SyncEntry) (string, error) {
	id, err := c.EnsurePage(ctx, notebookPageID, ReportTitle)
	if err != nil {
		return "", err
	}
	now, err := c.readTree(ctx, id)
	if err != nil {
		return "", err
	}
	added, err := c.countSyncRun(ctx, id, now, e)
	if err != nil {
		return "", err
	}
	there := false
	for _, b := range syncEntries(now) {
		if b.Icon == syncIcon && plainRuns(b.RichText) == e.Headline {
			there = true
		}
	}
	if !there {
		b := blocks.Block{Type: blocks.Callout, Icon: syncIcon, RichText: text(e.Headline)}
		for _, l := range e.Lines {
			b.Children = append(b.Children, blocks.Block{Type: blocks.BulletedListItem, RichText: text(l)})
		}
		bs, _ := fitText([]blocks.Block{b})
		batches, err := splitBatches(bs, c.limits)
		if err != nil {
			return "", err
		}
		w := &pageWriter{c: c, media: newMedia(c, nil), counts: map[string]int{id: len(now) + added}}
		if err := w.appendBatches(ctx, id, batches); err != nil {
			return "", fmt.Errorf("notion: appending the sync report: %w", err)
		}
	}
	if err := c.trimSyncEntries(ctx, id); err != nil {
		return "", err
	}
	return id, nil
}

// key is what the totals name e by: its Key, or its headline.
func (e SyncEntry) key() string {
	if e.Key != "" {
		return e.Key
	}
	return e.Headline
}

// countSyncRun adds e's counts to the report page's totals callout (made
// before the first entry if missing), unless it counted e already. It
// returns the number of blocks it appended to the page (0 or 1).
func (c *Client) countSyncRun(ctx context.Context, pageID string, now []blocks.Block, e SyncEntry) (int, error) {
	for _, b := range now {
		if b.Type != blocks.Callout || b.Icon != totalsIcon {
			continue
		}
		t, last := parseTotals(plainRuns(b.RichText))
		if last == e.key() {
			return 0, nil
		}
		return 0, c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + b.ID,
			body:      jsonBody(map[string]any{"callout": map[string]any{"rich_text": text(totalsText(t.plus(e.Counts), e.key()))}}),
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
	}
	b := blocks.Block{Type: blocks.Callout, Icon: totalsIcon, RichText: text(totalsText(e.Counts, e.key()))}
	batches, err := splitBatches([]blocks.Block{b}, c.limits)
	if err != nil {
		return 0, err
	}
	w := &pageWriter{c: c, media: newMedia(c, nil), counts: map[string]int{pageID: len(now)}}
	return 1, w.appendBatches(ctx, pageID, batches)
}

// trimSyncEntries deletes the oldest sync entries beyond MaxSyncEntries.
func (c *Client) trimSyncEntries(ctx context.Context, pageID string) error {
	kids, err := c.listChildrenRaw(ctx, pageID)
	if err != nil {
		return err
	}
	var entries []string
	for _, raw := range kids {
		var b blocks.Block
		var state childBlock
		if json.Unmarshal(raw, &b) != nil || json.Unmarshal(raw, &state) != nil || state.Archived || state.InTrash {
			continue
		}
		if b.Type == blocks.Callout && b.Icon == syncIcon {
			entries = append(entries, state.ID)
		}
	}
	for len(entries) > MaxSyncEntries {
		if err := c.deleteBlock(ctx, entries[0]); err != nil {
			return fmt.Errorf("notion: dropping an old sync entry: %w", err)
		}
		entries = entries[1:]
	}
	return nil
}

// syncEntries are the sync runs' entries and their totals among a report
// page's blocks.
func syncEntries(bs []blocks.Block) []blocks.Block {
	var out []blocks.Block
	for _, b := range bs {
		if b.Type == blocks.Callout && (b.Icon == syncIcon || b.Icon == totalsIcon) {
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

// SameID compares Notion IDs written with or without dashes ("" is the
// same as "" only: no parent, say).
func SameID(a, b string) bool {
	return strings.ReplaceAll(a, "-", "") == strings.ReplaceAll(b, "-", "")
}

// RetitleBody sets the first block of row pageID to title when it is a
// heading that reads oldTitle: a page whose title also heads its body (as
// many do) shows the new title in both places after a rename. It reports
// whether it changed the heading.
func (c *Client) RetitleBody(ctx context.Context, pageID, oldTitle, title string) (bool, error) {
	raws, err := c.listChildrenRaw(ctx, pageID)
	if err != nil {
		return false, fmt.Errorf("notion: reading page %s to retitle it: %w", pageID, err)
	}
	for _, raw := range raws {
		var b blocks.Block
		if err := json.Unmarshal(raw, &b); err != nil {
			return false, fmt.Errorf("notion: decoding a block of page %s: %w", pageID, err)
		}
		var state childBlock
		if json.Unmarshal(raw, &state) != nil || state.Archived || state.InTrash {
			continue
		}
		switch b.Type {
		case blocks.Heading1, blocks.Heading2, blocks.Heading3:
		default:
			return false, nil
		}
		switch strings.TrimSpace(plainRuns(b.RichText)) {
		case strings.TrimSpace(title):
			return false, nil
		case strings.TrimSpace(oldTitle):
		default:
			return false, nil
		}
		typ := string(b.Type)
		err := c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + b.ID,
			body:      jsonBody(map[string]any{typ: map[string]any{"rich_text": text(title)}}),
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
		if err != nil {
			return false, fmt.Errorf("notion: retitling the heading of page %s: %w", pageID, err)
		}
		return true, nil
	}
	return false, nil
}
