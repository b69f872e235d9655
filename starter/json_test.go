package main

import (
	"encoding/json"
	"io"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// TestStatusAndProgressShareOneStructure: status --json and the progress
// query's answer (as the temporal CLI prints it) have the same keys for
// what they share, with the same values, durations in seconds, and a
// one-line summary each.
func TestStatusAndProgressShareOneStructure(t *testing.T) {
	started := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	p := workflows.NotebookProgress{Phase: "migrating", Running: 1, Done: 1,
		Sections: []workflows.SectionSummary{
			{SectionRef: workflows.SectionRef{ID: "a"}, Status: workflows.SectionDone, Pages: 10},
			{SectionRef: workflows.SectionRef{ID: "b"}, Status: workflows.SectionRunning, Pages: 30,
				Live: &workflows.SectionPulse{Pages: 30, Done: 12, Permits: 20, Waited: 40 * time.Second}}},
		PagesListed: 40, PagesDone: 22, PagesSkipped: 2, Permits: 31, Waited: 61 * time.Second, ETA: 2 * time.Minute,
		Health:  workflows.Health{State: "ok", StallAfter: seconds.Of(30 * time.Second)},
		Outcome: workflows.NotebookReport{LossKinds: []report.KindCount{{Kind: "equation", Severity: report.Lost, Count: 1, Pages: 1}}}.Outcome()}
	snap := &progress.Snapshot{ID: "migrate/alice/nb", User: "alice", Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
		Started: started, Now: started.Add(10 * time.Minute), Progress: p, ProgressOK: true}
	s := &statusCmd{cli: &cli{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}}
	st, err := json.Marshal(s.statusJSON(snap))
	if err != nil {
		t.Fatal(err)
	}
	pq, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string][]byte{"status --json": st, "progress query": pq} {
		if bad, err := seconds.UnreadableKeys(doc); err != nil || len(bad) > 0 {
			t.Errorf("%s: durations not in seconds: %v (%v)", name, bad, err)
		}
	}
	var sm, pm map[string]json.RawMessage
	if err := json.Unmarshal(st, &sm); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(pq, &pm); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"phase", "pages", "sectionCounts", "permits", "permitWaitSeconds", "sections", "outcome"} {
		if string(sm[k]) != string(pm[k]) {
			t.Errorf("%s: status --json %s, progress query %s", k, sm[k], pm[k])
		}
	}
	for _, k := range []string{"summary", "etaSeconds", "outcome"} {
		if _, ok := sm[k]; !ok {
			t.Errorf("status --json has no %q", k)
		}
		if _, ok := pm[k]; !ok {
			t.Errorf("the progress query has no %q", k)
		}
	}
}
