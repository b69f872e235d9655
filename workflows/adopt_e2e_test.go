package workflows_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/onestore"
	"github.com/notebridge/notebridge/workflows"
)

// adoptNotebook is a notebook of files with two sections and a group
// holding a third, and subpages.
func adoptNotebook() fx.Notebook {
	created := time.Date(2025, 6, 1, 8, 0, 0, 0, time.UTC)
	pages := func(sec byte, n int) []fx.Page {
		var ps []fx.Page
		for i := range n {
			ps = append(ps, fx.Page{GUID: fx.GUID{0xA1, sec, byte(i)}, Title: fmt.Sprintf("Page %d.%d", sec, i), Level: []int{0, 1, 1}[i%3],
				Created: created.Add(time.Duration(int(sec)*100+i) * time.Minute), Paras: []fx.Para{{Text: fmt.Sprintf("Text of %d.%d", sec, i)}}})
		}
		return ps
	}
	return fx.Notebook{Name: "Adopted Notes", Group: fx.Group{GUID: fx.GUID{0xA0, 1},
		Sections: []fx.SectionSpec{
			{Name: "Work", GUID: fx.GUID{0xA5, 1}, Pages: pages(1, 4)},
			{Name: "Home", GUID: fx.GUID{0xA5, 2}, Pages: pages(2, 3)},
		},
		Groups: []fx.Group{{Name: "Archive", GUID: fx.GUID{0xA0, 2}, Sections: []fx.SectionSpec{
			{Name: "Old", GUID: fx.GUID{0xA5, 4}, Pages: pages(4, 2)}}}},
	}}
}

// graphTwin is the same notebook as Graph serves it: Graph's own IDs, and
// the files' section and page GUIDs in its onenote: links (upper case, as
// OneNote writes them), each page edited after the export.
func graphTwin(spec fx.Notebook) *graph.Notebook {
	edited := time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)
	section := func(s fx.SectionSpec) *graph.Section {
		gs := &graph.Section{DisplayName: s.Name, GUID: strings.ToUpper(activities.FileKey(onestore.GUID(s.GUID)))}
		for i, p := range s.Pages {
			gs.Pages = append(gs.Pages, &graph.Page{Title: p.Title + " (edited)", Level: p.Level, Order: i,
				GUID: strings.ToUpper(activities.FileKey(onestore.GUID(p.GUID))), CreatedDateTime: p.Created,
				LastModifiedDateTime: edited.Add(time.Duration(i) * time.Minute)})
		}
		return gs
	}
	nb := &graph.Notebook{DisplayName: spec.Name}
	for _, s := range spec.Sections {
		nb.Sections = append(nb.Sections, section(s))
	}
	for _, g := range spec.Groups {
		gg := &graph.SectionGroup{DisplayName: g.Name}
		for _, s := range g.Sections {
			gg.Sections = append(gg.Sections, section(s))
		}
		nb.SectionGroups = append(nb.SectionGroups, gg)
	}
	return nb
}

// containers counts the live pages titled title and the live databases
// anywhere in the workspace, and returns the first such page's ID.
func containers(ps []notionemu.Page, title string) (pages, dbs int, id string) {
	var walk func(ps []notionemu.Page)
	walk = func(ps []notionemu.Page) {
		for _, p := range ps {
			if p.Archived {
				continue
			}
			if p.Title == title {
				if pages++; id == "" {
					id = p.ID
				}
			}
			for _, d := range p.Databases {
				if !d.Archived {
					dbs++
				}
			}
			walk(p.Pages)
		}
	}
	walk(ps)
	return pages, dbs, id
}

// fileImport is a file import of adoptNotebook() made for a Graph run to
// adopt: what it wrote.
type fileImport struct {
	spec      fx.Notebook
	total     int                    // its pages
	rows      map[string]exportedRow // its rows, by OneNote page ID
	page      string                 // its notebook page
	databases int                    // the databases in the workspace
}

// importForAdoption imports a generated .onepkg of spec (adoptNotebook()
// or a part of it) and checks that it wrote one row per page, one
// notebook page and one group page.
func importForAdoption(t *testing.T, h *harness, spec fx.Notebook) fileImport {
	t.Helper()
	file := filepath.Join(t.TempDir(), "Adopted Notes.onepkg")
	if err := os.WriteFile(file, spec.Package(), 0o644); err != nil {
		t.Fatal(err)
	}
	in := workflows.MigrateInput{User: e2eUser, File: file, NotionParent: h.root, Limits: h.profile, SectionParallelism: 3, PageParallelism: 3}
	run, err := stack.StartMigration(context.Background(), h.c, e2eQueue, activities.FileKey(onestore.GUID(spec.GUID)), spec.Name, in)
	if err != nil {
		t.Fatal(err)
	}
	imported := wait(t, run, 3*time.Minute)
	total := 0
	for _, s := range append(spec.Sections, spec.Groups[0].Sections...) {
		total += len(s.Pages)
	}
	if imported.Written != total || imported.FailedPages != 0 {
		t.Fatalf("file import: %d of %d written, %d failed: %s", imported.Written, total, imported.FailedPages, imported.Message)
	}
	ws := h.notion.Export()
	before, dup := exportedRows(t, ws, spec.Name)
	nbPages, dbsBefore, nbPage := containers(ws.Pages, spec.Name)
	groupPages, _, _ := containers(ws.Pages, "Archive")
	if len(before) != total || len(dup) > 0 || nbPages != 1 || groupPages != 1 {
		t.Fatalf("after the import: %d rows (want %d), duplicates %v, %d notebook pages, %d group pages", len(before), total, dup, nbPages, groupPages)
	}
	return fileImport{spec: spec, total: total, rows: before, page: nbPage, databases: dbsBefore}
}

// checkAdopted checks that a Graph run that adopted the file import fi
// made no notebook page, group page, database or row of its own, and
// that every row is the import's Notion page, now keyed by Graph's page
// ID and dated by Graph's edit.
func checkAdopted(t *testing.T, h *harness, fi fileImport, twin *graph.Notebook) {
	t.Helper()
	ws := h.notion.Export()
	after, dup := exportedRows(t, ws, fi.spec.Name)
	nbPagesAfter, dbsAfter, nbPageAfter := containers(ws.Pages, fi.spec.Name)
	groupPagesAfter, _, _ := containers(ws.Pages, "Archive")
	if nbPagesAfter != 1 || !strings.EqualFold(strings.ReplaceAll(nbPageAfter, "-", ""), strings.ReplaceAll(fi.page, "-", "")) ||
		dbsAfter != fi.databases || groupPagesAfter != 1 {
		t.Errorf("after adopting: %d notebook pages (%s, was %s), %d databases (was %d), %d group pages; want the import's, none added",
			nbPagesAfter, nbPageAfter, fi.page, dbsAfter, fi.databases, groupPagesAfter)
	}
	if len(after) != fi.total || len(dup) > 0 {
		t.Errorf("after adopting: %d rows (want %d), duplicates %v", len(after), fi.total, dup)
	}
	rowIDs := map[string]bool{}
	for _, r := range fi.rows {
		rowIDs[r.ID] = true
	}
	graphPages := map[string]*graph.Page{}
	for _, s := range emuSections(twin) {
		for _, p := range s.Pages {
			graphPages[p.ID] = p
		}
	}
	for key, r := range after {
		p := graphPages[key]
		switch {
		case p == nil:
			t.Errorf("row %s is keyed %q, no Graph page of the notebook", r.ID, key)
		case !rowIDs[r.ID]:
			t.Errorf("page %q is a new row %s, not the import's", p.Title, r.ID)
		case !sameInstant(r.LastModified, p.LastModifiedDateTime.Format(time.RFC3339)):
			t.Errorf("row of %q has last modified %s, want Graph's %s", p.Title, r.LastModified, p.LastModifiedDateTime)
		}
	}
}

// TestFileImportThenGraphSyncAdopts imports a generated .onepkg, then
// syncs the same notebook from Graph (its sections and pages carry the
// files' GUIDs in their onenote: links) naming the import's notebook page
// to adopt: every row is updated in place (same Notion page, now keyed
// and dated by Graph), none is added, and no second notebook page,
// group page or database is made. A second sync writes nothing; a run
// naming a page that is no notebook page is refused by name.
func TestFileImportThenGraphSyncAdopts(t *testing.T) {
	h := newHarnessWith(t, harnessOptions{spec: graph.GenSpec{Seed: 3, Owner: e2eUser, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1}})
	fi := importForAdoption(t, h, adoptNotebook())
	spec, total, nbPage, dbsBefore := fi.spec, fi.total, fi.page, fi.databases

	twin := graphTwin(spec)
	h.graph.AddNotebooks(e2eUser, twin)
	sync := func(n int, adopt string) (workflows.NotebookReport, error) {
		in := workflows.MigrateInput{User: e2eUser, Notebook: twin.ID, NotionParent: h.root, Limits: h.profile, SectionParallelism: 3,
			PageParallelism: 3, Sync: &workflows.SyncOptions{}, AdoptNotebookPage: adopt}
		run, err := h.c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
			ID: fmt.Sprintf("%s-adopt%d", workflows.SyncWorkflowID(e2eUser, twin.ID), n), TaskQueue: e2eQueue}, workflows.MigrateNotebookName, in)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		var rep workflows.NotebookReport
		return rep, run.Get(ctx, &rep)
	}

	// A page that is no Note Bridge notebook page is refused, and nothing
	// is made.
	if _, err := sync(0, h.root); err == nil || !strings.Contains(err.Error(), "cannot adopt page") {
		t.Errorf("adopting the parent page: %v, want a refusal naming the page", err)
	}
	if n, dbs, _ := containers(h.notion.Export().Pages, spec.Name); n != 1 || dbs != dbsBefore {
		t.Errorf("the refused run left %d notebook pages and %d databases, want 1 and %d", n, dbs, dbsBefore)
	}

	rep, err := sync(1, nbPage)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("graph sync adopting the file import: %s", rep.Message)
	if rep.Written != total || rep.FailedPages != 0 {
		t.Errorf("the sync wrote %d of %d pages (%d failed)", rep.Written, total, rep.FailedPages)
	}
	checkAdopted(t, h, fi, twin)

	again, err := sync(2, "")
	if err != nil {
		t.Fatal(err)
	}
	ws := h.notion.Export()
	rowsAgain, _ := exportedRows(t, ws, spec.Name)
	if _, dbs, _ := containers(ws.Pages, spec.Name); again.Written != 0 || len(rowsAgain) != total || dbs != dbsBefore {
		t.Errorf("syncing again wrote %d pages, %d rows, %d databases; want 0, %d, %d", again.Written, len(rowsAgain), dbs, total, dbsBefore)
	}
}

// smallAdoption imports a notebook smaller than the sync's, to keep the
// migration tests short (a section with a page and its subpage, and the
// group's section), and adds its Graph twin of the same GUIDs.
func smallAdoption(t *testing.T) (*harness, fileImport, *graph.Notebook) {
	t.Helper()
	h := newHarnessWith(t, harnessOptions{spec: graph.GenSpec{Seed: 3, Owner: e2eUser, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1}})
	spec := adoptNotebook()
	spec.Sections = spec.Sections[:1]
	spec.Sections[0].Pages = spec.Sections[0].Pages[:2]
	spec.Groups[0].Sections[0].Pages = spec.Groups[0].Sections[0].Pages[:1]
	fi := importForAdoption(t, h, spec)
	twin := graphTwin(fi.spec)
	h.graph.AddNotebooks(e2eUser, twin)
	return h, fi, twin
}

// TestFileImportThenGraphMigrationAdopts is TestFileImportThenGraphSyncAdopts
// with a plain migration: a migration finds the import's rows by the page
// GUID in each page's link (in WritePage's one lookup) and writes each
// once in place; none is added, and no container is made. Migrating
// again (without adoptNotebookPage) writes nothing.
func TestFileImportThenGraphMigrationAdopts(t *testing.T) {
	h, fi, twin := smallAdoption(t)
	migrate := func(adopt string) workflows.NotebookReport {
		t.Helper()
		in := workflows.MigrateInput{User: e2eUser, Notebook: twin.ID, NotionParent: h.root, Limits: h.profile, SectionParallelism: 3,
			PageParallelism: 3, AdoptNotebookPage: adopt}
		run, err := stack.StartMigration(context.Background(), h.c, e2eQueue, twin.ID, twin.DisplayName, in)
		if err != nil {
			t.Fatal(err)
		}
		return wait(t, run, 3*time.Minute)
	}
	rep := migrate(fi.page)
	t.Logf("graph migration adopting the file import: %s", rep.Message)
	if rep.Written != fi.total || rep.FailedPages != 0 {
		t.Errorf("the migration wrote %d of %d pages (%d failed), want each once", rep.Written, fi.total, rep.FailedPages)
	}
	checkAdopted(t, h, fi, twin)

	again := migrate("")
	rows, dup := exportedRows(t, h.notion.Export(), fi.spec.Name)
	if again.Written != 0 || again.FailedPages != 0 || len(rows) != fi.total || len(dup) > 0 {
		t.Errorf("migrating again wrote %d pages (%d failed), left %d rows (duplicates %v); want 0, 0, %d, none",
			again.Written, again.FailedPages, len(rows), dup, fi.total)
	}
}
