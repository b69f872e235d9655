package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/onenote"
)

// TestMigrationFindsRowsOfMovedPages: a migration re-run's first pass
// (ReconcileStructure with MovesOnly) finds, with the sync's lookup, the
// row of each page moved to another section since (by page ID, page GUID,
// link GUID; a file import's row by its GUID key) in the database of the
// section it left, and moves it to the page's section: the same Notion
// page, keyed by the page's new ID (a file import's row keeps its key,
// for WritePage to take over), a moved subpage under its moved parent.
// Rows already in their section's database are left alone. Run again, it
// moves nothing; WritePage then writes the moved pages into those rows.
func TestMigrationFindsRowsOfMovedPages(t *testing.T) {
	f := newFixture(t)
	layout := laidOut(t, f)
	s0, s1 := f.nb.Sections[0], f.nb.Sections[1]
	db0, db1 := layout.SectionDatabaseIDs[s0.ID], layout.SectionDatabaseIDs[s1.ID]
	ctx := context.Background()
	nc, err := notion.NewClient(notion.Config{BaseURL: f.notionURL, Token: notion.StaticToken(f.notionTok)})
	if err != nil {
		t.Fatal(err)
	}
	list := func(s *graph.Section) []activities.PageMeta {
		t.Helper()
		var out []activities.PageMeta
		cur := onenote.PageCursor{SectionID: s.ID}
		for {
			r, err := run[activities.ListPagesResult](t, f, activities.ListPagesName, activities.ListPagesInput{User: "alice", Cursor: cur})
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Pages...)
			if r.Done {
				return out
			}
			cur = r.Next
		}
	}
	write := func(db string, p activities.PageMeta, key, text string) string {
		t.Helper()
		lm, _ := time.Parse(time.RFC3339Nano, p.LastModified)
		res, err := nc.WritePage(ctx, db, notion.PageInput{OneNotePageID: key, Title: p.Title, LinkID: p.LinkID, LastModified: lm,
			Blocks: []blocks.Block{{Type: blocks.Paragraph, RichText: []blocks.RichText{{Text: text}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return res.PageID
	}
	rows := func() map[string]notion.Row {
		t.Helper()
		out := map[string]notion.Row{}
		for _, db := range []string{db0, db1} {
			if err := nc.Rows(ctx, db, notion.RowFilter{}, func(r notion.Row) error {
				r.SectionPath = db // where it is
				out[r.PageID] = r
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}

	// Section 0 as a first migration left it: a row per page, the third
	// one written by a file import (keyed by the page's GUID).
	before := list(s0)
	group := -1 // a top-level page followed by a subpage
	for i := range before[:len(before)-1] {
		if i > 3 && before[i].Level == 0 && before[i+1].Level == 1 {
			group = i
			break
		}
	}
	if group < 0 || before[2].LinkID == "" {
		t.Fatalf("section 0 has no page group after its fourth page, or no link GUID: %+v", before)
	}
	importKey := strings.ToLower(before[2].LinkID)
	row := map[string]string{} // OneNote page ID before the move -> row
	for i, p := range before {
		key := p.ID
		if i == 2 {
			key = importKey
		}
		row[p.ID] = write(db0, p, key, "first migration")
	}
	total := len(rows())

	// In OneNote: a page, a page group and the imported page move to
	// section 1 (new IDs, same GUIDs).
	var err2 error
	movedTo := map[string]string{} // old ID -> new ID
	movedTo[before[1].ID], err2 = f.graph.MovePage(before[1].ID, s1.ID)
	if err2 != nil {
		t.Fatal(err2)
	}
	if movedTo[before[2].ID], err2 = f.graph.MovePage(before[2].ID, s1.ID); err2 != nil {
		t.Fatal(err2)
	}
	ids, err := f.graph.MovePageGroup(before[group].ID, s1.ID, graph.Place{})
	if err != nil || len(ids) < 2 {
		t.Fatalf("moving the page group: %v, %v", ids, err)
	}
	movedTo[before[group].ID], movedTo[before[group+1].ID] = ids[0], ids[1]
	in := activities.ReconcileStructureInput{MovesOnly: true, Sections: []activities.SyncSection{
		{ID: s0.ID, Path: s0.DisplayName, DatabaseID: db0, Pages: list(s0)},
		{ID: s1.ID, Path: s1.DisplayName, DatabaseID: db1, Pages: list(s1)}}}
	for i, want := range []int{len(ids) + 2, 0} { // run again (a retry): nothing left to move
		res, err := run[activities.ReconcileStructureResult](t, f, activities.ReconcileStructureName, in)
		if err != nil {
			t.Fatal(err)
		}
		if res.Moved != want || len(res.Failed) != 0 || len(res.Duplicates) != 0 {
			t.Errorf("pass %d: %+v, want %d moved, none failed or duplicated", i+1, res, want)
		}
		if i == 0 && (res.Orders > res.Moved || res.Parents > res.Moved) {
			t.Errorf("pass 1 placed rows that did not move: %+v", res)
		}
	}

	after := rows()
	if len(after) != total {
		t.Errorf("%d rows after the pass, want %d: none made, none lost", len(after), total)
	}
	for _, tc := range []struct {
		name   string
		old    string
		key    string // the row's key after the pass
		parent string // its Parent item
	}{
		{"moved page", before[1].ID, movedTo[before[1].ID], ""},
		{"file import's row", before[2].ID, importKey, ""},
		{"page group's parent", before[group].ID, movedTo[before[group].ID], ""},
		{"page group's subpage", before[group+1].ID, movedTo[before[group+1].ID], row[before[group].ID]},
	} {
		r := after[row[tc.old]]
		if r.SectionPath != db1 || r.OneNotePageID != tc.key || !notion.SameID(r.ParentRow, tc.parent) {
			t.Errorf("%s: row %s in %s keyed %q under %q; want in section 1's database (%s), keyed %q under %q",
				tc.name, row[tc.old], r.SectionPath, r.OneNotePageID, r.ParentRow, db1, tc.key, tc.parent)
		}
	}
	if r := after[row[before[0].ID]]; r.SectionPath != db0 || r.OneNotePageID != before[0].ID {
		t.Errorf("a page that stayed: row in %s keyed %q, want it where it was", r.SectionPath, r.OneNotePageID)
	}

	// The sections write: WritePage finds each moved row in its new
	// database (the imported one by its GUID key) and writes it in place.
	now := list(s1)
	for _, p := range now {
		old := ""
		for o, n := range movedTo {
			if n == p.ID {
				old = o
			}
		}
		if old == "" {
			continue
		}
		p.LastModified = time.Now().UTC().Format(time.RFC3339) // edited since
		if id := write(db1, p, p.ID, "edited after the move"); !notion.SameID(id, row[old]) {
			t.Errorf("page %q written to row %s, want its row %s", p.Title, id, row[old])
		}
	}
	final := rows()
	if len(final) != total {
		t.Errorf("%d rows after the writes, want %d", len(final), total)
	}
	if r := final[row[before[2].ID]]; r.OneNotePageID != movedTo[before[2].ID] {
		t.Errorf("the file import's row is keyed %q after WritePage, want Graph's %q", r.OneNotePageID, movedTo[before[2].ID])
	}
}
