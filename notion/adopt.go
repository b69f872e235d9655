package notion

import (
	"context"
	"fmt"
	"net/http"
	"strings"
)

// Adopting a file import's containers (NotebookSpec.AdoptPage).
//
// A file import keys its containers by the files' GUIDs, Graph by IDs of
// its own, and a Graph notebook carries no GUID. So a Graph run never
// finds a file import's notebook page by itself, and nothing is guessed
// (a title is no identity): the operator names the page, and it is
// checked. A section is matched by its GUID, which Graph gives in the
// section's links.oneNoteClientUrl (section-id) and the file import put
// in the database's stamp; a section group (no link on Graph's side) by
// the page its matched sections' databases sit under. Adopting rewrites
// the record and the stamps to Graph's IDs, so later runs find the
// containers as if Graph had made them.

// AdoptError is a notebook page that cannot be adopted, and why.
type AdoptError struct{ Msg string }

func (e *AdoptError) Error() string { return e.Msg }

// adoptNotebookPage takes over the notebook page nb.AdoptPage, made by a
// file import of the same notebook under parentPageID. It refuses a page
// that is gone, is no Note Bridge notebook page, was made under another
// parent, or shares no section GUID with nb. The record is written under
// Graph's IDs before the page's stamp is, so a run stopped between the two
// adopts again.
func (c *Client) adoptNotebookPage(ctx context.Context, parentPageID string, nb NotebookSpec) (found, *record, error) {
	id := nb.AdoptPage
	refuse := func(why string) (found, *record, error) {
		return found{}, nil, &AdoptError{fmt.Sprintf("notion: cannot adopt page %s as the notebook page of %q: %s", id, nb.Name, why)}
	}
	p, err := c.container(ctx, id, false)
	if isNotFound(err) {
		return refuse("Notion has no such page shared with the integration; check the ID (the file import's notebook page, under the parent page)")
	}
	if err != nil {
		return found{}, nil, err
	}
	if !p.live {
		return refuse("it is in Notion's trash; restore it and run again")
	}
	st, err := c.pageStamp(ctx, id)
	if err != nil {
		return found{}, nil, err
	}
	if st.kind != kindNotebook {
		return refuse("it is not a notebook page made by Note Bridge (it has no notebook stamp); name the page a file import made")
	}
	rec, err := c.readRecord(ctx, id, st.id, st)
	if err != nil {
		return found{}, nil, err
	}
	if rec.blockID == "" {
		// Stopped after writing the record, before the stamp.
		if rec, err = c.readRecord(ctx, id, nb.ID, st); err != nil {
			return found{}, nil, err
		}
	}
	if rec.blockID == "" {
		return refuse("its Note Bridge record is missing; import the file again under the same parent first")
	}
	if rec.Parent != "" && !SameID(rec.Parent, parentPageID) {
		return refuse(fmt.Sprintf("it was made under another parent page (%s); run with that parent", rec.Parent))
	}
	adopted := &record{Notebook: nb.ID, Parent: parentPageID, Containers: map[string]string{}, Kinds: map[string]string{},
		PageID: id, stampID: st.blockID, blockID: rec.blockID, changed: true}
	// Entries not taken over stay under their file IDs: a section Graph
	// does not list is then a former section, whose rows a sync reads.
	taken := map[string]bool{}
	matched := 0
	for _, s := range specSections(nb.Sections, nb.SectionGroups) {
		if db := rec.Containers[s.ID]; db != "" && rec.Kinds[s.ID] == kindSection {
			adopted.set(s.ID, kindSection, db) // already adopted
			adopted.setView(s.ID, rec.Views[s.ID])
			matched++
			continue
		}
		key := strings.ToLower(s.GUID)
		if db := rec.Containers[key]; key != "" && db != "" && rec.Kinds[key] == kindSection {
			adopted.set(s.ID, kindSection, db)
			adopted.setView(s.ID, rec.Views[key])
			taken[key] = true
			matched++
		}
	}
	if matched == 0 {
		return refuse("none of its section databases is a section of this notebook (no section GUID in Graph's links " +
			"matches the record); it was made from another notebook")
	}
	if err := c.adoptGroups(ctx, rec, adopted, taken, nb.SectionGroups); err != nil {
		return found{}, nil, err
	}
	for k, v := range rec.Containers {
		if !taken[k] && adopted.Containers[k] == "" {
			adopted.Containers[k], adopted.Kinds[k] = v, rec.Kinds[k]
			adopted.setView(k, rec.Views[k])
		}
	}
	if err := c.writeRecord(ctx, adopted); err != nil {
		return found{}, nil, fmt.Errorf("notion: writing the adopted notebook's record: %w", err)
	}
	adopted.changed = false
	if st.id != nb.ID {
		err := c.do(ctx, call{method: http.MethodPatch, path: "/v1/blocks/" + st.blockID,
			body:      jsonBody(map[string]any{"paragraph": map[string]any{"rich_text": text(stampText(kindNotebook, nb.ID, "")), "color": "gray"}}),
			reconcile: noReconcile})
		if err != nil {
			return found{}, nil, fmt.Errorf("notion: stamping the adopted notebook page: %w", err)
		}
	}
	return found{id: id, title: p.title}, adopted, nil
}

// adoptGroups takes over the group pages of a file import: Graph's group
// g is the old record's group page that holds the database of one of g's
// own sections (a group whose sections match none is made anew).
func (c *Client) adoptGroups(ctx context.Context, old, adopted *record, taken map[string]bool, groups []SectionGroupSpec) error {
	for _, g := range groups {
		if adopted.Containers[g.ID] == "" {
			if page := old.Containers[g.ID]; page != "" && old.Kinds[g.ID] == kindGroup {
				adopted.set(g.ID, kindGroup, page)
			}
		}
		for _, s := range g.Sections {
			if adopted.Containers[g.ID] != "" {
				break
			}
			db := adopted.Containers[s.ID]
			if db == "" {
				continue
			}
			obj, err := c.container(ctx, db, true)
			if isNotFound(err) {
				continue
			}
			if err != nil {
				return err
			}
			for k, page := range old.Containers {
				if old.Kinds[k] == kindGroup && !taken[k] && obj.parentPageID != "" && SameID(page, obj.parentPageID) {
					adopted.set(g.ID, kindGroup, page)
					taken[k] = true
					break
				}
			}
		}
		if err := c.adoptGroups(ctx, old, adopted, taken, g.SectionGroups); err != nil {
			return err
		}
	}
	return nil
}
