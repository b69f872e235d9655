package notion

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// NotebookSpec describes a OneNote notebook's containers: its sections and
// section groups (which nest). IDs are OneNote IDs; names become titles.
type NotebookSpec struct {
	ID, Name      string
	Sections      []SectionSpec
	SectionGroups []SectionGroupSpec
}

// SectionGroupSpec is a OneNote section group.
type SectionGroupSpec struct {
	ID, Name      string
	Sections      []SectionSpec
	SectionGroups []SectionGroupSpec
}

// SectionSpec is a OneNote section.
type SectionSpec struct {
	ID, Name string
}

// Layout is where a notebook lives in Notion, keyed by OneNote IDs.
type Layout struct {
	// NotebookPageID is the page of the notebook.
	NotebookPageID string
	// GroupPageIDs maps section group IDs to their pages.
	GroupPageIDs map[string]string
	// SectionDatabaseIDs maps section IDs to their databases.
	SectionDatabaseIDs map[string]string
}

// EnsureLayout finds or creates the Notion containers of a notebook under
// the page parentPageID: a page for the notebook, a page per section group
// (nested as in OneNote), a database per section. Each container is looked
// for by title among its parent's children before it is created, so
// running EnsureLayout again creates nothing new. Siblings with the same
// name get " (2)", " (3)"… in the order given.
func (c *Client) EnsureLayout(ctx context.Context, parentPageID string, nb NotebookSpec) (Layout, error) {
	l := Layout{GroupPageIDs: map[string]string{}, SectionDatabaseIDs: map[string]string{}}
	id, err := c.EnsurePage(ctx, parentPageID, nb.Name)
	if err != nil {
		return Layout{}, err
	}
	l.NotebookPageID = id
	if err := c.ensureContents(ctx, id, nb.Sections, nb.SectionGroups, &l); err != nil {
		return Layout{}, err
	}
	return l, nil
}

func (c *Client) ensureContents(ctx context.Context, pageID string, sections []SectionSpec, groups []SectionGroupSpec, l *Layout) error {
	if len(sections)+len(groups) == 0 {
		return nil
	}
	kids, err := c.listChildren(ctx, pageID)
	if err != nil {
		return err
	}
	names := uniqueNames{}
	for _, s := range sections {
		id, err := c.ensureChild(ctx, pageID, kids, "child_database", names.next(s.Name))
		if err != nil {
			return fmt.Errorf("notion: section %q: %w", s.Name, err)
		}
		l.SectionDatabaseIDs[s.ID] = id
	}
	for _, g := range groups {
		id, err := c.ensureChild(ctx, pageID, kids, "child_page", names.next(g.Name))
		if err != nil {
			return fmt.Errorf("notion: section group %q: %w", g.Name, err)
		}
		l.GroupPageIDs[g.ID] = id
		if err := c.ensureContents(ctx, id, g.Sections, g.SectionGroups, l); err != nil {
			return err
		}
	}
	return nil
}

// uniqueNames disambiguates sibling titles.
type uniqueNames map[string]int

func (u uniqueNames) next(name string) string {
	u[name]++
	if n := u[name]; n > 1 {
		return name + " (" + strconv.Itoa(n) + ")"
	}
	return name
}

// EnsurePage returns the child page of parentPageID titled title,
// creating it if there is none.
func (c *Client) EnsurePage(ctx context.Context, parentPageID, title string) (string, error) {
	kids, err := c.listChildren(ctx, parentPageID)
	if err != nil {
		return "", err
	}
	return c.ensureChild(ctx, parentPageID, kids, "child_page", title)
}

// ensureChild finds the child of kind ("child_page" or "child_database")
// titled title among kids, or creates it. A create whose outcome is
// unknown is reconciled by listing the parent again.
func (c *Client) ensureChild(ctx context.Context, parentID string, kids []childBlock, kind, title string) (string, error) {
	if id := findChild(kids, kind, title); id != "" {
		if kind == "child_database" {
			return id, c.ensureSchema(ctx, id)
		}
		return id, nil
	}
	lookup := func(ctx context.Context) (json.RawMessage, bool, error) {
		kids, err := c.listChildren(ctx, parentID)
		if err != nil {
			return nil, false, err
		}
		id := findChild(kids, kind, title)
		if id == "" {
			return nil, false, nil
		}
		raw, _ := json.Marshal(map[string]string{"id": id})
		return raw, true, nil
	}
	parent := map[string]any{"type": "page_id", "page_id": parentID}
	var created struct {
		ID string `json:"id"`
	}
	if kind == "child_page" {
		err := c.do(ctx, call{method: http.MethodPost, path: "/v1/pages", out: &created, reconcile: lookup,
			body: jsonBody(map[string]any{"parent": parent, "properties": map[string]any{"title": map[string]any{"title": text(title)}}})})
		return created.ID, err
	}
	err := c.do(ctx, call{method: http.MethodPost, path: "/v1/databases", out: &created, reconcile: lookup,
		body: jsonBody(map[string]any{"parent": parent, "title": text(title), "is_inline": false, "properties": sectionSchema()})})
	if err != nil {
		return "", err
	}
	// The self-relation needs the database's ID. Adding a property is
	// idempotent, so a lost answer is simply sent again.
	err = c.do(ctx, call{method: http.MethodPatch, path: "/v1/databases/" + created.ID,
		body:      jsonBody(map[string]any{"properties": parentRelation(created.ID)}),
		reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
	return created.ID, err
}

func findChild(kids []childBlock, kind, title string) string {
	for _, k := range kids {
		switch {
		case kind == "child_page" && k.Type == kind && k.ChildPage != nil && k.ChildPage.Title == title:
			return k.ID
		case kind == "child_database" && k.Type == kind && k.ChildDatabase != nil && k.ChildDatabase.Title == title:
			return k.ID
		}
	}
	return ""
}
