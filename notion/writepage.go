package notion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/notion/readback"
	"github.com/notebridge/notebridge/report"
)

// PageInput is a OneNote page to write as a row of its section's database.
type PageInput struct {
	// OneNotePageID identifies the page; the row is found by it.
	OneNotePageID string
	Title         string
	// SectionPath is the notebook/group/section path shown on the row.
	SectionPath  string
	Created      time.Time
	LastModified time.Time
	// Link is the page's OneNote web link (links.oneNoteWebUrl, https),
	// stored in PropLink; anything but an http or https URL is left out.
	Link string
	// ParentPageID is the Notion page ID of the row of the page's parent
	// page, if it is a subpage ("" if not): the row becomes its sub-item.
	ParentPageID string
	// Blocks are the page's content.
	Blocks []blocks.Block
	// Resources fetches the bytes of media blocks that carry a Resource.
	Resources ResourceOpener
	// LinkID is the page-id GUID of the page's OneNote client link (how
	// internal links name it), stored on the row for the link pass.
	LinkID string
	// LinkTargets, if not nil, maps OneNote page IDs to Notion page IDs:
	// internal links are rewritten (see RewriteLinks) before writing.
	// Leave it nil in the first pass and use RewritePageLinks later.
	LinkTargets map[string]string
	// Order is the page's position in its section, from 1 (PropOrder; 0
	// leaves it unset).
	Order int
	// ContentHash identifies the OneNote content written (PropContentHash).
	ContentHash string
	// Losses are what the conversion could not carry over; the writer
	// adds its own, stores them all on the row and puts a callout at the
	// top of the page when something is lost.
	Losses []report.Entry
}

// Result is what a page write did.
type Result struct {
	// PageID is the Notion page (database row) of the OneNote page.
	PageID string
	// Unchanged is set when the page was already written completely and
	// OneNote reports no change since: nothing was written.
	Unchanged bool
	// BlocksWritten counts the blocks created.
	BlocksWritten int
	// Requests counts the requests sent to Notion (retries included).
	Requests int
	// InternalLinks counts the internal links written as text and
	// recorded on the row for the link pass (PropInternalLinks).
	InternalLinks int
	// Losses is what the writer could not carry over.
	Losses []Loss
	// Entries are every loss of the page (the conversion's and the
	// writer's), merged, lost first, as stored on its row.
	Entries []report.Entry
	// Planned summarises the content written (after uploads, text rules
	// and the loss callout), for read-back verification; it is stored on
	// the row (PropWritten). For an unchanged page, Verification and
	// Written are what its row holds (PropVerification, PropWritten).
	Planned               readback.Summary
	Verification, Written string
}

// WritePage writes a OneNote page into the section database db, exactly
// once however often it is called and wherever a previous call stopped
// (see the package documentation for the protocol):
//
//   - the row is looked up by OneNote page ID; when there is none, a row
//     a file import wrote for the page (keyed by the page's GUID, which
//     in.LinkID carries) is taken over, in the same query: it is
//     written as a changed row would be, or, when done with the same
//     date, only rekeyed (see adoptKey);
//   - a row marked done whose "Last modified in OneNote" equals
//     in.LastModified is left alone (Result.Unchanged);
//   - no row: the row is created, marked writing, with the first blocks,
//     and the rest is appended;
//   - a row marked writing with the same date (a previous call stopped
//     half-way) is resumed where it stopped;
//   - any other row (changed in OneNote since) is replaced in place: same
//     row, new properties, its children deleted and written anew;
//   - the row is marked done.
//
// Blocks go in requests that obey every payload rule, deeper levels
// appended to the IDs the requests return. Each write whose outcome is
// unknown is looked up before it is retried. An error leaves the row
// marked writing (or absent); calling WritePage again completes it.
// Two calls for the same page must not run at the same time.
func (c *Client) WritePage(ctx context.Context, db string, in PageInput) (res Result, err error) {
	if db == "" || in.OneNotePageID == "" {
		return res, errors.New("notion: WritePage needs a database ID and a OneNote page ID")
	}
	ctx, n := withCounter(ctx)
	defer func() { res.Requests = int(n.Load()) }()

	key := adoptKey(in)
	rows, err := c.findRows(ctx, db, in.OneNotePageID, key)
	if err != nil {
		return res, err
	}
	var own, imported []row
	for _, x := range rows {
		if x.OneNoteID == in.OneNotePageID {
			own = append(own, x)
		} else {
			imported = append(imported, x)
		}
	}
	r, extra := pickRow(own)
	adopting := r == nil && len(imported) > 0
	if adopting {
		r, extra = pickRow(imported)
	}
	for _, x := range extra {
		// Duplicates cannot arise from WritePage, but repair them if a
		// person or another tool made some.
		if err := c.archivePage(ctx, x.ID); err != nil {
			return res, err
		}
	}
	if r != nil && r.Status == StatusDone && sameTime(r.LastModified, in.LastModified) {
		res.PageID, res.Unchanged = r.ID, true
		res.Verification, res.Written = r.Verification, r.Written
		switch {
		case adopting:
			// The file holds this very version: the row is keyed by
			// in.OneNotePageID from now on, its content kept (as a
			// sync keeps a moved page's).
			err = c.UpdateRow(ctx, r.ID, RowUpdate{OneNotePageID: in.OneNotePageID, LinkID: in.LinkID, Link: in.Link,
				SectionPath: in.SectionPath, Order: in.Order})
		case r.LinkID == "" && in.LinkID != "":
			// Written before rows held their link ID: add it, so links
			// to the page can be rewritten.
			err = c.setLinkID(ctx, r.ID, in.LinkID)
		}
		return res, err
	}

	w := &pageWriter{c: c, media: newMedia(c, in.Resources), counts: map[string]int{}}
	bs, err := w.media.prepare(ctx, in.Blocks)
	if err != nil {
		return res, err
	}
	res.Losses = append(res.Losses, w.media.losses...)
	if in.LinkTargets != nil {
		var ll []Loss
		bs, ll = RewriteLinks(bs, in.LinkTargets)
		res.Losses = append(res.Losses, ll...)
	}
	bs, tl := fitText(bs)
	res.Losses = append(res.Losses, tl...)
	// After the text rules, so that the block positions losses name are
	// the OneNote page's; its text is short and fits them.
	if callout, ok := lossCallout(report.Merge(append(slices.Clone(in.Losses), entries(w.media.losses)...))); ok {
		bs = append([]blocks.Block{callout}, bs...)
	}
	bs, links := recordLinks(bs)
	props, pl := rowProperties(in, StatusWriting)
	res.Losses = append(res.Losses, pl...)
	done, dl := doneProperties(links)
	res.Losses = append(res.Losses, dl...)
	res.InternalLinks = len(links) - len(dl)
	res.Entries = report.Merge(append(slices.Clone(in.Losses), entries(res.Losses)...))
	for k, v := range lossProperties(res.Entries) {
		props[k] = v
	}
	batches, err := splitBatches(bs, c.limits)
	if err != nil {
		return res, err
	}
	res.Planned = readback.Summarize(bs, w.media.inkOf)
	done[PropWritten] = map[string]any{"rich_text": text(res.Planned.Encode())}

	switch {
	case r == nil:
		res.PageID, err = w.create(ctx, db, in.OneNotePageID, props, batches)
	case !adopting && r.Status == StatusWriting && sameTime(r.LastModified, in.LastModified):
		// (An imported row is replaced, never resumed: replacing
		// rekeys it, and its half is the file's plan, not this one.)
		res.PageID = r.ID
		err = w.resume(ctx, r.ID, batches)
		if errors.Is(err, errNotAPrefix) {
			c.log.LogAttrs(ctx, slog.LevelWarn, "notion half-written page does not match its plan; replacing its content",
				slog.String("page", r.ID))
			err = w.replace(ctx, r.ID, props, batches)
		}
	default:
		res.PageID = r.ID
		err = w.replace(ctx, r.ID, props, batches)
	}
	res.BlocksWritten = w.written
	if err != nil {
		return res, err
	}
	return res, c.updateRow(ctx, res.PageID, done)
}

// adoptKey is the key a file import gave the row of in's page, for
// WritePage to take that row over: the page's GUID, lower case without
// braces (in.LinkID; activities.FileKey writes it so). "" when in is
// itself keyed so (a file import's write) or has no link ID. A Graph
// page ID is never a bare GUID, so no row of another page has that key.
func adoptKey(in PageInput) string {
	k := normalizeGUID(in.LinkID)
	if k == "" || k == in.OneNotePageID {
		return ""
	}
	return k
}

// pickRow chooses the row to keep among rows found for one OneNote page:
// a done one if any, else the oldest. Notion rounds created_time down to
// the minute (notion-reality.md fact 5), so rows made in the same minute
// (a create re-sent after its outcome was lost) tie: the row ID breaks
// the tie, so that every call keeps the same row whatever order a query
// returns them in. The others are returned as extra.
func pickRow(rows []row) (keep *row, extra []row) {
	if len(rows) == 0 {
		return nil, nil
	}
	rows = slices.Clone(rows)
	slices.SortFunc(rows, func(a, b row) int {
		if (a.Status == StatusDone) != (b.Status == StatusDone) {
			if a.Status == StatusDone {
				return -1
			}
			return 1
		}
		if c := a.Created.Truncate(time.Minute).Compare(b.Created.Truncate(time.Minute)); c != 0 {
			return c
		}
		return strings.Compare(normalizeGUID(strings.ReplaceAll(a.ID, "-", "")), normalizeGUID(strings.ReplaceAll(b.ID, "-", "")))
	})
	return &rows[0], rows[1:]
}

// create makes the row with the first batch, then writes the rest.
func (w *pageWriter) create(ctx context.Context, db, oneNoteID string, props map[string]any, batches []batch) (string, error) {
	var first batch
	if len(batches) > 0 {
		first, batches = batches[0], batches[1:]
	}
	id, err := w.createRow(ctx, db, oneNoteID, props, first)
	if err != nil {
		return "", err
	}
	if err := w.finishFirst(ctx, id, first); err != nil {
		return id, err
	}
	return id, w.appendBatches(ctx, id, batches)
}

// replace empties a row and writes its content anew. While its content is
// being deleted, the row's "Last modified in OneNote" is unset, so that a
// write that stops half-way through is never taken for a prefix of the
// plan (see resume).
func (w *pageWriter) replace(ctx context.Context, pageID string, props map[string]any, batches []batch) error {
	c := w.c
	clearing := map[string]any{PropStatus: props[PropStatus], PropLastModified: map[string]any{"date": nil}}
	if err := c.updateRow(ctx, pageID, clearing); err != nil {
		return err
	}
	if err := c.clearChildren(ctx, pageID); err != nil {
		return err
	}
	if err := c.updateRow(ctx, pageID, props); err != nil {
		return err
	}
	w.counts[pageID] = 0
	return w.appendBatches(ctx, pageID, batches)
}

// maxUploadRenewals bounds how often a request refused because an upload
// expired gets fresh uploads and is sent again.
const maxUploadRenewals = 3

// pageWriter is the state of one page write.
type pageWriter struct {
	c       *Client
	media   *media
	counts  map[string]int // parent ID -> children it has (known to this write)
	written int
}

// createRow creates the row with the first batch of blocks. If the
// outcome is unknown, the row is looked up by OneNote page ID.
func (w *pageWriter) createRow(ctx context.Context, db, oneNoteID string, props map[string]any, first batch) (string, error) {
	c := w.c
	parent, err := c.rowParent(ctx, db)
	if err != nil {
		return "", err
	}
	body := map[string]any{"parent": parent, "properties": props}
	if len(first.blocks) > 0 {
		body["children"] = &first
	}
	var created struct {
		ID string `json:"id"`
	}
	send := func() error {
		if err := w.media.refresh(ctx, &first, false); err != nil {
			return err
		}
		return c.do(ctx, call{method: http.MethodPost, path: "/v1/pages", body: jsonBody(body), out: &created,
			reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
				rows, err := c.findRows(ctx, db, oneNoteID)
				if err != nil || len(rows) == 0 {
					return nil, false, err
				}
				r, _ := pickRow(rows)
				raw, _ := json.Marshal(map[string]string{"id": r.ID})
				return raw, true, nil
			}})
	}
	err = send()
	for i := 0; i < maxUploadRenewals && isExpiredUpload(err) && w.media.hasUploads(first); i++ {
		if err = w.media.refresh(ctx, &first, true); err == nil {
			err = send()
		}
	}
	if err != nil {
		return "", fmt.Errorf("notion: creating row for OneNote page %s: %w", oneNoteID, err)
	}
	w.counts[created.ID] = len(first.blocks)
	w.written += first.count()
	return created.ID, nil
}

// finishFirst appends what the first batch left for later. Creating a
// page does not return the IDs of its blocks, so they are listed.
func (w *pageWriter) finishFirst(ctx context.Context, pageID string, first batch) error {
	if !first.hasLater() {
		return nil
	}
	kids, err := w.c.listChildren(ctx, pageID)
	if err != nil {
		return err
	}
	if len(kids) != len(first.blocks) {
		return fmt.Errorf("%w: page %s has %d blocks after creation, expected %d", ErrInconsistent, pageID, len(kids), len(first.blocks))
	}
	return w.appendLater(ctx, first, ids(kids))
}

// appendBatches appends batches, in order, to parent, and then what each
// left for later to the blocks it created.
func (w *pageWriter) appendBatches(ctx context.Context, parent string, batches []batch) error {
	for _, b := range batches {
		created, err := w.appendBatch(ctx, parent, b)
		if err != nil {
			return err
		}
		if err := w.appendLater(ctx, b, created); err != nil {
			return err
		}
	}
	return nil
}

// appendLater appends the children b left for later to the blocks b
// created (whose IDs are created, in order).
func (w *pageWriter) appendLater(ctx context.Context, b batch, created []string) error {
	for i, later := range b.later {
		if len(later) == 0 {
			continue
		}
		sub, err := splitBatches(later, w.c.limits)
		if err != nil {
			return err
		}
		w.counts[created[i]] = len(b.blocks[i].Children)
		if err := w.appendBatches(ctx, created[i], sub); err != nil {
			return err
		}
	}
	return nil
}

// appendBatch appends one batch to parent and returns the IDs of the
// blocks it created. If the outcome is unknown, the parent's children are
// counted: as many as before means not applied (send again), as many as
// before plus the batch means applied, anything else is ErrInconsistent.
func (w *pageWriter) appendBatch(ctx context.Context, parent string, b batch) ([]string, error) {
	c := w.c
	before := w.counts[parent]
	var resp listResponse
	send := func() error {
		if err := w.media.refresh(ctx, &b, false); err != nil {
			return err
		}
		return c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + parent + "/children",
			body: jsonBody(map[string]any{"children": &b}), out: &resp,
			reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
				kids, err := c.listChildren(ctx, parent)
				if err != nil {
					return nil, false, err
				}
				switch len(kids) {
				case before:
					return nil, false, nil
				case before + len(b.blocks):
					raw, err := json.Marshal(map[string]any{"results": kids[before:]})
					return raw, true, err
				}
				return nil, false, fmt.Errorf("%w: block %s has %d children, expected %d or %d", ErrInconsistent, parent, len(kids), before, before+len(b.blocks))
			}})
	}
	err := send()
	for i := 0; i < maxUploadRenewals && isExpiredUpload(err) && w.media.hasUploads(b); i++ {
		if err = w.media.refresh(ctx, &b, true); err == nil {
			err = send()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("notion: appending %d blocks to %s: %w", b.count(), parent, err)
	}
	w.counts[parent] = before + len(b.blocks)
	w.written += b.count()
	created := make([]string, 0, len(resp.Results))
	for _, raw := range resp.Results {
		var k childBlock
		if err := json.Unmarshal(raw, &k); err != nil {
			return nil, fmt.Errorf("notion: decoding appended blocks: %w", err)
		}
		created = append(created, k.ID)
	}
	if len(created) != len(b.blocks) && b.hasLater() {
		// Not the newly created blocks only: find them by position.
		kids, err := c.listChildren(ctx, parent)
		if err != nil {
			return nil, err
		}
		if len(kids) != before+len(b.blocks) {
			return nil, fmt.Errorf("%w: block %s has %d children after an append, expected %d", ErrInconsistent, parent, len(kids), before+len(b.blocks))
		}
		created = ids(kids[before:])
	}
	return created, nil
}

// updateRow sets properties of a row. If the outcome is unknown, the row
// is read back: the update took effect if its status (and its last
// modified date, if sent) are the ones sent.
func (c *Client) updateRow(ctx context.Context, pageID string, props map[string]any) error {
	want := ""
	if s, ok := props[PropStatus].(map[string]any); ok {
		want, _ = s["select"].(map[string]any)["name"].(string)
	}
	wantModified, checkModified := "", false
	if d, ok := props[PropLastModified].(map[string]any); ok {
		checkModified = true
		if start, ok := d["date"].(map[string]any); ok {
			wantModified, _ = start["start"].(string)
		}
	}
	path := "/v1/pages/" + pageID
	return c.do(ctx, call{method: http.MethodPatch, path: path, body: jsonBody(map[string]any{"properties": props}),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var p pageObject
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &p}); err != nil {
				return nil, false, err
			}
			s := p.Properties[PropStatus].Select
			applied := s != nil && s.Name == want
			if checkModified {
				got := ""
				if d := p.Properties[PropLastModified].Date; d != nil {
					got = d.Start
				}
				t, _ := time.Parse(dateFormat, wantModified)
				applied = applied && (got == wantModified || (wantModified != "" && sameTime(got, t)))
			}
			return nil, applied, nil
		}})
}

// archivePage moves a page to the trash.
func (c *Client) archivePage(ctx context.Context, pageID string) error {
	path := "/v1/pages/" + pageID
	return c.do(ctx, call{method: http.MethodPatch, path: path, body: jsonBody(map[string]any{"in_trash": true}),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			var p pageObject
			if err := c.do(ctx, call{method: http.MethodGet, path: path, out: &p}); err != nil {
				return nil, false, err
			}
			return nil, p.Archived || p.InTrash, nil
		}})
}

func ids(kids []childBlock) []string {
	out := make([]string, len(kids))
	for i, k := range kids {
		out[i] = k.ID
	}
	return out
}
