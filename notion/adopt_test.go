package notion_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
)

// fileSpec is a notebook as a file import keys it (the files' GUIDs, in
// lower case), graphSpec the same notebook as Graph lists it: its own
// IDs, the section GUIDs from its links (in any case), and a section the
// file does not have.
var (
	fileSpec = notion.NotebookSpec{ID: "nb-guid", Name: "Notes",
		Sections: []notion.SectionSpec{{ID: "guid-a", Name: "Work"}, {ID: "guid-b", Name: "Home"}},
		SectionGroups: []notion.SectionGroupSpec{{ID: "guid-g", Name: "Archive",
			Sections: []notion.SectionSpec{{ID: "guid-c", Name: "Old"}}}}}
	graphSpec = notion.NotebookSpec{ID: "0-nb!1", Name: "Notes (Graph)",
		Sections: []notion.SectionSpec{{ID: "0-s!a", Name: "Work", GUID: "GUID-A"}, {ID: "0-s!b", Name: "Home", GUID: "guid-b"},
			{ID: "0-s!n", Name: "New", GUID: "guid-new"}},
		SectionGroups: []notion.SectionGroupSpec{{ID: "0-g!1", Name: "Archive",
			Sections: []notion.SectionSpec{{ID: "0-s!c", Name: "Old", GUID: "guid-c"}}}}}
)

// TestLayoutAdoptsFileImport: a Graph layout naming a file import's
// notebook page takes over its page, its section databases (by GUID) and
// its group page (by where its section's database is), makes only the
// section the file lacks, and a later run without the name finds them
// all and makes nothing.
func TestLayoutAdoptsFileImport(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	ctx := context.Background()
	root := e.srv.RootPageID()
	file, err := c.EnsureLayout(ctx, root, fileSpec)
	if err != nil {
		t.Fatal(err)
	}
	creates := func() int { return containerCreates(e) }
	before := creates()
	spec := graphSpec
	spec.AdoptPage = file.NotebookPageID
	got, err := c.EnsureLayout(ctx, root, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got.NotebookPageID != file.NotebookPageID {
		t.Errorf("notebook page %s, want the import's %s", got.NotebookPageID, file.NotebookPageID)
	}
	for graphID, fileID := range map[string]string{"0-s!a": "guid-a", "0-s!b": "guid-b", "0-s!c": "guid-c"} {
		if got.SectionDatabaseIDs[graphID] != file.SectionDatabaseIDs[fileID] {
			t.Errorf("section %s has database %s, want the import's %s", graphID, got.SectionDatabaseIDs[graphID], file.SectionDatabaseIDs[fileID])
		}
	}
	if got.GroupPageIDs["0-g!1"] != file.GroupPageIDs["guid-g"] {
		t.Errorf("group page %s, want the import's %s", got.GroupPageIDs["0-g!1"], file.GroupPageIDs["guid-g"])
	}
	if n := creates() - before; n != 1 || got.SectionDatabaseIDs["0-s!n"] == "" {
		t.Errorf("adopting made %d containers, want 1 (the new section's database)", n)
	}
	before = creates()
	again, err := c.EnsureLayout(ctx, root, graphSpec)
	if err != nil {
		t.Fatal(err)
	}
	if n := creates() - before; n != 0 || again.NotebookPageID != got.NotebookPageID || again.GroupPageIDs["0-g!1"] != got.GroupPageIDs["0-g!1"] ||
		again.SectionDatabaseIDs["0-s!a"] != got.SectionDatabaseIDs["0-s!a"] {
		t.Errorf("the next run without adoptNotebookPage made %d containers; layout %+v, want %+v", n, again, got)
	}
}

// TestLayoutAdoptRefuses: a page that is no notebook page, another
// notebook's page or a page made under another parent is refused with
// an AdoptError naming why, and nothing is made.
func TestLayoutAdoptRefuses(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	ctx := context.Background()
	root := e.srv.RootPageID()
	file, err := c.EnsureLayout(ctx, root, fileSpec)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := e.srv.AddPage(root, "Just a page", true)
	if err != nil {
		t.Fatal(err)
	}
	other, err := e.srv.AddPage(root, "Elsewhere", true)
	if err != nil {
		t.Fatal(err)
	}
	stranger := graphSpec
	stranger.ID = "0-nb!2"
	stranger.Sections = []notion.SectionSpec{{ID: "0-s!x", Name: "Work", GUID: "guid-x"}}
	stranger.SectionGroups = nil
	for _, tc := range []struct {
		name, parent, page, why string
		spec                    notion.NotebookSpec
	}{
		{"not a notebook page", root, plain, "no notebook stamp", graphSpec},
		{"another notebook", root, file.NotebookPageID, "none of its section databases", stranger},
		{"another parent", other, file.NotebookPageID, "another parent page", graphSpec},
		{"no such page", root, "00000000-0000-0000-0000-000000000000", "no such page", graphSpec},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := containerCreates(e)
			spec := tc.spec
			spec.AdoptPage = tc.page
			_, err := c.EnsureLayout(ctx, tc.parent, spec)
			var adopt *notion.AdoptError
			if !errors.As(err, &adopt) || !strings.Contains(err.Error(), tc.why) || !strings.Contains(err.Error(), tc.page) {
				t.Errorf("error %v, want an AdoptError naming the page and %q", err, tc.why)
			}
			if n := containerCreates(e) - before; n != 0 {
				t.Errorf("the refused run made %d containers", n)
			}
		})
	}
}

// containerCreates counts the pages and databases created so far.
func containerCreates(e *env) int {
	n := 0
	for _, r := range e.srv.Requests(e.token) {
		if r.Method == "POST" && (r.Path == "/v1/pages" || r.Path == "/v1/databases") {
			n++
		}
	}
	return n
}
