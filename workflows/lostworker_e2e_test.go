package workflows_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/workflows"
)

// frozen is a transport whose requests, once frozen, never return: the
// machine of a worker that is gone answers nothing, and says nothing. The
// readiness check's reads of the workspace's users, which come before the
// layout, still pass, so the loss falls inside EnsureLayout.
type frozen struct {
	next    http.RoundTripper
	on      atomic.Bool
	release chan struct{}
}

func (f *frozen) RoundTrip(r *http.Request) (*http.Response, error) {
	if f.on.Load() && !strings.HasPrefix(r.URL.Path, "/v1/users") {
		<-f.release // ignores the request's context, as a dead machine does
		return nil, http.ErrServerClosed
	}
	return f.next.RoundTrip(r)
}

// TestWorkerLostDuringLayout loses the worker that creates the Notion
// containers (EnsureLayout) mid-way: its Notion requests hang and it
// stops, so it neither answers nor heartbeats again. Status names the
// stall and the lost worker before another worker starts; that worker
// takes the layout over once the heartbeat timeout notices, well before its
// ten-minute start-to-close timeout would have, and the migration ends
// with every page migrated. The time from the loss to the layout's end is
// printed.
func TestWorkerLostDuringLayout(t *testing.T) {
	h := newFaultHarness(t)
	for _, w := range h.workers {
		w.Stop()
	}
	fz := &frozen{next: http.DefaultTransport.(*http.Transport).Clone(), release: make(chan struct{})}
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
	fz.on.Store(true) // the layout's first Notion request hangs
	parent := h.parent(t, "worker lost during the layout")
	want := h.expected(t)
	id := workflows.NotebookWorkflowID(faultUser, h.nb.ID)
	run := h.start(t, id, h.input(h.nb, parent))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	layoutRunning := func() bool {
		d, err := h.c.DescribeWorkflow(ctx, id, run.GetRunID())
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range d.RawResponse.GetPendingActivities() {
			if a.GetActivityType().GetName() == activities.EnsureLayoutName && a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED {
				return true
			}
		}
		return false
	}
	for !layoutRunning() {
		if ctx.Err() != nil {
			t.Fatal("EnsureLayout never started")
		}
		time.Sleep(200 * time.Millisecond)
	}
	doomed.Stop()
	lost := time.Now()
	// While no worker can take the layout over, status names the stall
	// and its cause (the progress query gets no answer; the workflow's
	// pending activity says it all).
	g := &progress.Gatherer{Client: h.c, ID: id, RunID: run.GetRunID()}
	for named := false; !named; {
		gctx, gcancel := context.WithTimeout(ctx, 2*time.Second)
		snap, err := g.Gather(gctx)
		gcancel()
		if err == nil {
			for _, l := range snap.Lost {
				if l.Activity == activities.EnsureLayoutName {
					t.Logf("%s after the loss, status names it: %s; the line: %s", time.Since(lost).Round(100*time.Millisecond),
						l.Text(snap.Now), progress.HealthShort(snap))
					named = true
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatal("status never named the lost worker holding EnsureLayout")
		}
		time.Sleep(250 * time.Millisecond)
	}
	t.Log("the worker creating the Notion containers is lost; starting another")
	h.startWorker(t)
	for {
		var p workflows.NotebookProgress
		v, err := h.c.QueryWorkflow(ctx, id, run.GetRunID(), workflows.QueryProgress)
		if err == nil && v.Get(&p) == nil && p.Phase != "" && p.Phase != "creating Notion containers" && p.Phase != "reading" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the layout never went on after its worker was lost")
		}
		time.Sleep(250 * time.Millisecond)
	}
	took := time.Since(lost)
	t.Logf("the layout went on %s after its worker was lost (heartbeat timeout 30 s; start-to-close 10 min)", took.Round(100*time.Millisecond))
	if took > 3*time.Minute {
		t.Errorf("the layout went on %s after its worker was lost: the loss was not noticed by a heartbeat", took)
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
