package graph

import (
	"net/http"
	"testing"
)

type container struct {
	ID            string      `json:"id"`
	DisplayName   string      `json:"displayName"`
	Sections      []container `json:"sections"`
	SectionGroups []container `json:"sectionGroups"`
}

// countTree returns the sections and section groups under c and the
// deepest section-group nesting.
func countTree(c container, depth int) (sections, groups, deepest int) {
	sections, deepest = len(c.Sections), depth
	for _, g := range c.SectionGroups {
		s, gr, d := countTree(g, depth+1)
		sections += s
		groups += gr + 1
		deepest = max(deepest, d)
	}
	return sections, groups, deepest
}

func TestNotebookTreeInOneCall(t *testing.T) {
	// 1 notebook, groups 2 per level nested 3 deep, 2 sections everywhere:
	// groups 2+4+8 = 14, sections 2*(1+14) = 30.
	spec := GenSpec{Notebooks: 1, GroupDepth: 3, GroupsPerLevel: 2, SectionsPerContainer: 2, PagesPerSection: 1}
	f := newFixture(t, Config{}, spec)
	for _, tc := range []struct {
		expand                    string
		sections, groups, deepest int
	}{
		{"sections", 2, 0, 0},
		{"sections,sectionGroups($expand=sections)", 2 + 4, 2, 1},
		{"sections,sectionGroups($expand=sections,sectionGroups)", 2 + 4, 2 + 4, 2},
	} {
		rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$expand="+tc.expand)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", tc.expand, rec.Code, rec.Body)
		}
		nbs := decode[struct{ Value []container }](t, rec.Body.Bytes()).Value
		if len(nbs) != 1 {
			t.Fatalf("%d notebooks", len(nbs))
		}
		s, g, d := countTree(nbs[0], 0)
		if s != tc.sections || g != tc.groups || d != tc.deepest {
			t.Errorf("$expand=%s: sections %d groups %d depth %d, want %d %d %d", tc.expand, s, g, d, tc.sections, tc.groups, tc.deepest)
		}
	}
}

func TestHierarchyEndpoints(t *testing.T) {
	spec := GenSpec{Notebooks: 2, GroupDepth: 2, GroupsPerLevel: 1, SectionsPerContainer: 2, PagesPerSection: 1}
	f := newFixture(t, Config{}, spec)
	count := func(path string) int {
		t.Helper()
		rec := f.get(t, "alice", path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return len(decode[struct{ Value []container }](t, rec.Body.Bytes()).Value)
	}
	nbs := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/notebooks").Body.Bytes()).Value
	if len(nbs) != 2 || nbs[0].DisplayName > nbs[1].DisplayName {
		t.Fatalf("notebooks %+v: want 2, by name", nbs)
	}
	nb := nbs[0].ID
	groups := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/notebooks/"+nb+"/sectionGroups").Body.Bytes()).Value
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/v1.0/me/onenote/notebooks/" + nb + "/sections", 2},
		{"/v1.0/me/onenote/notebooks/" + nb + "/sectionGroups", 1},
		{"/v1.0/me/onenote/sectionGroups/" + groups[0].ID + "/sections", 2},
		{"/v1.0/me/onenote/sectionGroups/" + groups[0].ID + "/sectionGroups", 1},
		{"/v1.0/me/onenote/sections?$filter=displayName ne ''", 2 * 3 * 2},
		{"/v1.0/me/onenote/sections?$filter=parentNotebook/id eq '" + nb + "'", 3 * 2},
		{"/v1.0/users/alice/onenote/notebooks", 2},
		{"/v1.0/users/" + UserGUID("alice") + "/onenote/sections?$filter=parentNotebook/id ne 'x'", 12},
	} {
		if got := count(tc.path); got != tc.want {
			t.Errorf("GET %s: %d items, want %d", tc.path, got, tc.want)
		}
	}
	for _, p := range []string{"/v1.0/me/onenote/notebooks/nope", "/v1.0/me/onenote/sections/nope/pages", "/v1.0/me/onenote/resources/nope/$value", "/v1.0/users/nobody/onenote/notebooks"} {
		if rec := f.get(t, "alice", p); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, rec.Code)
		}
	}
	// Resource URLs carry the route the request came through.
	rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks/"+nb)
	if got := decode[map[string]any](t, rec.Body.Bytes())["sectionsUrl"]; got != "http://graph.test/v1.0/me/onenote/notebooks/"+nb+"/sections" {
		t.Errorf("sectionsUrl %v", got)
	}
}

func TestBaseURLAndUserAddressing(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 30})
	f.srv.SetBaseURL("https://graph.example:8443/")
	for _, root := range []string{"/v1.0/me/onenote", "/v1.0/users/alice@contoso.example/onenote"} {
		rec := f.get(t, "alice", root+"/sections/"+f.firstSection("alice")+"/pages")
		pl := decode[pageList](t, rec.Body.Bytes())
		if want := "https://graph.example:8443" + root + "/sections/"; len(pl.NextLink) < len(want) || pl.NextLink[:len(want)] != want {
			t.Errorf("nextLink %q, want prefix %q", pl.NextLink, want)
		}
		if want := "https://graph.example:8443" + root + "/pages/"; len(pl.Value) == 0 || pl.Value[0].ContentURL[:len(want)] != want {
			t.Errorf("contentUrl %q, want prefix %q", pl.Value[0].ContentURL, want)
		}
	}
}
