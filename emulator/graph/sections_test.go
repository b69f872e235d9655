package graph

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRenameSectionAndGroup: a renamed section and section group show the
// new name everywhere (their own answers, $filter, the pages' parentSection
// and onenote: links) and keep every lastModifiedDateTime.
func TestRenameSectionAndGroup(t *testing.T) {
	f := outlineFixture(t)
	plans := f.sectionID(t, "Plans")
	_, ids := f.outline(t, plans)
	before, page := f.sectionMeta(t, plans), f.pageMeta(t, ids["A"])
	f.clock.Advance(time.Hour)
	if res := f.post(t, "/_emulator/sections/"+plans+"/rename", url.Values{"name": {"Roadmap"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("rename: %d %s", res.StatusCode, readAll(t, res.Body))
	}
	if id := f.sectionID(t, "Roadmap"); id != plans {
		t.Errorf("the renamed section has id %s, want %s", id, plans)
	}
	after, p := f.sectionMeta(t, plans), f.pageMeta(t, ids["A"])
	if after.DisplayName != "Roadmap" || after.LastModifiedDateTime != before.LastModifiedDateTime {
		t.Errorf("section after rename: %q %s, want Roadmap %s", after.DisplayName, after.LastModifiedDateTime, before.LastModifiedDateTime)
	}
	if p.ParentSection.DisplayName != "Roadmap" || !strings.Contains(p.Links.OneNoteClientURL.Href, "/Roadmap.one#") ||
		p.LastModifiedDateTime != page.LastModifiedDateTime {
		t.Errorf("page after the section rename: %+v", p)
	}

	group := f.groupID(t, "Archive")
	if res := f.post(t, "/_emulator/sectionGroups/"+group+"/rename", url.Values{"name": {"Attic"}}); res.StatusCode != http.StatusNoContent {
		t.Fatalf("group rename: %d %s", res.StatusCode, readAll(t, res.Body))
	}
	if id := f.groupID(t, "Attic"); id != group {
		t.Errorf("renamed group id %s, want %s", id, group)
	}
	old := f.sectionMeta(t, f.sectionID(t, "Old"))
	if old.ParentSectionGroup == nil || old.ParentSectionGroup.DisplayName != "Attic" {
		t.Errorf("section under the renamed group: %+v", old.ParentSectionGroup)
	}
	for _, path := range []string{"/_emulator/sections/nope/rename", "/_emulator/sectionGroups/nope/rename"} {
		if res := f.post(t, path, url.Values{"name": {"x"}}); res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d, want 400", path, res.StatusCode)
		}
	}
}

// TestMoveSection: within its notebook a section keeps its id and its
// pages theirs; to another notebook it gets a new id, its pages new ids
// with the same page part and the new section suffix, the same page-id
// GUIDs and timestamps; the old ids answer 404, and every parent link and
// $expand answer follows (reference fact 21).
func TestMoveSection(t *testing.T) {
	f := outlineFixture(t)
	plans, group := f.sectionID(t, "Plans"), f.groupID(t, "Archive")
	_, ids := f.outline(t, plans)
	page := f.pageMeta(t, ids["C"])

	// Into the section group, then out again: the id stays.
	for _, to := range []struct{ id, group string }{{group, "Archive"}, {f.notebookID(t, "Work"), ""}} {
		res := f.post(t, "/_emulator/sections/"+plans+"/move", url.Values{"to": {to.id}})
		if res.StatusCode != http.StatusOK {
			t.Fatalf("move to %s: %d %s", to.id, res.StatusCode, readAll(t, res.Body))
		}
		if m := decode[SectionMove](t, []byte(readAll(t, res.Body))); m.ID != plans || len(m.Pages) != 0 {
			t.Errorf("move within the notebook answered %+v", m)
		}
		sec := f.sectionMeta(t, plans)
		if got := parentName(sec.ParentSectionGroup); got != to.group {
			t.Errorf("parent group %q, want %q", got, to.group)
		}
		if got := f.expandedSections(t, "Work"); !slices.Contains(got, to.group+"/Plans") {
			t.Errorf("$expand of Work: %v, want %s/Plans", got, to.group)
		}
	}

	// To the other notebook: new ids.
	home := f.notebookID(t, "Home")
	m, err := f.srv.MoveSection(plans, home)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID == plans || len(m.Pages) != 7 {
		t.Fatalf("move across notebooks answered %+v", m)
	}
	if id := f.sectionID(t, "Plans"); id != m.ID {
		t.Errorf("listed id %s, want %s", id, m.ID)
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/sections/"+plans); rec.Code != http.StatusNotFound {
		t.Errorf("old section id answers %d", rec.Code)
	}
	suffix := "!s" + strings.ReplaceAll(f.sectionGUID(t, m.ID), "-", "")
	for old, id := range m.Pages {
		oldHead, _, _ := strings.Cut(old, "!s")
		if !strings.HasPrefix(id, oldHead+"!s") || !strings.HasSuffix(id, suffix) {
			t.Errorf("page %s became %s, want %s%s", old, id, oldHead, suffix)
		}
		if rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+old); rec.Code != http.StatusNotFound {
			t.Errorf("old page id answers %d", rec.Code)
		}
	}
	got, after := f.outline(t, m.ID)
	if got != "A:0 B:1 C:2 D:1 E:0 F:1 G:0" {
		t.Errorf("moved section's outline %q", got)
	}
	p := f.pageMeta(t, after["C"])
	if p.LastModifiedDateTime != page.LastModifiedDateTime || pageGUID(p.Links.OneNoteClientURL.Href) != pageGUID(page.Links.OneNoteClientURL.Href) {
		t.Errorf("moved page: %s %s, want %s %s", p.LastModifiedDateTime, pageGUID(p.Links.OneNoteClientURL.Href),
			page.LastModifiedDateTime, pageGUID(page.Links.OneNoteClientURL.Href))
	}
	if !strings.HasSuffix(p.Self, "/pages/"+after["C"]) || p.ParentSection.ID != m.ID || !strings.HasSuffix(p.ParentSection.Self, "/sections/"+m.ID) {
		t.Errorf("moved page's links: self %s parentSection %+v", p.Self, p.ParentSection)
	}
	if sec := f.sectionMeta(t, m.ID); sec.ParentNotebook.ID != home || sec.ParentSectionGroup != nil {
		t.Errorf("moved section's parents: %+v %+v", sec.ParentNotebook, sec.ParentSectionGroup)
	}
	if got := f.expandedSections(t, "Work"); slices.Contains(got, "/Plans") {
		t.Errorf("Work still lists Plans: %v", got)
	}
	if got := f.expandedSections(t, "Home"); !slices.Equal(got, []string{"/Garden", "/Plans"}) {
		t.Errorf("Home lists %v", got)
	}
	if _, err := f.srv.MoveSection(m.ID, "nope"); err == nil {
		t.Error("a move to an unknown container: no error")
	}
}

func parentName(m *entityMeta) string {
	if m == nil {
		return ""
	}
	return m.DisplayName
}

// expandedSections lists notebook name's sections as "group/section" from
// one $expand answer.
func (f *fixture) expandedSections(t *testing.T, name string) []string {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$expand=sections,sectionGroups($expand=sections)")
	var out []string
	for _, nb := range decode[struct{ Value []container }](t, rec.Body.Bytes()).Value {
		if nb.DisplayName != name {
			continue
		}
		for _, s := range nb.Sections {
			out = append(out, "/"+s.DisplayName)
		}
		for _, g := range nb.SectionGroups {
			for _, s := range g.Sections {
				out = append(out, g.DisplayName+"/"+s.DisplayName)
			}
		}
	}
	slices.Sort(out)
	return out
}

func (f *fixture) notebookID(t *testing.T, name string) string {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$filter=displayName eq '"+name+"'")
	nbs := decode[struct{ Value []container }](t, rec.Body.Bytes()).Value
	if len(nbs) != 1 {
		t.Fatalf("notebooks named %q: %s", name, rec.Body)
	}
	return nbs[0].ID
}

func (f *fixture) groupID(t *testing.T, name string) string {
	t.Helper()
	rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$expand=sectionGroups")
	for _, nb := range decode[struct{ Value []container }](t, rec.Body.Bytes()).Value {
		for _, g := range nb.SectionGroups {
			if g.DisplayName == name {
				return g.ID
			}
		}
	}
	t.Fatalf("no section group %q", name)
	return ""
}
