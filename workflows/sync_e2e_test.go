package workflows_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/verify"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/workflows"
)

// syncSpec is a small notebook of three sections of 12 pages with
// internal links and no resources, so a run's Graph requests are the
// tree, the listings and the contents alone.
func syncSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 23, Owner: e2eUser, Notebooks: 1, SectionsPerContainer: 3, PagesPerSection: 12, LinksPerPage: 1}
}

// syncRow is a live or archived row of a section database.
type syncRow struct {
	NotionID, OneNoteID, Title, LastModified, Database string
	Archived                                           bool
}

// notionRows reads every row of the notebook's section databases from the
// Notion emulator's export.
func notionRows(t *testing.T, ws notionemu.Workspace, notebook string) []syncRow {
	t.Helper()
	var out []syncRow
	var walk func(ps []notionemu.Page, in bool)
	walk = func(ps []notionemu.Page, in bool) {
		for _, p := range ps {
			inside := in || (p.Title == notebook && !p.Archived)
			if inside {
				for _, db := range p.Databases {
					for _, r := range db.Rows {
						out = append(out, syncRow{NotionID: r.ID, OneNoteID: verify.PropText(r.Properties[notion.PropOneNoteID]),
							Title: r.Title, LastModified: verify.PropDate(r.Properties[notion.PropLastModified]),
							Database: db.Title, Archived: r.Archived})
					}
				}
			}
			walk(p.Pages, inside)
		}
	}
	walk(ws.Pages, false)
	return out
}

// reportTexts returns the text of the top-level blocks of the notebook's
// migration report page.
func reportTexts(t *testing.T, ws notionemu.Workspace, notebook string) []string {
	t.Helper()
	var out []string
	var walk func(ps []notionemu.Page, in bool)
	walk = func(ps []notionemu.Page, in bool) {
		for _, p := range ps {
			if in && p.Title == notion.ReportTitle {
				raw, err := json.Marshal(p.Blocks)
				if err != nil {
					t.Fatal(err)
				}
				var bs []blocks.Block
				if err := json.Unmarshal(raw, &bs); err != nil {
					t.Fatal(err)
				}
				for _, b := range bs {
					var s strings.Builder
					for _, r := range b.RichText {
						s.WriteString(r.Text)
					}
					out = append(out, s.String())
				}
			}
			walk(p.Pages, in || p.Title == notebook)
		}
	}
	walk(ws.Pages, false)
	return out
}

// oneNotePage is a page as the Graph emulator holds it now.
type oneNotePage struct{ ID, Title, LastModified, Section string }

// oneNoteNow lists the notebook's live pages, section by section.
func oneNoteNow(h *harness, nb *graph.Notebook) map[string]oneNotePage {
	live := map[string]bool{}
	for _, id := range h.graph.PageIDs(e2eUser) {
		live[id] = true
	}
	out := map[string]oneNotePage{}
	for _, s := range emuSections(nb) {
		for _, p := range s.Pages {
			if live[p.ID] {
				out[p.ID] = oneNotePage{ID: p.ID, Title: p.Title, LastModified: p.LastModifiedDateTime.UTC().Format(time.RFC3339), Section: s.DisplayName}
			}
		}
	}
	return out
}

// checkInStep asserts that the live rows are OneNote's pages, one row
// each, with their titles, timestamps and sections.
func checkInStep(t *testing.T, rows []syncRow, want map[string]oneNotePage) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range rows {
		if r.Archived {
			continue
		}
		seen[r.OneNoteID]++
		w, ok := want[r.OneNoteID]
		switch {
		case !ok:
			t.Errorf("Notion holds a live row for %s (%q, %s), which OneNote no longer has", r.OneNoteID, r.Title, r.Database)
		case r.Title != w.Title || r.Database != w.Section:
			t.Errorf("row of %s: %q in %s, OneNote has %q in %s", r.OneNoteID, r.Title, r.Database, w.Title, w.Section)
		case !sameInstant(r.LastModified, w.LastModified):
			t.Errorf("row of %s (%q): last modified %s, OneNote says %s", r.OneNoteID, r.Title, r.LastModified, w.LastModified)
		}
	}
	for id, n := range seen {
		if n > 1 {
			t.Errorf("page %s has %d live rows", id, n)
		}
	}
	for id, w := range want {
		if seen[id] == 0 {
			t.Errorf("page %s (%q in %s) has no row in Notion", id, w.Title, w.Section)
		}
	}
}

func sameInstant(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	return err1 == nil && err2 == nil && ta.Truncate(time.Second).Equal(tb.Truncate(time.Second))
}

// syncRun starts a sync run of the notebook under its own workflow ID and
// waits for its report.
func (h *harness) syncRun(t *testing.T, n int, deletes string) workflows.NotebookReport {
	t.Helper()
	in := workflows.MigrateInput{User: e2eUser, Notebook: h.notebooks[0].DisplayName, NotionParent: h.root,
		Limits: h.profile, SectionParallelism: 3, PageParallelism: 3, Sync: &workflows.SyncOptions{Deletes: deletes}}
	id := fmt.Sprintf("%s-run%d", workflows.SyncWorkflowID(e2eUser, h.notebooks[0].ID), n)
	run, err := h.c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: e2eQueue},
		workflows.MigrateNotebookName, in)
	if err != nil {
		t.Fatal(err)
	}
	return wait(t, run, 5*time.Minute)
}

func (h *harness) graphRequests() int64 { return h.graph.Stats().Users[e2eUser].Requests }

// TestSyncEndToEnd migrates a notebook, then, between two sync runs,
// edits 3 pages, renames 2 without a timestamp change, moves 2 to another
// section, deletes 1, adds 1 and moves 1 page's timestamp by a second with
// no edit. After the second run (deletes: archive) Notion equals OneNote,
// no row is duplicated, moved rows kept their Notion page, and the run's
// Graph requests are the tree, the listings and exactly 6 contents: the 4
// pages written, the wobble's check, and the check of the moved page
// that lost its onenote: GUID (the other is matched by it for free).
func TestSyncEndToEnd(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{spec: syncSpec()})
	nb := h.notebooks[0]
	secs := emuSections(nb)
	if len(secs) != 3 {
		t.Fatalf("%d sections, want 3", len(secs))
	}
	listings := 0
	for _, s := range secs {
		listings += len(s.Pages)/100 + 1
	}
	in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile,
		SectionParallelism: 3, PageParallelism: 3}
	rep := wait(t, h.start(t, in), 5*time.Minute)
	if rep.Written != 36 || rep.FailedPages != 0 {
		t.Fatalf("migration: %s", rep.Message)
	}

	t.Run("a sync with nothing changed costs only the listings", func(t *testing.T) {
		before := h.graphRequests()
		rep := h.syncRun(t, 1, workflows.DeletesKeep)
		got := h.graphRequests() - before
		t.Logf("unchanged sync: %s; Graph requests %d (tree %d + listings %d)", rep.Message, got, treeCalls(nb), rep.Sync.ListCalls)
		if rep.Sync == nil || rep.Sync.Unchanged != 36 || rep.Written != 0 || rep.Sync.ContentChecks != 0 {
			t.Fatalf("report: %+v", rep.Sync)
		}
		if want := int64(treeCalls(nb) + listings); got != want || rep.Sync.ListCalls != listings {
			t.Errorf("Graph requests %d (listing %d), want %d: the tree and %d listings", got, rep.Sync.ListCalls, want, listings)
		}
	})

	// The changes, as people make them in OneNote.
	rowsBefore := map[string]string{}
	for _, r := range notionRows(t, h.notion.Export(), nb.DisplayName) {
		rowsBefore[r.OneNoteID] = r.NotionID
	}
	s0, s1, s2 := secs[0], secs[1], secs[2]
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(1100 * time.Millisecond) // edits get a timestamp of their own second
	for _, p := range []*graph.Page{s0.Pages[0], s0.Pages[1], s1.Pages[0]} {
		must(h.graph.TouchPage(p.ID))
	}
	must(h.graph.RenamePage(s0.Pages[2].ID, s0.Pages[2].Title+" (renamed)"))
	must(h.graph.RenamePage(s1.Pages[1].ID, s1.Pages[1].Title+" (renamed)"))
	movedFrom := []string{s0.Pages[3].ID, s1.Pages[2].ID}
	var movedTo []string
	// The first keeps its onenote: page-id GUID (the emulator's
	// inference), the second does not: it is found by its content.
	for i, move := range []func(string, string) (string, error){h.graph.MovePage, h.graph.MovePageNewGUID} {
		to, err := move(movedFrom[i], s2.ID)
		must(err)
		movedTo = append(movedTo, to)
	}
	deleted := s0.Pages[4].ID
	must(h.graph.DeletePage(deleted))
	added, err := h.graph.AddPage(s1.ID, "Written after the migration", "New text.")
	must(err)
	must(h.graph.ShiftTimestamp(s2.Pages[0].ID, time.Second))

	t.Run("the second sync brings Notion in step with OneNote", func(t *testing.T) {
		before := h.graphRequests()
		rep := h.syncRun(t, 2, workflows.DeletesArchive)
		got := h.graphRequests() - before
		sr := rep.Sync
		if sr == nil {
			t.Fatalf("no sync report: %s", rep.Message)
		}
		t.Logf("second sync: %s", rep.Message)
		for _, l := range sr.Changes {
			t.Logf("  %s", l)
		}
		contents := 3 + 1 + 2 // edited, new, the checks of the wobble and of the page moved with a new GUID
		t.Logf("Graph requests %d = tree %d + listings %d + contents %d (written %d, checks %d)",
			got, treeCalls(nb), sr.ListCalls, contents, rep.Written, sr.ContentChecks)
		want := workflows.SyncReport{Deletes: workflows.DeletesArchive}
		want.Added, want.Updated, want.Renamed, want.Moved, want.Archived, want.WobbleAgreed = 1, 3, 2, 2, 1, 1
		want.Unchanged = 36 - 3 - 2 - 2 - 1 - 1
		if c := sr.Counts; c != want.Counts {
			t.Errorf("counts %+v, want %+v", c, want.Counts)
		}
		if rep.Skipped != sr.Unchanged {
			t.Errorf("the result counts %d pages unchanged, the sync report %d", rep.Skipped, sr.Unchanged)
		}
		if rep.Written != 4 || sr.ContentChecks != 2 || len(sr.Failed) != 0 {
			t.Errorf("written %d, content checks %d, failed %v; want 4, 2, none", rep.Written, sr.ContentChecks, sr.Failed)
		}
		for _, by := range []string{"(by link GUID)", "(by content)"} {
			if !slices.ContainsFunc(sr.Changes, func(l string) bool { return strings.HasPrefix(l, "moved: ") && strings.HasSuffix(l, by) }) {
				t.Errorf("no page moved %s: %q", by, sr.Changes)
			}
		}
		if wantReq := int64(treeCalls(nb) + listings + contents); got != wantReq {
			t.Errorf("Graph requests %d, want %d (tree %d + listings %d + contents %d)", got, wantReq, treeCalls(nb), listings, contents)
		}
		h.checkPermits(t)

		rows := notionRows(t, h.notion.Export(), nb.DisplayName)
		checkInStep(t, rows, oneNoteNow(h, nb))
		byOneNote := map[string]syncRow{}
		for _, r := range rows {
			if !r.Archived {
				byOneNote[r.OneNoteID] = r
			}
		}
		for i, to := range movedTo {
			if r := byOneNote[to]; r.NotionID != rowsBefore[movedFrom[i]] || r.Database != s2.DisplayName {
				t.Errorf("moved page %s: row %s in %q, want its old row %s in %q", to, r.NotionID, r.Database, rowsBefore[movedFrom[i]], s2.DisplayName)
			}
		}
		archived := false
		for _, r := range rows {
			if r.OneNoteID == deleted {
				archived = r.Archived
			}
		}
		if !archived {
			t.Errorf("the row of deleted page %s is not archived", deleted)
		}
		if _, ok := byOneNote[added]; !ok {
			t.Errorf("the new page %s has no row", added)
		}
		// Content: every page's blocks are what its OneNote content
		// converts to now (read after the counts), edited, new and
		// renamed pages included (the generated HTML repeats the title
		// in a heading, which the rename sets too). Pages linking to the
		// deleted page are left out: their mention of its archived row
		// stays.
		wantSig := expectedFrom(t, h.graphURL, h.graphTok, secs, map[string]bool{deleted: true})
		exported, dup := exportedRows(t, h.notion.Export(), nb.DisplayName)
		if len(dup) > 0 {
			t.Errorf("rows duplicated: %v", dup)
		}
		compared, skipped := 0, 0
		for id, sig := range wantSig {
			if strings.Contains(sig, "(OneNote page not migrated)") {
				skipped++
				t.Logf("content of %s not compared: it links to a page not in Notion", id)
				continue
			}
			compared++
			if got := exported[id].Signature; got != sig {
				t.Errorf("page %s: Notion's content differs from OneNote's:\n got %s\nwant %s", id, clipSig(got), clipSig(sig))
			}
		}
		t.Logf("content compared on %d pages (%d left out: linking to the deleted page)", compared, skipped)
		texts := reportTexts(t, h.notion.Export(), nb.DisplayName)
		entries := 0
		for _, s := range texts {
			if strings.HasPrefix(s, "Sync run ") {
				entries++
			}
		}
		// The first sync changed nothing, and added nothing to the page.
		if entries != 1 || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "2 moved") }) {
			t.Errorf("the migration report holds %d sync entries, want 1 (naming 2 moved): %q", entries, texts)
		}
	})

	t.Run("a third sync finds everything in step", func(t *testing.T) {
		before := h.graphRequests()
		rep := h.syncRun(t, 3, workflows.DeletesArchive)
		got := h.graphRequests() - before
		t.Logf("third sync: %s; Graph requests %d", rep.Message, got)
		if rep.Sync.Unchanged != 36 || rep.Written != 0 || rep.Sync.ContentChecks != 0 {
			t.Errorf("third sync: %+v", rep.Sync.Counts)
		}
		if want := int64(treeCalls(nb) + listings); got != want {
			t.Errorf("Graph requests %d, want %d", got, want)
		}
	})

	// Regression: a section database renamed in Notion made the next run
	// create a database under the old title and write the section again.
	t.Run("a section database renamed in Notion is found, and nothing is written twice", func(t *testing.T) {
		db := sectionDatabase(t, h.notion.Export(), nb.DisplayName, s0.DisplayName)
		must(h.notion.PersonRename(db.ID, "My renamed section"))
		rep := h.syncRun(t, 10, workflows.DeletesArchive)
		t.Logf("after a rename in Notion: %s", rep.Message)
		if rep.Written != 0 || rep.Sync.Added != 0 || rep.Sync.Unchanged != 36 {
			t.Errorf("written %d, counts %+v", rep.Written, rep.Sync.Counts)
		}
		if checkEqual(t, h, nb, 10) > 0 {
			t.Error("Notion differs from OneNote after a section database was renamed in Notion")
		}
	})

	// Regression: a parent page moved away left its subpages pointing at
	// its moved row, and runs after it called them unchanged.
	t.Run("a parent moved away: its subpages follow OneNote's parents", func(t *testing.T) {
		sec := s1
		live := map[string]bool{}
		for _, id := range h.graph.PageIDs(e2eUser) {
			live[id] = true
		}
		var ps []*graph.Page
		for _, p := range sec.Pages {
			if live[p.ID] {
				ps = append(ps, p)
			}
		}
		slices.SortStableFunc(ps, func(a, b *graph.Page) int { return a.Order - b.Order })
		parent, subs := ps[3], ps[4:6]
		for _, p := range subs {
			must(h.graph.SetPageLevel(p.ID, 1))
		}
		rep := h.syncRun(t, 11, workflows.DeletesArchive)
		t.Logf("after two pages became subpages: %s", rep.Message)
		if checkEqual(t, h, nb, 11) > 0 {
			t.Error("Notion differs from OneNote after two pages became subpages")
		}
		if _, err := h.graph.MovePage(parent.ID, s2.ID); err != nil {
			t.Fatal(err)
		}
		rep = h.syncRun(t, 12, workflows.DeletesArchive)
		t.Logf("after their parent moved away: %s", rep.Message)
		if rep.Sync.Moved != 1 || rep.Sync.Structure.Parents < 2 {
			t.Errorf("moved %d, parents set %d; want 1 and at least 2", rep.Sync.Moved, rep.Sync.Structure.Parents)
		}
		if checkEqual(t, h, nb, 12) > 0 {
			t.Error("Notion differs from OneNote after a parent page moved away from its subpages")
		}
		rep = h.syncRun(t, 13, workflows.DeletesArchive)
		if r := rep.Sync.Structure; r.Parents+r.Orders+r.Titles+r.Moved != 0 || rep.Written != 0 {
			t.Errorf("a run after that changed %+v, wrote %d", r, rep.Written)
		}
	})

	t.Run("with deletes: keep a deleted page's row stays and is reported once", func(t *testing.T) {
		gone := s2.Pages[1].ID
		must(h.graph.DeletePage(gone))
		before := h.graphRequests()
		rep := h.syncRun(t, 4, workflows.DeletesKeep)
		got := h.graphRequests() - before
		t.Logf("sync keeping deletes: %s; Graph requests %d", rep.Message, got)
		if rep.Sync.KeptDeleted != 1 || rep.Sync.Archived != 0 || rep.Sync.Unchanged != 35 || rep.Written != 0 {
			t.Errorf("counts %+v, written %d", rep.Sync.Counts, rep.Written)
		}
		if want := int64(treeCalls(nb) + listings); got != want {
			t.Errorf("Graph requests %d, want %d", got, want)
		}
		live := false
		for _, r := range notionRows(t, h.notion.Export(), nb.DisplayName) {
			if r.OneNoteID == gone && !r.Archived {
				live = true
			}
		}
		if !live || !slices.ContainsFunc(rep.Sync.Changes, func(l string) bool { return strings.HasPrefix(l, "deleted in OneNote, kept in Notion") }) {
			t.Errorf("the deleted page's row: live %v; changes %q", live, rep.Sync.Changes)
		}
		entries := func() int {
			n := 0
			for _, s := range reportTexts(t, h.notion.Export(), nb.DisplayName) {
				if strings.HasPrefix(s, "Sync run ") {
					n++
				}
			}
			return n
		}
		had := entries()
		rep = h.syncRun(t, 5, workflows.DeletesKeep)
		if rep.Sync.KeptDeleted != 1 || rep.Sync.KeptBefore != 1 || len(rep.Sync.Changes) != 0 || entries() != had {
			t.Errorf("the next run: kept %d (%d before), changes %q, report entries %d then %d; want it counted, not named again",
				rep.Sync.KeptDeleted, rep.Sync.KeptBefore, rep.Sync.Changes, had, entries())
		}
	})

	// A person adds a second data source to a migrated section database
	// (issue 33). On Notion-Version 2022-06-28 every row create and query
	// on it would fail; the writer keeps addressing its own data source, so
	// the sync writes nothing twice and nothing lands in the person's.
	t.Run("a second data source added by a person: the sync writes nothing twice", func(t *testing.T) {
		db := sectionDatabase(t, h.notion.Export(), nb.DisplayName, s0.DisplayName)
		body, _ := json.Marshal(map[string]any{
			"parent":     map[string]any{"type": "database_id", "database_id": db.ID},
			"title":      []any{map[string]any{"text": map[string]any{"content": "My ideas"}}},
			"properties": map[string]any{"Idea": map[string]any{"title": map[string]any{}}},
		})
		req := httptest.NewRequest(http.MethodPost, "/v1/data_sources", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+h.notionTok)
		req.Header.Set("Notion-Version", notionemu.Version20250903)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.notion.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			t.Fatalf("a person's second data source: %d %s", rec.Code, rec.Body)
		}
		// It runs last, keeping deletes: the page deleted before stays.
		// One page changed and one added in OneNote: the sync updates a
		// row and creates one in the database that now has two sources.
		must(h.graph.TouchPage(s0.Pages[0].ID))
		if _, err := h.graph.AddPage(s0.ID, "Written beside a person's data source", "New text."); err != nil {
			t.Fatal(err)
		}
		rows := len(db.Rows) + 1
		rep := h.syncRun(t, 6, workflows.DeletesKeep)
		t.Logf("after a second data source: %s", rep.Message)
		if rep.FailedSections != 0 || rep.Written != 2 || rep.Sync.Added != 1 || rep.Sync.Updated != 1 || rep.Sync.Archived != 0 {
			t.Errorf("failed sections %d, written %d, counts %+v", rep.FailedSections, rep.Written, rep.Sync.Counts)
		}
		if _, dup := exportedRows(t, h.notion.Export(), nb.DisplayName); len(dup) > 0 {
			t.Errorf("pages written more than once: %v", dup)
		}
		if got := sectionDatabase(t, h.notion.Export(), nb.DisplayName, s0.DisplayName); len(got.Rows) != rows {
			t.Errorf("the section database holds %d rows, want %d", len(got.Rows), rows)
		}
	})
}

// TestSyncUnchangedThousandPages: a sync over an unchanged notebook of
// 1,000 pages (4 sections of 250) costs the tree and the listings (3 per
// section at 100 pages a request) and no other Graph request.
func TestSyncUnchangedThousandPages(t *testing.T) {
	if testing.Short() {
		t.Skip("migrates 1,000 pages first")
	}
	h := newHarnessWith(t, harnessOptions{spec: graph.GenSpec{Seed: 29, Owner: e2eUser, Notebooks: 1,
		SectionsPerContainer: 4, PagesPerSection: 250}})
	nb := h.notebooks[0]
	start := time.Now()
	rep := wait(t, h.start(t, workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root,
		Limits: h.profile, SectionParallelism: 4, PageParallelism: 8}), 10*time.Minute)
	if rep.Written != 1000 || rep.FailedPages != 0 {
		t.Fatalf("migration: %s", rep.Message)
	}
	t.Logf("migrated 1000 pages in %s", time.Since(start).Round(time.Second))
	listings := 0
	for _, s := range emuSections(nb) {
		listings += len(s.Pages)/100 + 1
	}
	before, notionBefore := h.graphRequests(), len(h.notion.Requests(h.notionTok))
	start = time.Now()
	rep = h.syncRun(t, 1, workflows.DeletesArchive)
	got := h.graphRequests() - before
	t.Logf("unchanged sync of 1000 pages in %s: Graph requests %d (tree %d + listings %d), Notion requests %d; %s",
		time.Since(start).Round(time.Millisecond), got, treeCalls(nb), rep.Sync.ListCalls,
		len(h.notion.Requests(h.notionTok))-notionBefore, rep.Sync.Summary())
	if rep.Sync.Unchanged != 1000 || rep.Written != 0 || rep.Sync.ContentChecks != 0 {
		t.Errorf("sync: %+v, %d written", rep.Sync.Counts, rep.Written)
	}
	if want := int64(treeCalls(nb) + listings); got != want {
		t.Errorf("Graph requests %d, want %d: the tree and %d listings", got, want, listings)
	}
}
