package notion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// A section database is shown through a table view sorted by PropOrder
// (OneNote's page order) that shows only what a person reads; the
// writer's bookkeeping columns are hidden in it (see docs/architecture.md,
// "Section database views").
//
// Which view is ours: the notebook's record (identity.go) keeps, per
// section, the ID of the view the writer made or found, so a run whose
// record names it spends no request on views. A database the record gives
// no view (made before views, or before the record learned it) is looked
// at once: a view named SectionViewName is ours (made by a run that
// stopped before recording it) and is recorded as it is; with none, one is
// created at the start of the database's tabs. Only a new database's
// first view, which Notion made with it a moment before, is ever changed:
// a view that existed before the run is never changed, renamed or deleted.

// SectionViewName names the view the writer gives a section database.
const SectionViewName = "OneNote order"

// visibleColumns are the columns a person sees, in order; every other
// property of the data source is hidden.
var visibleColumns = []string{PropName, PropParent, PropCreated, PropLastModified, PropLink, PropLosses, PropVerification, PropStatus}

// sectionView is the body that makes a section database's view what the
// writer wants: sorted by OneNote order, its columns visibleColumns and
// everything else (Internal links, Loss record, Links to rewrite, the
// IDs and hashes) hidden. props is the data source's schema.
func sectionView(props map[string]schemaProperty) map[string]any {
	var cols []any
	for _, name := range visibleColumns {
		if p, ok := props[name]; ok {
			cols = append(cols, map[string]any{"property_id": p.ID, "visible": true})
		}
	}
	hidden := make([]string, 0, len(props))
	for name := range props {
		if !slices.Contains(visibleColumns, name) {
			hidden = append(hidden, name)
		}
	}
	slices.Sort(hidden)
	for _, name := range hidden {
		cols = append(cols, map[string]any{"property_id": props[name].ID, "visible": false})
	}
	return map[string]any{
		"name":          SectionViewName,
		"sorts":         []any{map[string]any{"property": PropOrder, "direction": "ascending"}},
		"configuration": map[string]any{"type": "table", "properties": cols},
	}
}

// ViewsRefusedError is the Views API refused by the workspace (400 on an
// API version without it, 403 for a missing capability, 404): the
// database is left without its view, which a run names and goes on.
type ViewsRefusedError struct {
	DatabaseID string
	Err        error
}

func (e *ViewsRefusedError) Error() string {
	return fmt.Sprintf("notion: the view %q of database %s was not made: Notion refused the Views API: %v", SectionViewName, e.DatabaseID, e.Err)
}

func (e *ViewsRefusedError) Unwrap() error { return e.Err }

// viewsRefused tells a refusal of the Views API (400, 403, 404) from
// any other failure, which stops the run as before.
func viewsRefused(db string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusBadRequest || ae.Status == http.StatusForbidden || ae.Status == http.StatusNotFound) {
		return &ViewsRefusedError{DatabaseID: db, Err: err}
	}
	return err
}

// ensureSectionView gives new database db (data source ds, schema props)
// its view and returns the view's ID: the database's first view (the one
// Notion makes with it) is set up, or one is created when it has none.
// Both are idempotent.
func (c *Client) ensureSectionView(ctx context.Context, db, ds string, props map[string]schemaProperty) (string, error) {
	views, err := c.viewIDs(ctx, ds)
	if err != nil {
		return "", viewsRefused(db, err)
	}
	if len(views) == 0 {
		return c.createSectionView(ctx, db, ds, props, "end")
	}
	err = c.do(ctx, call{method: http.MethodPatch, path: "/v1/views/" + views[0], body: jsonBody(sectionView(props)), reconcile: noReconcile})
	if err != nil {
		return "", viewsRefused(db, fmt.Errorf("notion: setting up the view of database %s: %w", db, err))
	}
	return views[0], nil
}

// addSectionView gives database db (data source ds, schema props), one
// the writer made earlier that its record gives no view, its view and
// returns the view's ID. A view named SectionViewName is taken as it is
// (ours, made by a run that stopped before recording it); otherwise one
// is created at the start of the tabs. No existing view is changed. Cost:
// 1 listing, 1 read per view until ours is found, 1 create if none is.
func (c *Client) addSectionView(ctx context.Context, db, ds string, props map[string]schemaProperty) (string, error) {
	id, err := c.findSectionView(ctx, ds)
	if err != nil {
		return "", viewsRefused(db, err)
	}
	if id != "" {
		return id, nil
	}
	return c.createSectionView(ctx, db, ds, props, "start")
}

// createSectionView creates the view of db at position where ("start" or
// "end"). A create whose answer is lost is looked up by name.
func (c *Client) createSectionView(ctx context.Context, db, ds string, props map[string]schemaProperty, where string) (string, error) {
	body := sectionView(props)
	body["data_source_id"], body["database_id"], body["type"] = ds, db, "table"
	body["position"] = map[string]any{"type": where}
	var created struct {
		ID string `json:"id"`
	}
	err := c.do(ctx, call{method: http.MethodPost, path: "/v1/views", body: jsonBody(body), out: &created,
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			id, err := c.findSectionView(ctx, ds)
			if err != nil || id == "" {
				return nil, false, err
			}
			raw, _ := json.Marshal(map[string]string{"id": id})
			return raw, true, nil
		}})
	if err != nil {
		return "", viewsRefused(db, fmt.Errorf("notion: creating the view of database %s: %w", db, err))
	}
	return created.ID, nil
}

// findSectionView returns the ID of data source ds's view named
// SectionViewName ("" if none): the listing names views only by ID, so
// each is read, in tab order, until it is found.
func (c *Client) findSectionView(ctx context.Context, ds string) (string, error) {
	ids, err := c.viewIDs(ctx, ds)
	if err != nil {
		return "", err
	}
	for _, id := range ids {
		var v struct {
			Name string `json:"name"`
		}
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/views/" + id, out: &v}); err != nil {
			if isNotFound(err) {
				continue // deleted since the listing
			}
			return "", fmt.Errorf("notion: reading view %s: %w", id, err)
		}
		if v.Name == SectionViewName {
			return id, nil
		}
	}
	return "", nil
}

// viewIDs lists the views of data source ds, in tab order (up to 100:
// a section database has a few).
func (c *Client) viewIDs(ctx context.Context, ds string) ([]string, error) {
	var res listResponse
	err := c.do(ctx, call{method: http.MethodGet, path: "/v1/views",
		query: url.Values{"data_source_id": {ds}, "page_size": {"100"}}, out: &res})
	if err != nil {
		return nil, fmt.Errorf("notion: listing the views of data source %s: %w", ds, err)
	}
	ids := make([]string, 0, len(res.Results))
	for _, raw := range res.Results {
		var v struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(raw, &v) == nil && v.ID != "" {
			ids = append(ids, v.ID)
		}
	}
	return ids, nil
}
