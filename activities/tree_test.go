package activities_test

import (
	"strings"
	"testing"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/onenote"
)

// TestTreeActivities: the expanded listing says which groups are left to
// list; ListSectionGroups and ListSections list them, one Graph request
// each; the plain listing leaves the whole notebook to list.
func TestTreeActivities(t *testing.T) {
	f := newFixture(t)
	if len(f.nb.SectionGroups) == 0 || len(f.nb.SectionGroups[0].SectionGroups) == 0 {
		t.Fatal("the generated notebook has no nested section groups")
	}
	before := f.graph.Stats().Users["alice"].Requests
	nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
	if err != nil {
		t.Fatal(err)
	}
	tree := nbs.Match
	if tree.Unlisted || len(tree.Sections) != len(f.nb.Sections) || len(tree.SectionGroups) != len(f.nb.SectionGroups) {
		t.Fatalf("expanded tree: %+v", tree)
	}
	// Each section carries its GUID from Graph's section link, in lower
	// case: what a file import keyed its database by.
	for i, sec := range tree.Sections {
		if want := strings.ToLower(f.nb.Sections[i].GUID); want == "" || sec.GUID != want {
			t.Errorf("section %s has GUID %q, want %q", sec.Name, sec.GUID, want)
		}
	}
	g := tree.SectionGroups[0]
	if !g.GroupsUnlisted || g.SectionsUnlisted || len(g.Sections) != len(f.nb.SectionGroups[0].Sections) || len(g.SectionGroups) != 0 {
		t.Fatalf("first-level group: %+v", g)
	}
	groups, err := run[activities.ListGroupsResult](t, f, activities.ListGroupsName,
		activities.ListChildrenInput{User: "alice", Parent: onenote.Container{Kind: onenote.InSectionGroup, ID: g.ID}})
	if err != nil {
		t.Fatal(err)
	}
	inner := f.nb.SectionGroups[0].SectionGroups[0]
	if len(groups.Groups) != len(f.nb.SectionGroups[0].SectionGroups) || groups.Groups[0].ID != inner.ID ||
		!groups.Groups[0].SectionsUnlisted || !groups.Groups[0].GroupsUnlisted || groups.Outcome.Status != 200 {
		t.Fatalf("groups of %s: %+v", g.Name, groups)
	}
	secs, err := run[activities.ListSectionsResult](t, f, activities.ListSectionsName,
		activities.ListChildrenInput{User: "alice", Parent: onenote.Container{Kind: onenote.InSectionGroup, ID: inner.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if len(secs.Sections) != len(inner.Sections) || secs.Sections[0].ID != inner.Sections[0].ID || secs.Outcome.Status != 200 ||
		secs.Sections[0].GUID != strings.ToLower(inner.Sections[0].GUID) {
		t.Fatalf("sections of %s: %+v", inner.DisplayName, secs)
	}
	plain, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName, Plain: true})
	if err != nil {
		t.Fatal(err)
	}
	if plain.Match == nil || !plain.Match.Unlisted || len(plain.Match.Sections)+len(plain.Match.SectionGroups) != 0 {
		t.Fatalf("plain listing: %+v", plain.Match)
	}
	if got := f.graph.Stats().Users["alice"].Requests - before; got != 4 {
		t.Errorf("4 tree activities made %d Graph requests", got)
	}
}
