package progress

import (
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/notebridge/notebridge/workflows"
)

// TestTrackerCountsOnlyMoveForward feeds a Tracker the snapshots of a run
// as the issue saw them: a running section's live counts that read less
// than a moment before (the section continued as new, its report lagged
// the notebook's), a progress query without an answer (no worker), then
// answers again. Every cumulative count shown is monotone, the unanswered
// snapshot shows the last known counts with their age, and a Tracker
// that never had an answer says unknown, not zero.
func TestTrackerCountsOnlyMoveForward(t *testing.T) {
	start := time.Date(2026, 12, 4, 10, 0, 0, 0, time.UTC)
	snap := func(sec int, ok bool, done, pages, permits int, waited time.Duration) *Snapshot {
		s := &Snapshot{Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, Started: start, Now: start.Add(time.Duration(sec) * time.Second),
			ProgressOK: ok, Sections: map[string]workflows.SectionProgress{}}
		if !ok {
			return s
		}
		s.Progress = workflows.NotebookProgress{Phase: "migrating", PagesListed: pages, PagesDone: done, Permits: permits, Waited: waited, Sections: []workflows.SectionSummary{
			{SectionRef: workflows.SectionRef{ID: "a"}, Status: workflows.SectionRunning, Live: &workflows.SectionPulse{Pages: pages}}}}
		s.Sections["a"] = workflows.SectionProgress{Phase: "migrating", Pages: pages, Done: done, Remaining: pages - done,
			Permits: permits, Waited: waited}
		return s
	}
	run := []*Snapshot{
		snap(10, true, 20, 120, 124, 52*time.Second),
		snap(13, true, 40, 120, 219, 94*time.Second),
		snap(20, true, 35, 111, 200, 80*time.Second), // reads less: shown as before
		snap(30, false, 0, 0, 0, 0),                  // no answer: last known, 10 s old
		snap(40, true, 57, 120, 300, 2*time.Minute),
		snap(50, true, 120, 120, 450, 6*time.Minute),
	}
	var k Tracker
	var prev Totals
	for i, s := range run {
		got := k.Next(s, nil)
		if i == 3 && (!got.NoAnswer || got.Age != 10*time.Second || got.Done != 40) {
			t.Errorf("unanswered snapshot shows %+v, want the last known counts, 10s old", got)
		}
		t.Logf("%2d s: %s", int(s.Now.Sub(start).Seconds()), Line(s, got))
		if i > 0 {
			for _, c := range []struct {
				name      string
				now, last int64
			}{
				{"pages done", int64(got.Done), int64(prev.Done)},
				{"pages known", int64(got.Pages), int64(prev.Pages)},
				{"permits", int64(got.Permits), int64(prev.Permits)},
				{"permit waits", int64(got.Waited), int64(prev.Waited)},
			} {
				if c.now < c.last {
					t.Errorf("snapshot %d: %s went back from %d to %d", i, c.name, c.last, c.now)
				}
			}
		}
		if got.Remaining != got.Pages-got.Done-got.Failed {
			t.Errorf("snapshot %d: %d left of %d pages, %d done, %d failed: contradictory", i, got.Remaining, got.Pages, got.Done, got.Failed)
		}
		prev = got
	}
	var fresh Tracker
	got := fresh.Next(run[3], nil)
	if line := Line(run[3], got); !got.NoAnswer || !strings.Contains(line, "unknown") || strings.Contains(line, "0/0") {
		t.Errorf("without any answer the line reads %q, want unknown counts, not zeros", line)
	}
}
