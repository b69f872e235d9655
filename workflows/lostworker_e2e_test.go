package workflows_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/workflows"
)

// frozen is a transport whose requests made by one activity never
// return: the machine of a worker that is gone answers nothing, and says
// nothing. Requests of the other activities (the readiness check's reads
// before the layout, the pages before the link pass) pass, so the loss
// falls inside the activity named.
type frozen struct {
	next     http.RoundTripper
	activity string
	hit      atomic.Bool
	release  chan struct{}
}

func (f *frozen) RoundTrip(r *http.Request) (*http.Response, error) {
	if ctx := r.Context(); activity.IsActivity(ctx) && activity.GetInfo(ctx).ActivityType.Name == f.activity {
		f.hit.Store(true)
		<-f.release // ignores the request's context, as a dead machine does
		return nil, http.ErrServerClosed
	}
	return f.next.RoundTrip(r)
}

// TestWorkerLostDuringALongActivity loses, for each of the notebook's long
// Notion steps, the worker running it mid-way: its Notion requests hang
// and it stops, so it neither answers nor heartbeats again. Status names
// the stall and the lost worker before another worker starts; that worker
// takes the step over once the heartbeat timeout (or the session's)
// notices, well before a start-to-close timeout would have, and the
// migration ends with every page migrated. The time from the loss to the
// step's end is printed.
func TestWorkerLostDuringALongActivity(t *testing.T) {
	for _, step := range []string{activities.EnsureLayoutName, activities.RewriteLinksName, activities.WriteReportName} {
		t.Run(step, func(t *testing.T) { loseWorkerDuring(t, step) })
	}
}

func loseWorkerDuring(t *testing.T, step string) {
	h := newFaultHarness(t)
	for _, w := range h.workers {
		w.Stop()
	}
	fz := &frozen{next: http.DefaultTransport.(*http.Transport).Clone(), activity: step, release: make(chan struct{})}
	t.Cleanup(func() { close(fz.release) })
	nc, err := notion.NewClient(notion.Config{BaseURL: h.notionURL, Token: notion.StaticToken(h.notionTok),
		HTTPClient: &http.Client{Transport: fz}, Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil), Logger: h.logger})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{GraphBaseURL: h.graphURL, Tokens: lazyTokens{h.store}, Notion: nc, StagingDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	doomed := h.startWorkerWith(t, acts)
	parent := h.parent(t, "worker lost during "+step)
	want := h.expected(t)
	id := workflows.NotebookWorkflowID(faultUser, h.nb.ID)
	run := h.start(t, id, h.input(h.nb, parent))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pending := func() bool {
		d, err := h.c.DescribeWorkflow(ctx, id, run.GetRunID())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range d.RawResponse.GetPendingActivities() {
			if a.GetActivityType().GetName() == step {
				return true
			}
		}
		return false
	}
	for !fz.hit.Load() {
		if ctx.Err() != nil {
			t.Fatalf("%s never sent a Notion request", step)
		}
		time.Sleep(100 * time.Millisecond)
	}
	doomed.Stop()
	lost := time.Now()
	// While no worker can take the step over, status names the stall and
	// its cause (the progress query gets no answer; the workflow's pending
	// activity says it all).
	g := &progress.Gatherer{Client: h.c, ID: id, RunID: run.GetRunID()}
	for named := false; !named; {
		gctx, gcancel := context.WithTimeout(ctx, 2*time.Second)
		snap, err := g.Gather(gctx)
		gcancel()
		if err == nil {
			for _, l := range snap.Lost {
				if l.Activity == step {
					t.Logf("%s after the loss, status names it: %s; the line: %s", time.Since(lost).Round(100*time.Millisecond),
						l.Text(snap.Now), progress.HealthShort(snap))
					named = true
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("status never named the lost worker holding %s", step)
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Logf("the worker running %s is lost; starting another", step)
	h.startWorker(t)
	for pending() {
		if ctx.Err() != nil {
			t.Fatalf("%s never went on after its worker was lost", step)
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(lost)
	t.Logf("%s went on and ended %s after its worker was lost (heartbeat timeout 30 s)", step, took.Round(100*time.Millisecond))
	if took > 3*time.Minute {
		t.Errorf("%s ended %s after its worker was lost: the loss was not noticed by a heartbeat", step, took)
	}
	var rep workflows.NotebookReport
	if err := run.Get(ctx, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.FailedPages != 0 || rep.FailedSections != 0 {
		t.Errorf("report: %s", rep.Message)
	}
	h.checkMigrated(t, parent, want)
}
