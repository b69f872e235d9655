package activities_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// TestLongActivitiesHeartbeatWhileTheyWait runs every activity that can
// outlive a minute against emulators that answer each request slowly, and
// checks each heartbeats while it waits, not only between requests: a
// lost worker is then noticed at the option set's heartbeat timeout
// (workflows.TestLostWorkerRule), not after minutes.
func TestLongActivitiesHeartbeatWhileTheyWait(t *testing.T) {
	const (
		beat  = 20 * time.Millisecond
		delay = 150 * time.Millisecond
	)
	f := newFixture(t)
	f.beat = beat
	f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
	// Every heartbeat is counted, by the activity that records it (the
	// SDK would hold most of them back to spare the server).
	var mu sync.Mutex
	beats := map[string]int{}
	activities.SetHeartbeatRecorder(f.acts, func(ctx context.Context, details ...any) {
		mu.Lock()
		beats[activity.GetInfo(ctx).ActivityType.Name]++
		mu.Unlock()
		activity.RecordHeartbeat(ctx, details...)
	})
	nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: f.nb.DisplayName})
	if err != nil {
		t.Fatal(err)
	}
	f.notion.SetFaults(notionemu.Faults{Slow: 1, SlowDelay: delay})
	f.graph.SetFaults(graph.Faults{SlowRate: 1, SlowDelay: delay})

	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
	if err != nil {
		t.Fatal(err)
	}
	sec := f.nb.Sections[0]
	db := layout.SectionDatabaseIDs[sec.ID]
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	p := pages.Pages[0]
	key := activities.StageKey("heartbeat/" + p.ID)
	meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName, activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		in   any
	}{
		{activities.FetchResourcesName, activities.FetchResourcesInput{User: "alice", Key: key, Resources: meta.Resources}},
		{activities.WritePageName, activities.WritePageInput{Key: key, DatabaseID: db, Page: p, SectionPath: "NB / S"}},
		{activities.ExistingRowsName, activities.ExistingRowsInput{DatabaseID: db, Pages: map[string]string{p.ID: p.LastModified}}},
		{activities.StageLinkTargetsName, activities.StageLinkTargetsInput{Key: "heartbeat-links", DatabaseIDs: []string{db}}},
		{activities.RewriteLinksName, activities.RewriteLinksInput{DatabaseID: db, TargetsKey: "heartbeat-links"}},
		{activities.WriteReportName, activities.WriteReportInput{Notebook: f.nb.DisplayName, NotebookPageID: layout.NotebookPageID,
			Sections: []activities.ReportSection{{Path: "NB / S", DatabaseID: db}}}},
	}
	if len(meta.Resources) == 0 {
		t.Fatal("the page has no resources to fetch")
	}
	for _, s := range steps {
		if _, err := f.env.ExecuteActivity(s.name, s.in); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, name := range []string{activities.EnsureLayoutName, activities.FetchResourcesName, activities.WritePageName,
		activities.ExistingRowsName, activities.StageLinkTargetsName, activities.RewriteLinksName, activities.WriteReportName} {
		t.Logf("%s: %d heartbeats", name, beats[name])
		// Each request waits 150 ms, 7 heartbeat periods: an activity
		// that heartbeats only between requests shows at most one per
		// request.
		if beats[name] < 3 {
			t.Errorf("%s heartbeat %d times while its requests waited, want it to heartbeat on a ticker", name, beats[name])
		}
	}
}
