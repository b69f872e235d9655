package workflows

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/readiness"
)

// readinessEnv is newEnv with CheckReadiness answered by check.
func readinessEnv(t *testing.T, check func(context.Context, activities.CheckReadinessInput) (activities.CheckReadinessResult, error)) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(unitWorkerOptions())
	calls := new(int)
	w := &Workflows{App: "test", NewCaller: func(workflow.Context, limiter.Spec) Caller { return directCaller{calls} }}
	w.Register(env)
	(&activities.Activities{}).Register(env)
	env.OnActivity(activities.CheckReadinessName, mock.Anything, mock.Anything).Return(check)
	return env
}

// checkWith answers CheckReadiness as the activity does, for facts, and
// records what it was asked.
func checkWith(facts readiness.Facts, asked *[]activities.CheckReadinessInput) func(context.Context, activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
	return func(_ context.Context, in activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
		*asked = append(*asked, in)
		est := readiness.EstimateBlocks(in.Sections, in.Pages)
		v := readiness.Check(facts, est)
		res := activities.CheckReadinessResult{Facts: facts, Estimate: est, Verdict: v, Text: v.Text()}
		if err := v.Err(); err != nil && !in.ReportOnly {
			return res, temporal.NewNonRetryableApplicationError(err.Error(), failure.NotionNotReady, nil)
		}
		return res, nil
	}
}

// TestReadinessStopsBeforeTheFirstWrite: a workspace that cannot hold
// the notebook fails the migration with NotionNotReady before the layout
// (the first write) is made, with the check's message. The containers
// alone fit, so the pages are counted (only because the connection is
// held to the block limit) and the second check refuses.
func TestReadinessStopsBeforeTheFirstWrite(t *testing.T) {
	tests := []struct {
		name   string
		facts  readiness.Facts
		counts bool // the pages are counted
		refuse bool
		sync   bool
	}{
		{"free, internal token", readiness.Facts{Plan: readiness.PlanFree, Members: 3, TokenType: readiness.TokenInternal, BlocksUsed: 950}, true, true, false},
		{"free, personal access token", readiness.Facts{Plan: readiness.PlanFree, Members: 3, TokenType: readiness.TokenPersonal, BlocksUsed: 950}, false, false, false},
		{"paid", readiness.Facts{Plan: readiness.PlanPlus, Members: 3, BlocksUsed: 950}, false, false, false},
		{"free, within the limit", readiness.Facts{Plan: readiness.PlanFree, Members: 3, TokenType: readiness.TokenInternal, BlocksUsed: 100}, true, false, false},
		// A sync writes what changed: it is not refused on every page.
		{"free, internal token, sync", readiness.Facts{Plan: readiness.PlanFree, Members: 3, TokenType: readiness.TokenInternal, BlocksUsed: 950}, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []activities.CheckReadinessInput
			env := readinessEnv(t, checkWith(tt.facts, &asked))
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
			env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(activities.ListPagesResult{
				Pages: []activities.PageMeta{{ID: "p1"}, {ID: "p2", Order: 1}}, Done: true}, nil).Maybe()
			layout := env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, errors.New("stop here"))
			if tt.refuse {
				layout.Never()
			}
			in := MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p",
				ContentOptions: activities.ContentOptions{SkipAttachments: true}}
			if tt.sync {
				in.Sync = &SyncOptions{}
			}
			env.ExecuteWorkflow(MigrateNotebookName, in)
			err := env.GetWorkflowError()
			app, decision := failure.Of(err)
			if refused := app != nil && app.Type() == failure.NotionNotReady; refused != tt.refuse {
				t.Fatalf("error %v; refused %v, want %v", err, refused, tt.refuse)
			}
			if tt.refuse {
				if decision != failure.Fail {
					t.Errorf("decision %s", decision)
				}
				for _, want := range []string{"nothing was written", "950 are used and 50 left", "6 pages", "personal access token"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("the error does not say %q: %v", want, err)
					}
				}
			}
			want := []activities.CheckReadinessInput{{Sections: 3, SkipAttachments: true}}
			if tt.counts {
				want = append(want, activities.CheckReadinessInput{Sections: 3, Pages: 6, SkipAttachments: true})
			}
			if len(asked) != len(want) || asked[0] != want[0] || (len(want) > 1 && asked[1] != want[1]) {
				t.Errorf("CheckReadiness asked %+v, want %+v", asked, want)
			}
			env.AssertExpectations(t)
		})
	}
}

// TestDryRunReportsReadiness: a dry run writes nothing, and its report
// carries the verdict for the pages it listed, made in report-only mode.
func TestDryRunReportsReadiness(t *testing.T) {
	var asked activities.CheckReadinessInput
	env := readinessEnv(t, func(_ context.Context, in activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
		asked = in
		return activities.CheckReadinessResult{Text: "Notion readiness: NOT ready; nothing was written."}, nil
	})
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(activities.ListPagesResult{
		Pages: []activities.PageMeta{{ID: "p1"}, {ID: "p2", Order: 1}}, Done: true}, nil)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", DryRun: true})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var rep NotebookReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Readiness, "NOT ready") || !asked.ReportOnly || asked.Pages != rep.Pages || asked.Sections != 3 {
		t.Errorf("readiness %q, asked %+v, %d pages", rep.Readiness, asked, rep.Pages)
	}
	if rep.Pages != 6 {
		t.Errorf("dry run listed %d pages, want 6", rep.Pages)
	}
}
