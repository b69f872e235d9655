package workflows_test

import (
	"context"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/workflows"
)

// TestMigrationAgainAfterMoves migrates a notebook, moves a page (then
// edits it) and a page group to another section in OneNote (Graph gives
// them new IDs, the same GUIDs), and migrates again without sync: no row
// is added, each moved page's one row is its old Notion page, now in its
// new section's database, keyed by its new ID, and the edited page's
// content is the new one. A third migration writes nothing.
func TestMigrationAgainAfterMoves(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{spec: graph.GenSpec{Seed: 29, Owner: e2eUser, Notebooks: 1, SectionsPerContainer: 3,
		PagesPerSection: 6, SubpageLevels: 1}})
	nb := h.notebooks[0]
	secs := emuSections(nb)
	in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile,
		SectionParallelism: 3, PageParallelism: 3}
	total := 0
	for _, s := range secs {
		total += len(s.Pages)
	}
	if rep := wait(t, h.start(t, in), 5*time.Minute); rep.Written != total || rep.FailedPages != 0 || rep.Structure != nil {
		t.Fatalf("first migration: %s (structure pass %+v, want none)", rep.Message, rep.Structure)
	}
	before, _ := exportedRows(t, h.notion.Export(), nb.DisplayName)
	rowOf := map[string]string{}
	for _, r := range notionRows(t, h.notion.Export(), nb.DisplayName) {
		rowOf[r.OneNoteID] = r.NotionID
	}

	// In OneNote: a page moves from section 0 to 2 and is edited; a page
	// and its subpages move from section 1 to 2.
	s0, s1, s2 := secs[0], secs[1], secs[2]
	group := -1
	for i, p := range s1.Pages[:len(s1.Pages)-1] {
		if p.Level == 0 && s1.Pages[i+1].Level > 0 {
			group = i
			break
		}
	}
	if group < 0 {
		t.Fatal("section 1 has no page with a subpage")
	}
	time.Sleep(1100 * time.Millisecond) // the edit gets a timestamp of its own second
	moved := map[string]string{}        // new ID -> old ID
	old := s0.Pages[1].ID
	to, err := h.graph.MovePage(old, s2.ID)
	if err != nil {
		t.Fatal(err)
	}
	moved[to] = old
	edited := to
	if err := h.graph.TouchPage(edited); err != nil {
		t.Fatal(err)
	}
	var olds []string
	for _, p := range s1.Pages[group:] {
		if p != s1.Pages[group] && p.Level == 0 {
			break
		}
		olds = append(olds, p.ID)
	}
	ids, err := h.graph.MovePageGroup(s1.Pages[group].ID, s2.ID, graph.Place{})
	if err != nil || len(ids) != len(olds) || len(ids) < 2 {
		t.Fatalf("moving the page group %v: %v, %v", olds, ids, err)
	}
	for i, id := range ids {
		moved[id] = olds[i]
	}

	rep := wait(t, h.start(t, in), 5*time.Minute)
	t.Logf("migration after the moves: %s", rep.Message)
	if rep.Written != 1 || rep.FailedPages != 0 || rep.Structure == nil || rep.Structure.Moved != len(moved) ||
		len(rep.Structure.Failed) != 0 || len(rep.Structure.Duplicates) != 0 {
		t.Errorf("written %d (failed %d), structure %+v; want the edited page written, %d rows moved", rep.Written, rep.FailedPages,
			rep.Structure, len(moved))
	}
	rows := notionRows(t, h.notion.Export(), nb.DisplayName)
	if len(rows) != total {
		t.Errorf("%d rows after migrating again, want %d: a moved page must keep its one row", len(rows), total)
	}
	checkInStep(t, rows, oneNoteNow(h, nb))
	for _, r := range rows {
		if was, ok := moved[r.OneNoteID]; ok && (r.NotionID != rowOf[was] || r.Database != s2.DisplayName) {
			t.Errorf("moved page %s: row %s in %q, want its old row %s in %q", r.OneNoteID, r.NotionID, r.Database, rowOf[was], s2.DisplayName)
		}
	}
	after, dup := exportedRows(t, h.notion.Export(), nb.DisplayName)
	if len(dup) > 0 {
		t.Errorf("pages with two rows: %v", dup)
	}
	if a, b := after[edited], before[old]; a.Signature == b.Signature {
		t.Errorf("the edited page's row holds its old content")
	}
	if a, b := after[ids[1]], before[olds[1]]; a.Signature != b.Signature || !strings.EqualFold(strings.ReplaceAll(a.Parent, "-", ""),
		strings.ReplaceAll(rowOf[olds[0]], "-", "")) {
		t.Errorf("a moved subpage: content changed %v, parent %s, want its moved parent's row %s", a.Signature != b.Signature, a.Parent, rowOf[olds[0]])
	}

	again := wait(t, h.start(t, in), 5*time.Minute)
	if n := len(notionRows(t, h.notion.Export(), nb.DisplayName)); again.Written != 0 || n != total ||
		again.Structure == nil || again.Structure.Moved != 0 {
		t.Errorf("a third migration wrote %d pages, left %d rows, structure %+v; want 0, %d, nothing moved", again.Written, n, again.Structure, total)
	}
}

// TestFileImportThenGraphMigrationAfterAMove imports a .onepkg, moves a
// page to another section in the Graph notebook of the same GUIDs (as if
// moved since the export), and migrates it from Graph adopting the
// import: the moved page's row is the import's, moved to its new
// section's database; no row is added.
func TestFileImportThenGraphMigrationAfterAMove(t *testing.T) {
	h, fi, twin := smallAdoption(t)
	work, old := twin.Sections[0], twin.SectionGroups[0].Sections[0]
	movedRow := fi.rows[strings.ToLower(work.Pages[1].GUID)].ID
	to, err := h.graph.MovePage(work.Pages[1].ID, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	in := workflows.MigrateInput{User: e2eUser, Notebook: twin.ID, NotionParent: h.root, Limits: h.profile, SectionParallelism: 3,
		PageParallelism: 3, AdoptNotebookPage: fi.page}
	run, err := stack.StartMigration(context.Background(), h.c, e2eQueue, twin.ID, twin.DisplayName, in)
	if err != nil {
		t.Fatal(err)
	}
	rep := wait(t, run, 3*time.Minute)
	t.Logf("graph migration adopting the file import after a move: %s", rep.Message)
	if rep.Written != fi.total || rep.FailedPages != 0 || rep.Structure == nil || rep.Structure.Moved != 1 {
		t.Errorf("wrote %d of %d pages (%d failed), structure %+v; want each once, 1 row moved", rep.Written, fi.total, rep.FailedPages, rep.Structure)
	}
	checkAdopted(t, h, fi, twin)
	for _, r := range notionRows(t, h.notion.Export(), fi.spec.Name) {
		if r.OneNoteID == to && (r.NotionID != movedRow || r.Database != old.DisplayName) {
			t.Errorf("the moved page's row is %s in %q, want the import's %s in %q", r.NotionID, r.Database, movedRow, old.DisplayName)
		}
	}
}
