package activities_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	notionemu "github.com/notebridge/notebridge/emulator/notion"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/syncplan"
)

// writeSection writes every page of the fixture's section i to its
// database and returns the listing and the layout.
func writeSection(t *testing.T, f *fixture, layout notion.Layout, i int) []activities.PageMeta {
	t.Helper()
	sec := f.nb.Sections[i]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages.Pages {
		key := activities.StageKey("sync/" + p.ID)
		meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
			activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := run[activities.FetchResourcesResult](t, f, activities.FetchResourcesName,
			activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources}); err != nil {
			t.Fatal(err)
		}
		if _, err := run[activities.WritePageResult](t, f, activities.WritePageName,
			activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, SectionPath: sec.DisplayName}); err != nil {
			t.Fatal(err)
		}
	}
	return pages.Pages
}

// TestSyncActivitiesAgainstEmulators: the hash a row records is the one
// ContentHash fetches (what a wobble is judged by); PlanSync leaves rows a
// person added alone; ApplySync moves a row to another database keeping
// its Notion page, renames and archives; the sync entry on the report
// page is appended once however often the activity runs.
func TestSyncActivitiesAgainstEmulators(t *testing.T) {
	f := newFixture(t)
	layout := laidOut(t, f)
	s0, s1 := f.nb.Sections[0], f.nb.Sections[1]
	db0, db1 := layout.SectionDatabaseIDs[s0.ID], layout.SectionDatabaseIDs[s1.ID]
	pages := writeSection(t, f, layout, 0)
	if len(pages) < 3 {
		t.Fatalf("section 0 has %d pages, want 3 or more", len(pages))
	}
	nc, err := notion.NewClient(notion.Config{BaseURL: f.notionURL, Token: notion.StaticToken(f.notionTok)})
	if err != nil {
		t.Fatal(err)
	}
	rows := func(db string) map[string]notion.Row {
		t.Helper()
		out := map[string]notion.Row{}
		if err := nc.Rows(context.Background(), db, notion.RowFilter{}, func(r notion.Row) error { out[r.OneNotePageID] = r; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := rows(db0)
	h, err := run[activities.ContentHashResult](t, f, activities.ContentHashName, activities.ContentHashInput{User: "alice", PageID: pages[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := before[pages[0].ID].ContentHash; got == "" || got != h.SHA256 {
		t.Errorf("row hash %q, ContentHash %q: a wobble could never agree", got, h.SHA256)
	}

	// A row a person added by hand has no OneNote page ID.
	addRowByHand(t, f, db0, "Notes of my own")
	listed := append([]activities.PageMeta(nil), pages...)
	listed[1].Title += " (renamed)"
	plan, err := run[activities.PlanSyncResult](t, f, activities.PlanSyncName, activities.PlanSyncInput{
		Sections: []activities.SyncSection{{ID: s0.ID, Path: s0.DisplayName, DatabaseID: db0, Pages: listed}}})
	if err != nil {
		t.Fatal(err)
	}
	c := syncplan.Count(syncplan.Resolve(plan.Plan, nil), true)
	if c.Renamed != 1 || c.Unchanged+plan.Unchanged != len(pages)-1 || c.Archived != 0 || plan.Recorded != len(pages) {
		t.Errorf("plan: %+v, %d recorded; want 1 renamed, %d unchanged, none deleted, %d recorded", c, plan.Recorded, len(pages)-1, len(pages))
	}

	moved, gone := before[pages[0].ID], before[pages[2].ID]
	act := []activities.SyncAction{
		{Kind: syncplan.Moved, Row: moved.PageID, MoveTo: db1, OneNotePageID: "0-moved!1-X!s1", SectionPath: s1.DisplayName},
		{Kind: syncplan.Renamed, Row: before[pages[1].ID].PageID, Title: listed[1].Title},
		{Kind: syncplan.Deleted, Row: gone.PageID, Archive: true},
	}
	for range 2 { // a retried activity ends the same
		res, err := run[activities.ApplySyncResult](t, f, activities.ApplySyncName, activities.ApplySyncInput{Actions: act})
		if err != nil || res.Applied != 3 || len(res.Failed) != 0 {
			t.Fatalf("apply: %+v, %v", res, err)
		}
	}
	after0, after1 := rows(db0), rows(db1)
	if r, ok := after1["0-moved!1-X!s1"]; !ok || r.PageID != moved.PageID {
		t.Errorf("moved row in the target: %+v (want Notion page %s)", r, moved.PageID)
	}
	if _, ok := after0[pages[0].ID]; ok {
		t.Error("the moved row is still in its old database")
	}
	if _, ok := after0[pages[2].ID]; ok {
		t.Error("the archived row is still live")
	}
	if r := after0[pages[1].ID]; r.Title != listed[1].Title {
		t.Errorf("renamed row's title %q", r.Title)
	}

	for range 2 {
		if _, err := run[string](t, f, activities.AppendSyncReportName, activities.AppendSyncReportInput{
			NotebookPageID: layout.NotebookPageID, Headline: "Sync run 1: 1 moved", Lines: []string{"moved: a page"}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := run[string](t, f, activities.AppendSyncReportName, activities.AppendSyncReportInput{
		NotebookPageID: layout.NotebookPageID, Headline: "Sync run 2: nothing"}); err != nil {
		t.Fatal(err)
	}
	if entries := syncEntries(f.notion.Export().Pages); entries != 2 {
		t.Errorf("%d sync entries on the report page, want 2", entries)
	}
	// The page keeps the latest entries, and the totals count every run
	// once, a retried append included.
	for i := range notion.MaxSyncEntries + 3 {
		for range 2 {
			if _, err := run[string](t, f, activities.AppendSyncReportName, activities.AppendSyncReportInput{
				NotebookPageID: layout.NotebookPageID, Headline: fmt.Sprintf("Sync run %d: 1 added", 3+i), Lines: []string{"added: p"},
				Counts: notion.SyncCounts{Runs: 1, Added: 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if entries := syncEntries(f.notion.Export().Pages); entries != notion.MaxSyncEntries {
		t.Errorf("%d sync entries on the report page, want the latest %d", entries, notion.MaxSyncEntries)
	}
	if got, want := reportText(f.notion.Export().Pages), fmt.Sprintf("Sync totals: %d runs that changed something, %d added,",
		notion.MaxSyncEntries+3, notion.MaxSyncEntries+3); !strings.Contains(got, want) {
		t.Errorf("the report page does not hold %q:\n%s", want, got)
	}
}

// reportText is the text of the report page's blocks.
func reportText(ps []notionemu.Page) string {
	var b strings.Builder
	for _, p := range ps {
		if p.Title == notion.ReportTitle {
			for _, bl := range p.Blocks {
				raw, _ := json.Marshal(bl.Content)
				b.Write(raw)
				b.WriteString("\n")
			}
		}
		b.WriteString(reportText(p.Pages))
	}
	return b.String()
}

// addRowByHand creates a row as a person would in Notion: a title and
// nothing else.
func addRowByHand(t *testing.T, f *fixture, db, title string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"parent": map[string]any{"database_id": db},
		"properties": map[string]any{notion.PropName: map[string]any{"title": []any{map[string]any{"text": map[string]any{"content": title}}}}}})
	req, _ := http.NewRequest(http.MethodPost, f.notionURL+"/v1/pages", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+f.notionTok)
	req.Header.Set("Notion-Version", "2022-06-28")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("adding a row by hand: %s", resp.Status)
	}
}

// syncEntries counts the sync runs' callouts on the report pages.
func syncEntries(ps []notionemu.Page) int {
	n := 0
	for _, p := range ps {
		if p.Title == notion.ReportTitle {
			for _, b := range p.Blocks {
				raw, _ := json.Marshal(b.Content)
				if b.Type == "callout" && strings.Contains(string(raw), `"content":"Sync run `) {
					n++
				}
			}
		}
		n += syncEntries(p.Pages)
	}
	return n
}

// laidOut finds alice's notebook and lays it out in Notion (EnsureLayout).
func laidOut(t *testing.T, f *fixture) notion.Layout {
	t.Helper()
	nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
	if err != nil {
		t.Fatal(err)
	}
	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
	if err != nil {
		t.Fatal(err)
	}
	return layout
}
