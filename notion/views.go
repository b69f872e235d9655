package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
)

// A section database is shown through a table view sorted by PropOrder
// (OneNote's page order) that shows only what a person reads; the
// writer's bookkeeping columns are hidden in it (see docs/architecture.md,
// "Section database views").

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

// ensureSectionView gives new database db (data source ds, schema props)
// its view: the database's first view (the one Notion makes with it) is
// set up, or one is created when it has none. Both are idempotent.
func (c *Client) ensureSectionView(ctx context.Context, db, ds string, props map[string]schemaProperty) error {
	views, err := c.viewIDs(ctx, ds)
	if err != nil {
		return err
	}
	body := sectionView(props)
	if len(views) > 0 {
		err = c.do(ctx, call{method: http.MethodPatch, path: "/v1/views/" + views[0], body: jsonBody(body), reconcile: noReconcile})
	} else {
		body["data_source_id"], body["database_id"], body["type"] = ds, db, "table"
		err = c.do(ctx, call{method: http.MethodPost, path: "/v1/views", body: jsonBody(body),
			reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
				views, err := c.viewIDs(ctx, ds)
				return nil, len(views) > 0, err
			}})
	}
	if err != nil {
		return fmt.Errorf("notion: setting up the view of database %s: %w", db, err)
	}
	return nil
}

// viewIDs lists the views of data source ds, in tab order (up to 100:
// a new database has one).
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
