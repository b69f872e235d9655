package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Since Notion-Version 2025-09-03 a database is a container of data
// sources; a section database's rows, schema and queries live in its data
// source. The Client learns a database's data source once (from the
// database) and keeps it, so that a data source a person adds later does
// not change which one the writer addresses.

// DatabaseChangeError says a person changed a section database in a way
// the writer cannot adapt to without risking duplicated rows: a property
// the writer finds its rows by was renamed, deleted or retyped, or no data
// source of the database is the writer's. Nothing was written. It matches
// ErrValidation (running again unchanged will not help).
type DatabaseChangeError struct {
	DatabaseID string
	// Property names the property concerned ("" for the data source).
	Property string
	// Change says what was found; Fix what to do.
	Change, Fix string
}

func (e *DatabaseChangeError) Error() string {
	what := "the data source"
	if e.Property != "" {
		what = fmt.Sprintf("the property %q", e.Property)
	}
	return fmt.Sprintf("notion: section database %s: %s %s; %s, then run again (nothing was written to it)",
		e.DatabaseID, what, e.Change, e.Fix)
}

// Is makes a DatabaseChangeError an ErrValidation.
func (e *DatabaseChangeError) Is(target error) bool { return target == ErrValidation }

// dataSourceRef names a data source in a database object.
type dataSourceRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// dataSourceObject is a data source as Notion returns it.
type dataSourceObject struct {
	ID         string                    `json:"id"`
	InTrash    bool                      `json:"in_trash"`
	Properties map[string]schemaProperty `json:"properties"`
}

// rememberSource records database db's data source.
func (c *Client) rememberSource(db, ds string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sources == nil {
		c.sources = map[string]string{}
	}
	c.sources[normalID(db)] = ds
}

func (c *Client) knownSource(db string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sources[normalID(db)]
}

// dataSource is the ID of section database db's data source, learned once
// per Client. A database with one data source has it; one a person added
// data sources to has the writer's among them: the first, in Notion's
// order, whose schema holds PropOneNoteID as text.
func (c *Client) dataSource(ctx context.Context, db string) (string, error) {
	if ds := c.knownSource(db); ds != "" {
		return ds, nil
	}
	var d databaseObject
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/databases/" + db, out: &d}); err != nil {
		return "", fmt.Errorf("notion: reading database %s: %w", db, err)
	}
	return c.pickSource(ctx, db, d.DataSources)
}

func (c *Client) pickSource(ctx context.Context, db string, refs []dataSourceRef) (string, error) {
	switch len(refs) {
	case 0:
		return "", &DatabaseChangeError{DatabaseID: db, Change: "is missing: the database has no data source",
			Fix: "restore the database's data source from Notion's trash"}
	case 1:
		c.rememberSource(db, refs[0].ID)
		return refs[0].ID, nil
	}
	for _, r := range refs {
		src, err := c.readSource(ctx, r.ID)
		if err != nil {
			return "", err
		}
		if p, ok := src.Properties[PropOneNoteID]; ok && p.Type == "rich_text" && !src.InTrash {
			c.rememberSource(db, r.ID)
			return r.ID, nil
		}
	}
	return "", &DatabaseChangeError{DatabaseID: db, Change: fmt.Sprintf("is not among its %d data sources (none has a %q text property)", len(refs), PropOneNoteID),
		Fix: fmt.Sprintf("give the data source Note Bridge wrote its %q property back", PropOneNoteID)}
}

// readSource reads a data source.
func (c *Client) readSource(ctx context.Context, id string) (dataSourceObject, error) {
	var src dataSourceObject
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/data_sources/" + id, out: &src}); err != nil {
		return src, fmt.Errorf("notion: reading data source %s: %w", id, err)
	}
	return src, nil
}

// queryPath is where section database db's rows are queried.
func (c *Client) queryPath(ctx context.Context, db string) (string, error) {
	ds, err := c.dataSource(ctx, db)
	if err != nil {
		return "", err
	}
	return "/v1/data_sources/" + ds + "/query", nil
}

// rowParent is the parent of a new row of section database db.
func (c *Client) rowParent(ctx context.Context, db string) (map[string]any, error) {
	ds, err := c.dataSource(ctx, db)
	if err != nil {
		return nil, err
	}
	return map[string]any{"type": "data_source_id", "data_source_id": ds}, nil
}

// noReconcile is the reconcile of a request that is safe to send again.
func noReconcile(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }

// normalID is a Notion ID without dashes, in lower case (a cache key).
func normalID(id string) string { return strings.ToLower(strings.ReplaceAll(id, "-", "")) }
