package notion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// NotebookSpec describes a OneNote notebook's containers: its sections and
// section groups (which nest). IDs are OneNote IDs; names become titles.
type NotebookSpec struct {
	ID, Name string
	// AdoptPage, when set, is the Notion ID of the notebook page a file
	// import of this notebook made under the parent: when no page stamped
	// as this notebook is found, that page and its containers are taken
	// over instead of new ones made (adopt.go).
	AdoptPage     string
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
	// GUID is the section's GUID as Graph's links carry it (section-id),
	// "" if unknown: how a file import's database is adopted.
	GUID string
}

// Layout is where a notebook lives in Notion, keyed by OneNote IDs.
type Layout struct {
	// NotebookPageID is the page of the notebook.
	NotebookPageID string
	// GroupPageIDs maps section group IDs to their pages.
	GroupPageIDs map[string]string
	// SectionDatabaseIDs maps section IDs to their databases.
	SectionDatabaseIDs map[string]string
	// Gone maps the IDs of sections whose database the record names but
	// Notion no longer has live (in the trash, deleted, or unshared) to
	// a message that names it and says what to do. Such a section is not
	// written: writing it again would make a second copy of its pages.
	Gone map[string]string `json:",omitempty"`
	// Former are the sections the record holds but the notebook no
	// longer lists (deleted, or moved to another notebook), with their
	// live databases, in OneNote ID order: a sync reads their rows too,
	// so a page that moved out of them is found and nothing is written
	// twice.
	Former []FormerSection `json:",omitempty"`
	// Elsewhere names the section databases found under another page than
	// OneNote's place for them (a person moved them, or OneNote moved the
	// section to another group): Notion's API cannot move a database,
	// so each stays, is used where it is, and is named.
	Elsewhere []string `json:",omitempty"`
	// Existing is set when the notebook page was there before this run
	// (found, or a file import's adopted): its section databases may
	// hold rows, so a migration run looks for pages moved between them
	// before it writes. A brand-new notebook has none to look for.
	Existing bool `json:",omitempty"`
	// Renamed counts the containers whose title was set to OneNote's
	// (renamed in OneNote, or by a person in Notion); Created counts the
	// containers made.
	Renamed int `json:",omitempty"`
	Created int `json:",omitempty"`
	// ViewsAdded counts the section databases made before views (or whose
	// view the record did not know) that this run gave their view
	// SectionViewName or found it on.
	ViewsAdded int `json:",omitempty"`
	// ViewsNotMade, when set, names the section databases left without
	// their view because Notion refused the Views API, and what to do:
	// their rows show every column in creation order. Nothing else
	// depends on the view, so the run goes on; the next one tries again.
	ViewsNotMade string `json:",omitempty"`
}

// FormerSection is a section the notebook no longer lists, and its
// database.
type FormerSection struct {
	ID, DatabaseID string
}

// EnsureLayout finds or creates the Notion containers of a notebook under
// the page parentPageID: a page for the notebook, a page per section group
// (nested as in OneNote), a database per section.
//
// Containers are found by the OneNote ID they came from, never by title
// alone, so a container a person renamed or moved in Notion is still
// found, and one renamed in OneNote is renamed in Notion (see
// identity.go: each container carries a stamp, and the notebook page holds
// the record of every container's Notion ID). Running EnsureLayout again
// creates nothing new. Siblings with the same name get " (2)", " (3)"… in
// the order given.
func (c *Client) EnsureLayout(ctx context.Context, parentPageID string, nb NotebookSpec) (Layout, error) {
	l := Layout{GroupPageIDs: map[string]string{}, SectionDatabaseIDs: map[string]string{}}
	page, rec, err := c.notebookPage(ctx, parentPageID, nb)
	if err != nil {
		return Layout{}, err
	}
	if page.created {
		l.Created++
	} else if page.title != nb.Name {
		if err := c.setContainerTitle(ctx, page.id, kindNotebook, nb.Name); err != nil {
			return Layout{}, err
		}
		l.Renamed++
	}
	l.NotebookPageID, l.Existing = page.id, !page.created
	e := &layoutRun{c: c, rec: rec, l: &l, seen: map[string]bool{}}
	if err := e.contents(ctx, page, nb.Sections, nb.SectionGroups, nb.Name); err != nil {
		return Layout{}, err
	}
	for id, dbID := range rec.Containers {
		if e.seen[id] || rec.Kinds[id] != kindSection {
			continue
		}
		if db, err := c.container(ctx, dbID, true); err == nil && db.live {
			l.Former = append(l.Former, FormerSection{ID: id, DatabaseID: dbID})
		}
	}
	slices.SortFunc(l.Former, func(a, b FormerSection) int { return strings.Compare(a.ID, b.ID) })
	if len(e.noView) > 0 {
		l.ViewsNotMade = fmt.Sprintf("the view %q was not made for %d section databases (%s): Notion refused the Views API (%v). "+
			"Their tables show every column, Note Bridge's bookkeeping included, in creation order; nothing else depends on the view. "+
			"Give the integration the capability to update content (or use a workspace whose API has views) and run again",
			SectionViewName, len(e.noView), strings.Join(e.noView, ", "), e.viewsRefused.Err)
	}
	if rec.changed {
		if err := c.writeRecord(ctx, rec); err != nil {
			return Layout{}, fmt.Errorf("notion: writing the notebook's record: %w", err)
		}
	}
	return l, nil
}

// layoutRun is one EnsureLayout's walk of the notebook tree.
type layoutRun struct {
	c    *Client
	rec  *record
	l    *Layout
	seen map[string]bool
	// stamped is every section database the integration can see, by the
	// OneNote section ID in its stamp; read once, when the record lacks
	// a section.
	stamped map[string][]stampedDB
	// viewsRefused is the first refusal of the Views API in this run:
	// once refused, no later database asks again. noView names the
	// sections left without their view.
	viewsRefused *ViewsRefusedError
	noView       []string
}

// contents ensures the sections and groups under the container page p,
// whose path is path.
func (e *layoutRun) contents(ctx context.Context, p found, sections []SectionSpec, groups []SectionGroupSpec, path string) error {
	if len(sections)+len(groups) == 0 {
		return nil
	}
	var kids []childBlock
	listed := false
	children := func() ([]childBlock, error) {
		if !listed {
			k, err := e.c.listChildren(ctx, p.id)
			if err != nil {
				return nil, err
			}
			kids, listed = k, true
		}
		return kids, nil
	}
	names := uniqueNames{}
	for _, s := range sections {
		e.seen[s.ID] = true
		title := names.next(s.Name)
		id, err := e.ensure(ctx, p.id, children, kindSection, s.ID, title, path+"/"+s.Name)
		if errors.Is(err, errGone) {
			if e.l.Gone == nil {
				e.l.Gone = map[string]string{}
			}
			e.l.Gone[s.ID] = err.Error()
			continue
		}
		if err != nil {
			return fmt.Errorf("notion: section %q: %w", s.Name, err)
		}
		e.l.SectionDatabaseIDs[s.ID] = id
	}
	for _, g := range groups {
		e.seen[g.ID] = true
		title := names.next(g.Name)
		id, err := e.ensure(ctx, p.id, children, kindGroup, g.ID, title, path+"/"+g.Name)
		if errors.Is(err, errGone) {
			// Its sections are looked for (and reported) on their own:
			// their databases may live on elsewhere.
			for _, s := range flattenSections(g) {
				if e.l.Gone == nil {
					e.l.Gone = map[string]string{}
				}
				e.seen[s.ID] = true
				e.l.Gone[s.ID] = err.Error()
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("notion: section group %q: %w", g.Name, err)
		}
		e.l.GroupPageIDs[g.ID] = id
		if err := e.contents(ctx, found{id: id}, g.Sections, g.SectionGroups, path+"/"+g.Name); err != nil {
			return err
		}
	}
	return nil
}

// flattenSections lists every section in g and below.
func flattenSections(g SectionGroupSpec) []SectionSpec {
	out := append([]SectionSpec(nil), g.Sections...)
	for _, sub := range g.SectionGroups {
		out = append(out, flattenSections(sub)...)
	}
	return out
}

// ensure finds or creates the container of OneNote object oneNoteID (a
// section's database or a group's page) meant to be titled title under
// the page parentID, and returns its Notion ID. In order: the record's
// Notion ID (renamed or moved by a person, it is still that object), a
// stamped container, an unstamped one titled as OneNote names it under
// parentID (made before containers carried stamps: it is adopted and
// stamped), or a new one.
func (e *layoutRun) ensure(ctx context.Context, parentID string, children func() ([]childBlock, error), kind, oneNoteID, title, path string) (string, error) {
	c := e.c
	if id := e.rec.Containers[oneNoteID]; id != "" {
		obj, err := c.container(ctx, id, kind == kindSection)
		if err != nil && !isNotFound(err) {
			return "", err
		}
		if err == nil && obj.live {
			e.placed(obj, kind, parentID, path)
			return id, e.adapt(ctx, obj, kind, oneNoteID, title, path)
		}
		return "", goneError(kind, path, id, err == nil && obj.trashed, e.rec.PageID)
	}
	id, err := e.findStamped(ctx, children, kind, oneNoteID)
	if err != nil {
		return "", err
	}
	if id == "" {
		if id, err = e.findLegacy(ctx, children, kind, title); err != nil {
			return "", err
		}
	}
	if id != "" {
		obj, err := c.container(ctx, id, kind == kindSection)
		if err != nil {
			return "", err
		}
		e.rec.set(oneNoteID, kind, id)
		e.placed(obj, kind, parentID, path)
		return id, e.adapt(ctx, obj, kind, oneNoteID, title, path)
	}
	refusedBefore := e.viewsRefused != nil
	id, view, err := c.createContainer(ctx, parentID, kind, oneNoteID, title, e.rec.PageID, !refusedBefore)
	if id != "" && e.noteRefusal(err, path) {
		err = nil
	}
	if err != nil {
		return "", err
	}
	if kind == kindSection && refusedBefore {
		e.noView = append(e.noView, path) // not asked again
	}
	e.l.Created++
	e.rec.set(oneNoteID, kind, id)
	e.rec.setView(oneNoteID, view)
	return id, nil
}

// noteRefusal reports whether err is the Views API refused, and then
// names the section at path as left without its view.
func (e *layoutRun) noteRefusal(err error, path string) bool {
	var refused *ViewsRefusedError
	if !errors.As(err, &refused) {
		return false
	}
	if e.viewsRefused == nil {
		e.viewsRefused = refused
	}
	e.noView = append(e.noView, path)
	return true
}

// ensureView gives section oneNoteID's database db (data source ds,
// schema props), found rather than made by this run, its view unless the
// record names one: once, at most 2 + (its views) requests (views.go).
func (e *layoutRun) ensureView(ctx context.Context, db, ds string, props map[string]schemaProperty, oneNoteID, path string) error {
	if e.rec.Views[oneNoteID] != "" {
		return nil
	}
	if e.viewsRefused != nil {
		e.noView = append(e.noView, path)
		return nil
	}
	view, err := e.c.addSectionView(ctx, db, ds, props)
	if e.noteRefusal(err, path) {
		return nil
	}
	if err != nil {
		return err
	}
	e.rec.setView(oneNoteID, view)
	e.l.ViewsAdded++
	return nil
}

// placed names a section database found under another page than
// parentID, where OneNote places it.
func (e *layoutRun) placed(obj containerObject, kind, parentID, path string) {
	if kind != kindSection || obj.parentPageID == "" || SameID(obj.parentPageID, parentID) {
		return
	}
	e.l.Elsewhere = append(e.l.Elsewhere, fmt.Sprintf("the database of section %q is not under its section group's page "+
		"in Notion (moved there by a person, or the section moved in OneNote); Notion's API cannot move a database, "+
		"so it stays and is kept in step where it is: drag it in Notion to match OneNote if you wish", path))
}

// adapt brings a found container in step: OneNote's title, its stamp,
// and (a database) the section schema and its view.
func (e *layoutRun) adapt(ctx context.Context, obj containerObject, kind, oneNoteID, title, path string) error {
	c := e.c
	if obj.title != title {
		if err := c.setContainerTitle(ctx, obj.id, kind, title); err != nil {
			return err
		}
		e.l.Renamed++
	}
	if kind == kindSection {
		if obj.stampID != oneNoteID || obj.home != e.rec.PageID {
			if err := c.stampDatabase(ctx, obj.id, oneNoteID, e.rec.PageID); err != nil {
				return err
			}
		}
		ds, props, err := c.ensureSchemaOf(ctx, obj.id)
		if err != nil {
			return err
		}
		return e.ensureView(ctx, obj.id, ds, props, oneNoteID, path)
	}
	if obj.stampID != oneNoteID {
		return c.stampPage(ctx, obj.id, kind, oneNoteID)
	}
	return nil
}

// findStamped looks for the container stamped with oneNoteID: a database
// anywhere the integration can see (a person may have moved it), or a
// group page among the parent's children.
func (e *layoutRun) findStamped(ctx context.Context, children func() ([]childBlock, error), kind, oneNoteID string) (string, error) {
	if kind == kindSection {
		if e.stamped == nil {
			m, err := e.c.stampedDatabases(ctx)
			if err != nil {
				return "", err
			}
			e.stamped = m
		}
		for _, d := range e.stamped[oneNoteID] {
			if d.home == e.rec.PageID {
				return d.id, nil
			}
		}
		return "", nil
	}
	kids, err := children()
	if err != nil {
		return "", err
	}
	for _, k := range kids {
		if k.Type != "child_page" {
			continue
		}
		st, err := e.c.pageStamp(ctx, k.ID)
		if err != nil {
			return "", err
		}
		if st.kind == kind && st.id == oneNoteID {
			return k.ID, nil
		}
	}
	return "", nil
}

// findLegacy finds an unstamped child of the parent titled title: a
// container made before containers carried stamps. A stamped container is
// never taken by its title: it belongs to the object its stamp names.
func (e *layoutRun) findLegacy(ctx context.Context, children func() ([]childBlock, error), kind, title string) (string, error) {
	kids, err := children()
	if err != nil {
		return "", err
	}
	want := "child_page"
	if kind == kindSection {
		want = "child_database"
	}
	for _, k := range kids {
		if k.Type != want || childTitle(k) != title {
			continue
		}
		if kind == kindSection {
			obj, err := e.c.container(ctx, k.ID, true)
			if err != nil {
				return "", err
			}
			if obj.stampID == "" {
				return k.ID, nil
			}
			continue
		}
		st, err := e.c.pageStamp(ctx, k.ID)
		if err != nil {
			return "", err
		}
		if st.id == "" {
			return k.ID, nil
		}
	}
	return "", nil
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
// creating it if there is none. It is for Note Bridge's own pages (the
// migration report), which carry no OneNote identity.
func (c *Client) EnsurePage(ctx context.Context, parentPageID, title string) (string, error) {
	kids, err := c.listChildren(ctx, parentPageID)
	if err != nil {
		return "", err
	}
	if id := findChild(kids, "child_page", title); id != "" {
		return id, nil
	}
	lookup := func(ctx context.Context) (json.RawMessage, bool, error) {
		kids, err := c.listChildren(ctx, parentPageID)
		if err != nil {
			return nil, false, err
		}
		id := findChild(kids, "child_page", title)
		if id == "" {
			return nil, false, nil
		}
		raw, _ := json.Marshal(map[string]string{"id": id})
		return raw, true, nil
	}
	var created struct {
		ID string `json:"id"`
	}
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/pages", out: &created, reconcile: lookup,
		body: jsonBody(map[string]any{"parent": map[string]any{"type": "page_id", "page_id": parentPageID},
			"properties": map[string]any{"title": map[string]any{"title": text(title)}}})})
	return created.ID, err
}

func findChild(kids []childBlock, kind, title string) string {
	for _, k := range kids {
		if k.Type == kind && childTitle(k) == title {
			return k.ID
		}
	}
	return ""
}

// childTitle is the title of a child page or database block.
func childTitle(k childBlock) string {
	switch {
	case k.ChildPage != nil:
		return k.ChildPage.Title
	case k.ChildDatabase != nil:
		return k.ChildDatabase.Title
	}
	return ""
}
