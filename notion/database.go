package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// The properties of a section database (one row per OneNote page).
const (
	PropName         = "Name"
	PropOneNoteID    = "OneNote page ID"
	PropSectionPath  = "Section path"
	PropCreated      = "Created"
	PropLastModified = "Last modified in OneNote"
	PropLink         = "OneNote link"
	PropParent       = "Parent item"
	PropStatus       = "Migration status"
	// PropLinkID holds the page-id GUID of the page's OneNote client link:
	// how internal links name it. The link pass finds link targets by it.
	PropLinkID = "OneNote link ID"
	// PropLinksPending is checked while the page's internal links still
	// point at OneNote: the link pass finds its work by it.
	PropLinksPending = "Links to rewrite"
	// PropInternalLinks records where the page's internal links are (see
	// InternalLink), for the link pass: they are written as text.
	PropInternalLinks = "Internal links"
	// PropOrder is the page's position in its OneNote section, from 1:
	// the section view (views.go) sorts the rows by it.
	PropOrder = "Order"
	// PropLosses names the kinds of content the page lost (ink, an
	// attachment Notion refused…); empty when nothing is missing.
	PropLosses = "Losses"
	// PropApproximations counts what the page holds in another form (a
	// colour approximated, a link kept as text).
	PropApproximations = "Approximations"
	// PropLossRecord records the page's loss entries (report.Encode),
	// which the migration report is built from.
	PropLossRecord = "Loss record"
	// PropContentHash identifies the OneNote content the row was written
	// from: a sync run tells a timestamp wobble or a moved page by it.
	PropContentHash = "OneNote content hash"
)

// The values of PropStatus.
const (
	StatusWriting = "writing"
	StatusDone    = "done"
	// StatusDeletedKept marks the row of a page deleted in OneNote and
	// kept in Notion, once a sync run has reported it.
	StatusDeletedKept = "deleted in OneNote"
)

// sectionSchema is the schema a section database is created with. The
// self-relation PropParent is added once the database has an ID.
func sectionSchema() map[string]any {
	empty := map[string]any{}
	s := map[string]any{
		PropName:           map[string]any{"title": empty},
		PropOneNoteID:      map[string]any{"rich_text": empty},
		PropSectionPath:    map[string]any{"rich_text": empty},
		PropCreated:        map[string]any{"date": empty},
		PropLastModified:   map[string]any{"date": empty},
		PropLink:           map[string]any{"url": empty},
		PropLinkID:         map[string]any{"rich_text": empty},
		PropLinksPending:   map[string]any{"checkbox": empty},
		PropInternalLinks:  map[string]any{"rich_text": empty},
		PropOrder:          map[string]any{"number": map[string]any{"format": "number"}},
		PropLosses:         map[string]any{"multi_select": map[string]any{"options": []map[string]any{}}},
		PropApproximations: map[string]any{"number": map[string]any{"format": "number"}},
		PropLossRecord:     map[string]any{"rich_text": empty},
		PropContentHash:    map[string]any{"rich_text": empty},
		PropStatus: map[string]any{"select": map[string]any{"options": []map[string]any{
			{"name": StatusWriting, "color": "yellow"}, {"name": StatusDone, "color": "green"},
			{"name": StatusDeletedKept, "color": "gray"}}}},
	}
	for k, v := range verificationSchema() {
		s[k] = v
	}
	return s
}

// parentRelation is the PropParent property: a relation of the data
// source to itself, which Notion shows as sub-items.
func parentRelation(dataSourceID string) map[string]any {
	return map[string]any{PropParent: map[string]any{"relation": map[string]any{
		"data_source_id": dataSourceID, "type": "single_property", "single_property": map[string]any{}}}}
}

// ensureSchemaOf adds whatever the section schema lacks to database id's
// data source (a crash between creating a database and adding its
// self-relation leaves it without one; a person may delete a property),
// and returns the data source and its schema as it then is.
// A property rows are found by (PropName, PropOneNoteID) that a person
// renamed, deleted or retyped while the data source holds rows is not
// added again: that would find none of them and write every page anew, so
// it is a DatabaseChangeError.
func (c *Client) ensureSchemaOf(ctx context.Context, id string) (string, map[string]schemaProperty, error) {
	ds, err := c.dataSource(ctx, id)
	if err != nil {
		return "", nil, err
	}
	src, err := c.readSource(ctx, ds)
	if err != nil {
		return "", nil, err
	}
	have := src.Properties
	if err := c.checkKeyProperties(ctx, id, ds, have); err != nil {
		return "", nil, err
	}
	missing := map[string]any{}
	for name, def := range sectionSchema() {
		if _, ok := have[name]; !ok {
			missing[name] = def
		}
	}
	if _, ok := have[PropParent]; !ok {
		for k, v := range parentRelation(ds) {
			missing[k] = v
		}
	}
	if len(missing) == 0 {
		return ds, have, nil
	}
	// Adding properties is idempotent: repeating it changes nothing. Its
	// answer is the schema with them.
	var after dataSourceObject
	if err := c.do(ctx, call{method: http.MethodPatch, path: "/v1/data_sources/" + ds, out: &after,
		body: jsonBody(map[string]any{"properties": missing}), reconcile: noReconcile}); err != nil {
		return "", nil, err
	}
	if len(after.Properties) > 0 {
		have = after.Properties
	}
	return ds, have, nil
}

// checkKeyProperties refuses a data source whose title is no longer
// PropName, or whose PropOneNoteID is gone or not text while it holds
// rows (see ensureSchemaOf).
func (c *Client) checkKeyProperties(ctx context.Context, db, ds string, have map[string]schemaProperty) error {
	for name, p := range have {
		if p.Type == "title" && name != PropName {
			return &DatabaseChangeError{DatabaseID: db, Property: PropName, Change: fmt.Sprintf("was renamed to %q", name),
				Fix: fmt.Sprintf("rename the title column back to %q", PropName)}
		}
	}
	p, ok := have[PropOneNoteID]
	if ok && p.Type == "rich_text" {
		return nil
	}
	var res listResponse
	err := c.do(ctx, call{method: http.MethodPost, path: "/v1/data_sources/" + ds + "/query",
		body: jsonBody(map[string]any{"page_size": 1}), out: &res, reconcile: noReconcile})
	if err != nil {
		return fmt.Errorf("notion: reading the rows of database %s: %w", db, err)
	}
	if len(res.Results) == 0 {
		return nil // nothing to find: the property is simply added
	}
	change := "was deleted or renamed"
	if ok {
		change = fmt.Sprintf("is now of type %s, not text", p.Type)
	}
	return &DatabaseChangeError{DatabaseID: db, Property: PropOneNoteID, Change: change,
		Fix: fmt.Sprintf("restore it (Notion's page history, or rename the column back to %q, of type text)", PropOneNoteID)}
}

// row is a section database row as the writer sees it.
type row struct {
	ID string
	// OneNoteID is PropOneNoteID: the key the row was found by.
	OneNoteID    string
	Status       string
	LastModified string // as stored, an ISO 8601 date
	Created      time.Time
	LinkID       string
	// Verification and Written are PropVerification and PropWritten.
	Verification, Written string
}

// findRows returns the rows of database db whose PropOneNoteID is id or
// one of also (in one query; an empty one is left out).
func (c *Client) findRows(ctx context.Context, db, id string, also ...string) ([]row, error) {
	var rows []row
	filter := map[string]any{"property": PropOneNoteID, "rich_text": map[string]any{"equals": id}}
	or := []any{filter}
	for _, a := range also {
		if a != "" && a != id {
			or = append(or, map[string]any{"property": PropOneNoteID, "rich_text": map[string]any{"equals": a}})
		}
	}
	if len(or) > 1 {
		filter = map[string]any{"or": or}
	}
	q := map[string]any{"filter": filter, "page_size": 100}
	for {
		var res listResponse
		path, err := c.queryPath(ctx, db)
		if err != nil {
			return nil, err
		}
		if err := c.do(ctx, call{method: http.MethodPost, path: path, body: jsonBody(q), out: &res,
			// A query changes nothing; its "outcome" is only lost data.
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }}); err != nil {
			return nil, fmt.Errorf("notion: looking up OneNote page %s: %w", id, err)
		}
		for _, raw := range res.Results {
			var p pageObject
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, fmt.Errorf("notion: decoding row: %w", err)
			}
			if p.Archived || p.InTrash {
				continue
			}
			r := row{ID: p.ID, OneNoteID: plain(p.Properties[PropOneNoteID].RichText), Created: p.CreatedTime}
			if s := p.Properties[PropStatus].Select; s != nil {
				r.Status = s.Name
			}
			if d := p.Properties[PropLastModified].Date; d != nil {
				r.LastModified = d.Start
			}
			r.LinkID = plain(p.Properties[PropLinkID].RichText)
			if v := p.Properties[PropVerification].Select; v != nil {
				r.Verification = v.Name
			}
			r.Written = plain(p.Properties[PropWritten].RichText)
			rows = append(rows, r)
		}
		if !res.HasMore || res.NextCursor == nil {
			return rows, nil
		}
		q["start_cursor"] = *res.NextCursor
	}
}

// rowProperties are the property values of a page's row while it is
// written (doneProperties are set with the last request).
func rowProperties(in PageInput, status string) (map[string]any, []Loss) {
	var losses []Loss
	props := map[string]any{
		PropName:         map[string]any{"title": text(in.Title)},
		PropOneNoteID:    map[string]any{"rich_text": text(in.OneNotePageID)},
		PropSectionPath:  map[string]any{"rich_text": text(in.SectionPath)},
		PropStatus:       map[string]any{"select": map[string]any{"name": status}},
		PropCreated:      dateValue(in.Created),
		PropLastModified: dateValue(in.LastModified),
		PropLinkID:       map[string]any{"rich_text": text(in.LinkID)},
		PropContentHash:  map[string]any{"rich_text": text(in.ContentHash)},
	}
	if in.Order > 0 {
		props[PropOrder] = map[string]any{"number": in.Order}
	}
	switch {
	case in.Link == "":
		props[PropLink] = map[string]any{"url": nil}
	case blocks.UTF16Len(in.Link) > blocks.MaxURLLen:
		props[PropLink] = map[string]any{"url": nil}
		losses = append(losses, Loss{Kind: LossProperty, Location: PropLink,
			Detail: fmt.Sprintf("the OneNote link is %d characters, Notion accepts %d", blocks.UTF16Len(in.Link), blocks.MaxURLLen)})
	case !blocks.IsWebURL(in.Link):
		// The property is the page's web link; a client (onenote:) link
		// there would not open in a browser.
		props[PropLink] = map[string]any{"url": nil}
		losses = append(losses, Loss{Kind: LossProperty, Location: PropLink,
			Detail: fmt.Sprintf("the OneNote link %q is not an http or https URL; left out", short(in.Link))})
	default:
		props[PropLink] = map[string]any{"url": in.Link}
	}
	rel := []map[string]any{}
	if in.ParentPageID != "" {
		rel = append(rel, map[string]any{"id": in.ParentPageID})
	}
	props[PropParent] = map[string]any{"relation": rel}
	return props, losses
}

// doneProperties mark a row done, with the record of its internal links
// (see InternalLink). They go in one request, so every done row holds
// the record of the content it was written with, however the write got
// there (created, resumed or replaced, across crashes).
func doneProperties(links []InternalLink) (map[string]any, []Loss) {
	record, losses := encodeLinks(links)
	return map[string]any{
		PropStatus:        map[string]any{"select": map[string]any{"name": StatusDone}},
		PropInternalLinks: map[string]any{"rich_text": record},
		PropLinksPending:  map[string]any{"checkbox": len(links) > 0},
	}, losses
}

// dateFormat is how OneNote times are stored: UTC, to the millisecond.
const dateFormat = "2006-01-02T15:04:05.000Z07:00"

func dateValue(t time.Time) map[string]any {
	if t.IsZero() {
		return map[string]any{"date": nil}
	}
	return map[string]any{"date": map[string]any{"start": t.UTC().Format(dateFormat)}}
}

// sameTime reports whether a stored date is t, to the second (Notion may
// store dates with less precision than OneNote gives).
func sameTime(stored string, t time.Time) bool {
	if stored == "" {
		return t.IsZero()
	}
	s, err := time.Parse(time.RFC3339Nano, stored)
	if err != nil {
		return false
	}
	return s.Truncate(time.Second).Equal(t.Truncate(time.Second))
}
