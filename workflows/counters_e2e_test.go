package workflows_test

import (
	"context"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

// TestCountersOnlyMoveForwardUnderKillsAndThrottling drives a migration
// through what made the counters of issue 35 go back: two workers lost
// while they hold pages, Graph throttling (injected 429s besides the
// limiter's own pacing), and sections and a notebook that continue as
// new. It reads the progress query every 100 ms and checks that no
// counter of it reads less than before (pages listed, done and
// unchanged, Graph permits and their wait), then that the status
// (internal/progress, what starter status and the demo show), the last
// progress query and the report (the summary's source) give the same
// pages and permits at the end.
func TestCountersOnlyMoveForwardUnderKillsAndThrottling(t *testing.T) {
	defer workflows.SetSessionHeartbeatForTest(3 * time.Second)()
	h := newFaultHarness(t)
	for _, w := range h.workers {
		w.Stop()
	}
	h.graph.SetFaults(graph.Faults{ThrottleRate: 0.1})
	defer h.graph.ClearFaults()
	// Notion slow, so the pages take long enough to lose workers midway.
	h.notion.SetFaults(notionemu.Faults{Slow: 1, SlowDelay: 150 * time.Millisecond})
	defer h.notion.SetFaults(notionemu.Faults{})
	acts1, kill1 := h.killableActivities(t)
	acts2, kill2 := h.killableActivities(t)
	doomed1 := h.startWorkerWith(t, acts1)
	parent := h.parent(t, "counters under kills and throttling")
	want := h.expected(t)
	in := h.input(h.nb, parent)
	in.PageParallelism, in.PagesPerRun, in.SectionsPerRun = 1, 2, 1
	id := workflows.NotebookWorkflowID(faultUser, h.nb.ID)
	h.start(t, id, in)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var last workflows.NotebookProgress
	polls, kills := 0, 0
	var doomed2 interface{ Stop() }
	for {
		v, err := h.c.QueryWorkflow(ctx, id, "", workflows.QueryProgress)
		var p workflows.NotebookProgress
		if err == nil && v.Get(&p) == nil {
			for _, c := range []struct {
				what      string
				now, then int64
			}{
				{"pagesListed", int64(p.PagesListed), int64(last.PagesListed)},
				{"pagesDone", int64(p.PagesDone), int64(last.PagesDone)},
				{"pagesSkipped", int64(p.PagesSkipped), int64(last.PagesSkipped)},
				{"permits", int64(p.Permits), int64(last.Permits)},
				{"permitsWaited", int64(p.Waited), int64(last.Waited)},
			} {
				if c.now < c.then {
					t.Errorf("poll %d (%s): %s went back from %d to %d", polls, p.Phase, c.what, c.then, c.now)
				}
			}
			if p.PagesDone+p.PagesFailed > p.PagesListed {
				t.Errorf("poll %d: %d pages done and %d failed of %d listed", polls, p.PagesDone, p.PagesFailed, p.PagesListed)
			}
			last = p
			polls++
			// Lose a worker holding pages, twice: the first worker,
			// then the one that took over from it.
			switch {
			case kills == 0 && p.PagesDone >= 2:
				t.Logf("losing worker 1 at %d of %d pages", p.PagesDone, p.PagesListed)
				doomed2 = h.startWorkerWith(t, acts2)
				kill1()
				doomed1.Stop()
				kills++
			case kills == 1 && p.PagesDone >= 5:
				t.Logf("losing worker 2 at %d of %d pages", p.PagesDone, p.PagesListed)
				h.startWorker(t)
				kill2()
				doomed2.Stop()
				kills++
			}
		}
		d, err := h.c.DescribeWorkflow(ctx, id, "")
		if err == nil && d.RawResponse.GetWorkflowExecutionInfo().GetCloseTime() != nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the migration did not end; last progress %+v", last)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if kills < 2 {
		t.Errorf("only %d workers were lost: the notebook ended first", kills)
	}
	var rep workflows.NotebookReport
	if err := h.c.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.FailedPages != 0 || rep.FailedSections != 0 {
		t.Errorf("report: %s", rep.Message)
	}
	h.checkMigrated(t, parent, want)

	// At the end: the status, the progress query and the report agree.
	snap, err := (&progress.Gatherer{Client: h.c, ID: id, App: faultApp}).Gather(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.ProgressOK {
		t.Fatal("the ended migration did not answer its progress query")
	}
	final, status := snap.Progress, progress.TotalsOf(snap, nil)
	t.Logf("%d polls; progress: %d/%d pages, %d Graph permits, waited %s; status: %s; report: %d pages, %d permits, waited %s; %s",
		polls, final.PagesDone, final.PagesListed, final.Permits, final.Waited, progress.Line(snap, status),
		rep.Pages, rep.Permits, rep.PermitsWaited.D(), rep.Message)
	for _, c := range []struct {
		what                     string
		status, progress, report int64
	}{
		{"pages", int64(status.Pages), int64(final.PagesListed), int64(rep.Pages)},
		{"pages done", int64(status.Done), int64(final.PagesDone), int64(rep.Written + rep.Skipped)},
		{"pages unchanged", int64(status.Unchanged), int64(final.PagesSkipped), int64(rep.Skipped)},
		{"Graph permits", int64(status.Permits), int64(final.Permits), int64(rep.Permits)},
		{"permit waits (ms)", ms(status.Waited), ms(final.Waited), ms(rep.PermitsWaited.D())},
	} {
		if c.status != c.progress || c.progress != c.report {
			t.Errorf("%s: status %d, progress %d, report %d", c.what, c.status, c.progress, c.report)
		}
	}
	if final.Permits < last.Permits || final.PagesDone < last.PagesDone {
		t.Errorf("the ended migration reads less than while it ran: %+v after %+v", final, last)
	}
	if rep.Permits == 0 || final.Waited == 0 {
		t.Errorf("no permits (%d) or no wait (%s) counted: the run was not throttled", rep.Permits, final.Waited)
	}
}

// ms is d in milliseconds, as the report keeps it.
func ms(d time.Duration) int64 { return d.Round(time.Millisecond).Milliseconds() }
