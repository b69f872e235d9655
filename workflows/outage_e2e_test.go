package workflows_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

// TestGraphOutageIsNamedInStatus runs a migration through a 10-minute
// Graph outage (time-scaled): what `starter status` shows (internal/progress
// over the notebook's progress query) counts pages while the sections run,
// and names the outage while it lasts, within a second (one refresh of
// `starter status --follow`).
func TestGraphOutageIsNamedInStatus(t *testing.T) {
	if testing.Short() || os.Getenv("NOTEBRIDGE_OUTAGE_E2E") == "" {
		t.Skip("about two minutes on a dev server: make test-outage (NOTEBRIDGE_OUTAGE_E2E=1)")
	}
	// 12 pages a section, 60 migrated: enough for the outage to land
	// mid-run.
	spec := genSpec()
	spec.PagesPerSection = 12
	h := newHarnessWith(t, harnessOptions{spec: spec})
	run := h.start(t, h.input())
	g := &progress.Gatherer{Client: h.c, ID: run.GetID(), App: e2eApp}
	first := waitForStatus(t, g, 2*time.Minute, "pages done while sections run", func(s *progress.Snapshot) bool {
		return s.Progress.PagesDone > 0 && s.Progress.Running > 0
	})
	moved := waitForStatus(t, g, time.Minute, "more pages done", func(s *progress.Snapshot) bool {
		return s.Progress.PagesDone > first.Progress.PagesDone
	})
	t.Logf("pages done mid-run: %d, then %d", first.Progress.PagesDone, moved.Progress.PagesDone)

	outage := 10 * time.Minute / e2eScale
	h.graph.SetFaults(graph.Faults{ServerErrorRate: 1})
	began := time.Now()
	named := waitForStatus(t, g, outage+time.Minute, "the Graph outage named", func(s *progress.Snapshot) bool {
		e := s.Progress.Health.LastError
		return e != nil && e.Ongoing && e.Service == workflows.ServiceGraph && !e.At.Before(began.Add(-time.Second))
	})
	latency := time.Since(began)
	time.Sleep(max(0, outage-latency))
	h.graph.ClearFaults()
	lines := progress.HealthLines(named)
	t.Logf("Graph outage of %s named after %s; status rows %q; line %q", outage, latency.Round(10*time.Millisecond), lines,
		progress.Line(named, progress.TotalsOf(named, nil)))
	if latency > outage || len(lines) == 0 || lines[0][0] != "last error" || !strings.HasPrefix(lines[0][1], "Graph 5") {
		t.Errorf("the outage was named after %s (it lasted %s), rows %q", latency, outage, lines)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for {
		s, err := g.Gather(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if s.Waiting() {
			// A page that gave up during the outage: what the status says to do.
			t.Logf("after the outage the notebook waits: next %q", s.Progress.Health.Next)
			if !strings.Contains(s.Progress.Health.Next, "starter retry --user "+e2eUser) {
				t.Errorf("next action %q does not name starter retry", s.Progress.Health.Next)
			}
			if _, err := workflows.RetryFailed(ctx, h.c, run.GetID()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second)
		}
		if !s.Running() {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	rep := wait(t, run, time.Minute)
	if rep.Written != 60 || rep.FailedSections != 0 {
		t.Errorf("after the outage: %s", rep.Message)
	}
}

// waitForStatus gathers snapshots every 100 ms until ok holds.
func waitForStatus(t *testing.T, g *progress.Gatherer, d time.Duration, what string, ok func(*progress.Snapshot) bool) *progress.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	for {
		s, err := g.Gather(ctx)
		if err == nil && ok(s) {
			return s
		}
		if ctx.Err() != nil {
			t.Fatalf("%s: not within %s (last snapshot %+v, error %v)", what, d, s, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
