package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
)

// retryingCaller runs Graph activities without permits but retries a
// retryable failure every 30 seconds, telling OnAttempt of each attempt,
// as entity.Client.Call does under the limiter; after a failure it tells
// the hold callback that a breaker holds the retry for a minute, as the
// limiter does when a request queues behind an open breaker.
type retryingCaller struct{ onHold *func(entity.Hold) }

func (c retryingCaller) NotifyHolds(f func(entity.Hold)) { *c.onHold = f }

func (c retryingCaller) Call(ctx workflow.Context, call entity.Call, result any) (entity.CallStats, error) {
	opts := call.Options
	opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: 1}
	var st entity.CallStats
	for {
		st.Attempts++
		err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), call.Activity, call.Args...).Get(ctx, result)
		if call.OnAttempt != nil {
			call.OnAttempt(entity.Attempt{N: st.Attempts, Err: err, At: workflow.Now(ctx)})
		}
		var app *temporal.ApplicationError
		if err == nil || (errors.As(err, &app) && app.NonRetryable()) || st.Attempts == 200 {
			return st, err
		}
		if *c.onHold != nil {
			(*c.onHold)(entity.Hold{Scope: "app", Breaker: limiter.BreakerInfo{State: "open", Reason: "server errors",
				Until: workflow.Now(ctx).Add(time.Minute)}})
		}
		if err := workflow.Sleep(ctx, 30*time.Second); err != nil {
			return st, err
		}
	}
}

func (c retryingCaller) Flush(workflow.Context) error { return nil }

// outageSection mocks a one-section notebook of n pages whose Graph
// content (or Notion writes) fail from the third page on until the
// outage ends.
type outageSection struct {
	env    *testsuite.TestWorkflowEnvironment
	n      int
	notion bool
	end    time.Time
}

func (o *outageSection) down(page string) bool {
	return page >= "p2" && o.env.Now().Before(o.end)
}

func (o *outageSection) mock() {
	env := o.env
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{
		Match: &activities.NotebookTree{ID: "nb1", Name: "Work notes", Sections: []activities.TreeNode{{ID: "s1", Name: "Plans"}}}}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(
		notion.Layout{SectionDatabaseIDs: map[string]string{"s1": "db1"}}, nil)
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
		func(context.Context, activities.ListPagesInput) (activities.ListPagesResult, error) {
			var pages []activities.PageMeta
			for i := range o.n {
				pages = append(pages, activities.PageMeta{ID: fmt.Sprintf("p%d", i), Title: fmt.Sprintf("Page %d", i), Order: i})
			}
			return activities.ListPagesResult{Pages: pages, Done: true}, nil
		})
	env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(activities.ExistingRowsResult{}, nil)
	env.OnActivity(activities.FetchContentName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FetchContentInput) (activities.ContentMeta, error) {
			if !o.notion && o.down(in.PageID) {
				return activities.ContentMeta{}, entity.OutcomeError(errors.New("onenote: get page content: HTTP 503: Service Unavailable"),
					failure.GraphTransient, limiter.Outcome{Status: 503}, false)
			}
			return activities.ContentMeta{}, nil
		})
	env.OnActivity(activities.WritePageName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WritePageInput) (activities.WritePageResult, error) {
			if o.notion && o.down(in.Page.ID) {
				return activities.WritePageResult{}, temporal.NewApplicationError("notion: append blocks: HTTP 502 Bad Gateway", failure.NotionRetryable)
			}
			return activities.WritePageResult{NotionPageID: "n-" + in.Page.ID}, nil
		})
	env.OnActivity(activities.CleanPageName, mock.Anything, mock.Anything).Return(nil)
}

// TestProgressNamesOutagesAndStalls runs a notebook through a Graph
// outage and a Notion outage: mid-section the progress query counts the
// pages done so far, names the last upstream error with its time, calls a
// Graph outage that holds every page a stall, and gives the command to
// run; once the outage ends every page is written.
func TestProgressNamesOutagesAndStalls(t *testing.T) {
	for _, tc := range []struct {
		name        string
		notion      bool
		shards      int
		state, code string
		stall, next string
	}{
		{name: "Graph down for 20 minutes", state: "stalled", code: "503",
			stall: "stalled: no page done for 10m0s (the Graph budget explains 4m57s): Graph has been failing since 00:00:00 UTC, " +
				"and the limiter's app breaker holds Graph requests until", next: "temporal workflow query --workflow-id limiter/graph-onenote/test --name state"},
		{name: "Graph down for 20 minutes, the limiter in 4 shards", shards: 4, state: "stalled", code: "503",
			stall: "stalled: no page done for 10m0s", next: "temporal workflow query --workflow-id " + entity.ShardWorkflowID(LimiterResource, "test", "alice", 4) + " --name state"},
		{name: "Notion down for 20 minutes", notion: true, state: "waiting", code: "",
			next: "`starter retry --user alice --notebook nb1 --section 'Work notes / Plans'`"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			env.SetWorkerOptions(worker.Options{EnableSessionWorker: true})
			env.SetStartTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
			w := &Workflows{App: "test", LimiterShards: tc.shards, NewCaller: func(workflow.Context, limiter.Spec) Caller {
				return retryingCaller{onHold: new(func(entity.Hold))}
			}}
			w.Register(env)
			(&activities.Activities{}).Register(env)
			mockReadiness(env)
			o := &outageSection{env: env, n: 6, notion: tc.notion, end: env.Now().Add(20 * time.Minute)}
			o.mock()
			queried := false
			env.RegisterDelayedCallback(func() {
				queried = true
				v, err := env.QueryWorkflow(QueryProgress)
				if err != nil {
					t.Fatal(err)
				}
				var p NotebookProgress
				if err := v.Get(&p); err != nil {
					t.Fatal(err)
				}
				h := p.Health
				t.Logf("progress at 10m: %d pages done; health %+v; last error %s", p.PagesDone, h, h.LastError)
				if p.PagesDone != 2 || (!tc.notion && p.Running != 1) {
					t.Errorf("pages done mid-section: %d, want the 2 before the outage (%+v)", p.PagesDone, p)
				}
				service := ServiceGraph
				if tc.notion {
					service = ServiceNotion
				}
				if e := h.LastError; e == nil || e.Service != service || e.Code != tc.code || !e.Ongoing || e.At.IsZero() || e.Since.After(e.At) || e.Section != "Work notes / Plans" {
					t.Errorf("last error %+v, want an ongoing %s error %q", e, service, tc.code)
				}
				if got := h.Breaker != nil && h.Breaker.Reason == "server errors" && h.Breaker.Until.After(env.Now()); got != !tc.notion {
					t.Errorf("breaker %+v: held %v, want %v", h.Breaker, got, !tc.notion)
				}
				if h.State != tc.state || !strings.HasPrefix(h.Stall, tc.stall) || !strings.Contains(h.Next, tc.next) {
					t.Errorf("health %+v, want state %q, stall %q..., next naming %q", h, tc.state, tc.stall, tc.next)
				}
			}, 10*time.Minute)
			if tc.notion {
				// Retry once Notion is back.
				env.RegisterDelayedCallback(func() { mustUpdate(t, env, UpdateRetryFailed) }, 25*time.Minute)
			}
			env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "nb1", NotionParent: "p"})
			if err := env.GetWorkflowError(); err != nil {
				t.Fatal(err)
			}
			var rep NotebookReport
			if err := env.GetWorkflowResult(&rep); err != nil {
				t.Fatal(err)
			}
			if !queried || rep.Written != 6 || rep.FailedSections != 0 {
				t.Errorf("queried %v; report %+v, want every page written", queried, rep)
			}
		})
	}
}
