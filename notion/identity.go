package notion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
)

// How a notebook's containers keep their OneNote identity in Notion.
//
// A title is no identity: a person renames a database, and OneNote renames
// a section. Two records name each container by the OneNote object it came
// from, and a container is never taken for another by its title:
//   - the record, on the notebook page: a code block under the notebook's
//     stamp that maps each group's and section's OneNote ID to its Notion
//     ID. A Notion ID survives a rename and a move in Notion, so the next
//     run finds the container by it, and tells one in the trash (or
//     deleted) from one never made: the first is named, never made again.
//   - the stamp, on each container: a section database's description, a
//     page's first paragraph ("Kept in step with OneNote by Note Bridge ·
//     section ID …"). It rebuilds the record if a person deleted it, and
//     finds a database a person moved anywhere the integration can see.
//
// Containers made before stamps existed are found by title once, under
// the parent OneNote gives them, and stamped.

// The kinds of container.
const (
	kindNotebook = "notebook"
	kindGroup    = "section group"
	kindSection  = "section"
)

// stampPrefix starts every stamp.
const stampPrefix = "Kept in step with OneNote by Note Bridge · "

// stampPattern reads a stamp's kind, OneNote ID and (a database's) home:
// the notebook page it belongs to.
var stampPattern = regexp.MustCompile(`Kept in step with OneNote by Note Bridge · (notebook|section group|section) ID (\S+)(?: · notebook page (\S+))?`)

// stampText is the stamp of the container of OneNote object id; a
// section database's names its home, the notebook page of its copy (the
// same notebook migrated under two parents is two copies, each with its
// own databases).
func stampText(kind, id, home string) string {
	s := stampPrefix + kind + " ID " + id
	if home != "" {
		s += " · notebook page " + home
	}
	return s
}

// stamp is what a stamp says.
type stamp struct {
	kind, id, home string
	// blockID is the stamp paragraph's block (pages), and hasChildren
	// tells whether it holds the record.
	blockID     string
	hasChildren bool
}

func parseStamp(s string) stamp {
	m := stampPattern.FindStringSubmatch(s)
	if m == nil {
		return stamp{}
	}
	return stamp{kind: m[1], id: m[2], home: m[3]}
}

// record is the notebook's record of its containers (see above).
type record struct {
	// Notebook is the notebook's OneNote ID, and Parent the Notion page
	// its copy was made under: a notebook page a person moved is still
	// this copy's, one made under another parent is another copy.
	Notebook string `json:"notebook"`
	Parent   string `json:"parent,omitempty"`
	// Containers maps OneNote IDs to Notion IDs, and Kinds them to
	// kindGroup or kindSection.
	Containers map[string]string `json:"containers"`
	Kinds      map[string]string `json:"kinds"`
	// Views maps a section's OneNote ID to the Notion ID of its view
	// SectionViewName (views.go), made or found by an earlier run: a
	// section it names costs no request for its view, and a view a person
	// deleted is not made again. Records written before views lack it.
	Views map[string]string `json:"views,omitempty"`
	// PageID is the notebook page; stampID its stamp paragraph and
	// blockID the record's code block ("" when missing).
	PageID  string `json:"-"`
	stampID string
	blockID string
	changed bool
}

func (r *record) set(oneNoteID, kind, notionID string) {
	if r.Containers[oneNoteID] == notionID && r.Kinds[oneNoteID] == kind {
		return
	}
	r.Containers[oneNoteID], r.Kinds[oneNoteID] = notionID, kind
	r.changed = true
}

// setView records viewID as the view of section oneNoteID.
func (r *record) setView(oneNoteID, viewID string) {
	if viewID == "" || r.Views[oneNoteID] == viewID {
		return
	}
	if r.Views == nil {
		r.Views = map[string]string{}
	}
	r.Views[oneNoteID] = viewID
	r.changed = true
}

// errGone marks a container the record names that Notion no longer has.
var errGone = errors.New("container gone")

type goneErr struct{ msg string }

func (e goneErr) Error() string        { return e.msg }
func (e goneErr) Is(target error) bool { return target == errGone }

// goneError names a container the record holds that is in Notion's trash
// (trashed) or deleted or unshared, and what to do.
func goneError(kind, path, notionID string, trashed bool, notebookPage string) error {
	what := "database"
	if kind != kindSection {
		what = "page"
	}
	where := "was deleted from Notion or is no longer shared with the integration: share it again"
	if trashed {
		where = "is in Notion's trash: restore it from the trash"
	}
	return goneErr{fmt.Sprintf("the Notion %s of OneNote %s %q (%s) %s and run again; or, to write it anew in a new %s, "+
		"delete its line from the Note Bridge record on the notebook's page (%s) and run again. Nothing was written for it, "+
		"so no page of it is duplicated", what, kind, path, notionID, where, what, notebookPage)}
}

// found is a container page found or made.
type found struct {
	id, title string
	created   bool
}

// containerObject is a container as Notion returns it.
type containerObject struct {
	id, title    string
	live         bool
	trashed      bool
	stampID      string
	home         string
	description  []blocks.RichText
	parentPageID string
}

// container reads database (db) or page id. A page's stamp is not read
// (see pageStamp).
func (c *Client) container(ctx context.Context, id string, db bool) (containerObject, error) {
	if db {
		var d databaseObject
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/databases/" + id, out: &d}); err != nil {
			return containerObject{}, err
		}
		st := parseStamp(plain(d.Description))
		o := containerObject{id: d.ID, title: plain(d.Title), live: !d.Archived && !d.InTrash, trashed: d.Archived || d.InTrash,
			stampID: st.id, home: st.home, parentPageID: d.Parent.PageID, description: d.Description}
		if len(d.DataSources) == 1 {
			c.rememberSource(d.ID, d.DataSources[0].ID)
		}
		return o, nil
	}
	var p pageObject
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pages/" + id, out: &p}); err != nil {
		return containerObject{}, err
	}
	return containerObject{id: p.ID, title: plain(p.Properties["title"].Title), live: !p.Archived && !p.InTrash,
		trashed: p.Archived || p.InTrash, parentPageID: p.Parent.PageID}, nil
}

// pageStamp reads the stamp among page id's children (zero if none).
func (c *Client) pageStamp(ctx context.Context, id string) (stamp, error) {
	kids, err := c.listChildren(ctx, id)
	if err != nil {
		return stamp{}, err
	}
	return stampOf(kids), nil
}

// stampOf finds the stamp paragraph among a page's children.
func stampOf(kids []childBlock) stamp {
	for _, k := range kids {
		if k.Type != "paragraph" || k.Paragraph == nil {
			continue
		}
		if st := parseStamp(plain(k.Paragraph.RichText)); st.id != "" {
			st.blockID, st.hasChildren = k.ID, k.HasChildren
			return st
		}
	}
	return stamp{}
}

// stampParagraph is a page's stamp block; the notebook's holds the
// record (children).
func stampParagraph(kind, id string, children []any) map[string]any {
	p := map[string]any{"rich_text": text(stampText(kind, id, "")), "color": "gray"}
	if len(children) > 0 {
		p["children"] = children
	}
	return map[string]any{"object": "block", "type": "paragraph", "paragraph": p}
}

// recordBlock is the code block that holds the record.
func recordBlock(r *record) map[string]any {
	return map[string]any{"object": "block", "type": "code", "code": map[string]any{
		"rich_text": text(r.encode()), "language": "json"}}
}

func (r *record) encode() string {
	b, _ := json.Marshal(r)
	return string(b)
}

// notebookPage finds or makes the notebook's page under parentPageID and
// reads its record. In order: a child page stamped as this notebook (the
// ones titled as the notebook first), a page stamped as this notebook
// above a database stamped as one of its sections (a person moved the
// notebook page), an unstamped child titled as the notebook, or a new one.
func (c *Client) notebookPage(ctx context.Context, parentPageID string, nb NotebookSpec) (found, *record, error) {
	kids, err := c.listChildren(ctx, parentPageID)
	if err != nil {
		return found{}, nil, err
	}
	var titled, others []childBlock
	for _, k := range kids {
		if k.Type != "child_page" {
			continue
		}
		if childTitle(k) == nb.Name {
			titled = append(titled, k)
		} else {
			others = append(others, k)
		}
	}
	var legacy string
	for _, k := range append(titled, others...) {
		pk, err := c.listChildren(ctx, k.ID)
		if err != nil {
			return found{}, nil, err
		}
		st := stampOf(pk)
		if st.kind == kindNotebook && st.id == nb.ID {
			rec, err := c.readRecord(ctx, k.ID, nb.ID, st)
			if rec != nil {
				rec.Parent = parentPageID
			}
			return found{id: k.ID, title: childTitle(k)}, rec, err
		}
		if st.id == "" && legacy == "" && childTitle(k) == nb.Name {
			legacy = k.ID
		}
	}
	if p, rec, err := c.movedNotebookPage(ctx, parentPageID, nb); err != nil || rec != nil {
		return p, rec, err
	}
	if nb.AdoptPage != "" {
		return c.adoptNotebookPage(ctx, parentPageID, nb)
	}
	rec := &record{Notebook: nb.ID, Parent: parentPageID, Containers: map[string]string{}, Kinds: map[string]string{}}
	if legacy != "" {
		rec.PageID, rec.changed = legacy, true
		return found{id: legacy, title: nb.Name}, rec, nil
	}
	id, err := c.createStampedPage(ctx, parentPageID, kindNotebook, nb.ID, nb.Name, rec)
	if err != nil {
		return found{}, nil, err
	}
	rec.PageID = id
	// The record was made with the page; its block is found when it
	// is next written.
	rec.changed = false
	return found{id: id, created: true}, rec, nil
}

// movedNotebookPage finds this copy's notebook page where a person moved
// it: the home named by a database stamped as one of its sections, if
// that page is stamped as this notebook and its record says it was made
// under parentPageID.
func (c *Client) movedNotebookPage(ctx context.Context, parentPageID string, nb NotebookSpec) (found, *record, error) {
	dbs, err := c.stampedDatabases(ctx)
	if err != nil {
		return found{}, nil, err
	}
	tried := map[string]bool{}
	for _, s := range specSections(nb.Sections, nb.SectionGroups) {
		for _, d := range dbs[s.ID] {
			if d.home == "" || tried[d.home] {
				continue
			}
			tried[d.home] = true
			p, err := c.container(ctx, d.home, false)
			if isNotFound(err) || (err == nil && !p.live) {
				continue
			}
			if err != nil {
				return found{}, nil, err
			}
			st, err := c.pageStamp(ctx, d.home)
			if err != nil {
				return found{}, nil, err
			}
			if st.kind != kindNotebook || st.id != nb.ID {
				continue
			}
			rec, err := c.readRecord(ctx, d.home, nb.ID, st)
			if err != nil {
				return found{}, nil, err
			}
			if rec.Parent == parentPageID {
				return found{id: d.home, title: p.title}, rec, nil
			}
		}
	}
	return found{}, nil, nil
}

// specSections lists every section of a notebook, in order.
func specSections(sections []SectionSpec, groups []SectionGroupSpec) []SectionSpec {
	out := append([]SectionSpec(nil), sections...)
	for _, g := range groups {
		out = append(out, flattenSections(g)...)
	}
	return out
}

// readRecord reads the record under the notebook page's stamp st. A
// record a person deleted or damaged is rebuilt from the stamps.
func (c *Client) readRecord(ctx context.Context, pageID, notebookID string, st stamp) (*record, error) {
	rec := &record{Notebook: notebookID, Containers: map[string]string{}, Kinds: map[string]string{}, PageID: pageID, stampID: st.blockID}
	if !st.hasChildren {
		rec.changed = true
		return rec, nil
	}
	kids, err := c.listChildren(ctx, st.blockID)
	if err != nil {
		return nil, err
	}
	for _, k := range kids {
		if k.Type != "code" || k.Code == nil {
			continue
		}
		var got record
		if json.Unmarshal([]byte(plain(k.Code.RichText)), &got) != nil || got.Notebook != notebookID {
			continue
		}
		rec.blockID, rec.Parent = k.ID, got.Parent
		for id, n := range got.Containers {
			if kind := got.Kinds[id]; kind == kindGroup || kind == kindSection {
				rec.Containers[id], rec.Kinds[id] = n, kind
			}
		}
		for id, v := range got.Views {
			if rec.Kinds[id] == kindSection && v != "" {
				if rec.Views == nil {
					rec.Views = map[string]string{}
				}
				rec.Views[id] = v
			}
		}
		return rec, nil
	}
	rec.changed = true
	return rec, nil
}

// writeRecord saves the record on the notebook page: in place, under the
// stamp, or with a new stamp when a person deleted it. Each step is safe
// to repeat.
func (c *Client) writeRecord(ctx context.Context, rec *record) error {
	if rec.blockID == "" {
		kids, err := c.listChildren(ctx, rec.PageID)
		if err != nil {
			return err
		}
		if st := stampOf(kids); st.kind == kindNotebook && st.id == rec.Notebook {
			rec.stampID = st.blockID
			if st.hasChildren {
				if have, err := c.readRecord(ctx, rec.PageID, rec.Notebook, st); err != nil {
					return err
				} else if have.blockID != "" {
					rec.blockID = have.blockID
				}
			}
		} else {
			rec.stampID = ""
		}
	}
	switch {
	case rec.blockID != "":
		return c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + rec.blockID,
			body:      jsonBody(map[string]any{"code": map[string]any{"rich_text": text(rec.encode()), "language": "json"}}),
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
	case rec.stampID != "":
		return c.appendOnce(ctx, rec.stampID, recordBlock(rec), func(kids []childBlock) bool {
			for _, k := range kids {
				if k.Type == "code" {
					return true
				}
			}
			return false
		})
	default:
		return c.appendOnce(ctx, rec.PageID, stampParagraph(kindNotebook, rec.Notebook, []any{recordBlock(rec)}),
			func(kids []childBlock) bool { return stampOf(kids).id == rec.Notebook })
	}
}

// appendOnce appends block b to parent; an append whose outcome is unknown
// is taken as done when there(children) says so.
func (c *Client) appendOnce(ctx context.Context, parent string, b map[string]any, there func([]childBlock) bool) error {
	return c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + parent + "/children",
		body: jsonBody(map[string]any{"children": []any{b}}),
		reconcile: func(ctx context.Context) (json.RawMessage, bool, error) {
			kids, err := c.listChildren(ctx, parent)
			if err != nil {
				return nil, false, err
			}
			return nil, there(kids), nil
		}})
}

// stampedDB is a section database found by its stamp, and its home.
type stampedDB struct{ id, home string }

// stampedDatabases maps the OneNote section IDs of every section database
// the integration can see (by search) to the databases stamped with it
// (one per copy of the notebook).
func (c *Client) stampedDatabases(ctx context.Context) (map[string][]stampedDB, error) {
	out := map[string][]stampedDB{}
	// Search lists data sources; the stamp is on their database.
	q := map[string]any{"filter": map[string]any{"property": "object", "value": "data_source"}, "page_size": 100}
	seen := map[string]bool{}
	for {
		var res listResponse
		if err := c.do(ctx, call{method: http.MethodPost, path: "/v1/search", body: jsonBody(q), out: &res,
			reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }}); err != nil {
			return nil, fmt.Errorf("notion: searching for the notebook's databases: %w", err)
		}
		for _, raw := range res.Results {
			var src struct {
				InTrash bool `json:"in_trash"`
				Parent  struct {
					DatabaseID string `json:"database_id"`
				} `json:"parent"`
			}
			if json.Unmarshal(raw, &src) != nil || src.InTrash || src.Parent.DatabaseID == "" || seen[normalID(src.Parent.DatabaseID)] {
				continue
			}
			seen[normalID(src.Parent.DatabaseID)] = true
			d, err := c.container(ctx, src.Parent.DatabaseID, true)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			if !d.live {
				continue
			}
			if st := parseStamp(plain(d.description)); st.kind == kindSection {
				out[st.id] = append(out[st.id], stampedDB{id: d.id, home: st.home})
			}
		}
		if !res.HasMore || res.NextCursor == nil || *res.NextCursor == "" {
			return out, nil
		}
		q["start_cursor"] = *res.NextCursor
	}
}

// createContainer makes the stamped container of OneNote object
// oneNoteID under page parentID: a section's database or a group's page.
// A database's view ID is returned too ("" when withView is false: the
// workspace refused views earlier in the run); a database whose view the
// workspace refuses is returned with a *ViewsRefusedError.
func (c *Client) createContainer(ctx context.Context, parentID, kind, oneNoteID, title, home string, withView bool) (id, view string, err error) {
	if kind != kindSection {
		id, err := c.createStampedPage(ctx, parentID, kind, oneNoteID, title, nil)
		return id, "", err
	}
	var created struct {
		ID          string          `json:"id"`
		DataSources []dataSourceRef `json:"data_sources"`
	}
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/databases", out: &created,
		reconcile: c.findCreated(parentID, "child_database", kind, oneNoteID),
		body: jsonBody(map[string]any{"parent": map[string]any{"type": "page_id", "page_id": parentID}, "title": text(title),
			"description": text(stampText(kind, oneNoteID, home)), "is_inline": false,
			"initial_data_source": map[string]any{"properties": sectionSchema()}})})
	if err != nil {
		return "", "", err
	}
	// A reconciled create answers with the ID only: the data source is
	// then read from the database.
	ds := ""
	if len(created.DataSources) == 1 {
		ds = created.DataSources[0].ID
		c.rememberSource(created.ID, ds)
	} else if ds, err = c.dataSource(ctx, created.ID); err != nil {
		return "", "", err
	}
	// The self-relation needs the data source's ID. Adding a property is
	// idempotent, so a lost answer is simply sent again. Its answer is the
	// schema the view is made from.
	var src dataSourceObject
	err = c.do(ctx, call{method: http.MethodPatch, path: "/v1/data_sources/" + ds, out: &src,
		body: jsonBody(map[string]any{"properties": parentRelation(ds)}), reconcile: noReconcile})
	if err != nil {
		return "", "", err
	}
	if src.ID == "" {
		if src, err = c.readSource(ctx, ds); err != nil {
			return "", "", err
		}
	}
	if !withView {
		return created.ID, "", nil
	}
	view, err = c.ensureSectionView(ctx, created.ID, ds, src.Properties)
	return created.ID, view, err
}

// createStampedPage makes a container page with its stamp (and the
// notebook's record) in one request, so no page is ever left unstamped.
func (c *Client) createStampedPage(ctx context.Context, parentID, kind, oneNoteID, title string, rec *record) (string, error) {
	var kids []any
	if rec != nil {
		kids = []any{recordBlock(rec)}
	}
	var created struct {
		ID string `json:"id"`
	}
	err := c.do(ctx, call{method: http.MethodPost, path: "/v1/pages", out: &created,
		reconcile: c.findCreated(parentID, "child_page", kind, oneNoteID),
		body: jsonBody(map[string]any{"parent": map[string]any{"type": "page_id", "page_id": parentID},
			"properties": map[string]any{"title": map[string]any{"title": text(title)}},
			"children":   []any{stampParagraph(kind, oneNoteID, kids)}})})
	return created.ID, err
}

// findCreated reconciles a create whose answer was lost: the container
// was made if a child of parentID of block type typ carries its stamp.
func (c *Client) findCreated(parentID, typ, kind, oneNoteID string) func(context.Context) (json.RawMessage, bool, error) {
	return func(ctx context.Context) (json.RawMessage, bool, error) {
		id, err := c.stampedChild(ctx, parentID, typ, kind, oneNoteID)
		if err != nil || id == "" {
			return nil, false, err
		}
		raw, _ := json.Marshal(map[string]string{"id": id})
		return raw, true, nil
	}
}

// stampedChild finds the child of parentID of block type typ stamped as
// OneNote object oneNoteID.
func (c *Client) stampedChild(ctx context.Context, parentID, typ, kind, oneNoteID string) (string, error) {
	kids, err := c.listChildren(ctx, parentID)
	if err != nil {
		return "", err
	}
	for _, k := range kids {
		if k.Type != typ {
			continue
		}
		var st stamp
		if typ == "child_database" {
			obj, err := c.container(ctx, k.ID, true)
			if err != nil {
				return "", err
			}
			st = stamp{kind: kindSection, id: obj.stampID}
		} else if st, err = c.pageStamp(ctx, k.ID); err != nil {
			return "", err
		}
		if st.kind == kind && st.id == oneNoteID {
			return k.ID, nil
		}
	}
	return "", nil
}

// setContainerTitle sets a container's title. Repeating it is harmless.
func (c *Client) setContainerTitle(ctx context.Context, id, kind, title string) error {
	none := func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }
	if kind == kindSection {
		return c.do(ctx, call{method: http.MethodPatch, path: "/v1/databases/" + id,
			body: jsonBody(map[string]any{"title": text(title)}), reconcile: none})
	}
	return c.do(ctx, call{method: http.MethodPatch, path: "/v1/pages/" + id,
		body: jsonBody(map[string]any{"properties": map[string]any{"title": map[string]any{"title": text(title)}}}), reconcile: none})
}

// stampDatabase adds the stamp to a database's description, after what a
// person wrote there.
func (c *Client) stampDatabase(ctx context.Context, id, oneNoteID, home string) error {
	obj, err := c.container(ctx, id, true)
	if err != nil {
		return err
	}
	desc := withoutStamp(obj.description)
	if len(desc) > 0 && !strings.HasSuffix(plain(desc), "\n") {
		desc = append(desc, blocks.RichText{Text: "\n"})
	}
	desc = append(desc, text(stampText(kindSection, oneNoteID, home))...)
	return c.do(ctx, call{method: http.MethodPatch, path: "/v1/databases/" + id,
		body:      jsonBody(map[string]any{"description": desc}),
		reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
}

// withoutStamp is a description without an old stamp (its runs from the
// one that starts a stamp on).
func withoutStamp(desc []blocks.RichText) []blocks.RichText {
	for i, r := range desc {
		if strings.HasPrefix(r.Text, stampPrefix) {
			return append([]blocks.RichText(nil), desc[:i]...)
		}
	}
	return append([]blocks.RichText(nil), desc...)
}

// stampPage adds a stamp to a container page that has none (made before
// stamps, or a person deleted it).
func (c *Client) stampPage(ctx context.Context, id, kind, oneNoteID string) error {
	kids, err := c.listChildren(ctx, id)
	if err != nil {
		return err
	}
	st := stampOf(kids)
	if st.kind == kind && st.id == oneNoteID {
		return nil
	}
	if st.kind == kind && !st.hasChildren {
		// Another source's stamp (an adopted file import's group page):
		// rewritten in place, so the page keeps one stamp.
		return c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + st.blockID,
			body:      jsonBody(map[string]any{"paragraph": map[string]any{"rich_text": text(stampText(kind, oneNoteID, "")), "color": "gray"}}),
			reconcile: noReconcile})
	}
	return c.appendOnce(ctx, id, stampParagraph(kind, oneNoteID, nil),
		func(kids []childBlock) bool { st := stampOf(kids); return st.kind == kind && st.id == oneNoteID })
}
