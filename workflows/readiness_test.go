package workflows

import (
	"context"
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
func readinessEnv(t *testing.T, check func(activities.CheckReadinessInput) (activities.CheckReadinessResult, error)) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(unitWorkerOptions())
	calls := new(int)
	w := &Workflows{App: "test", NewCaller: func(workflow.Context, limiter.Spec) Caller { return directCaller{calls} }}
	w.Register(env)
	(&activities.Activities{}).Register(env)
	env.OnActivity(activities.CheckReadinessName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
			return check(in)
		})
	return env
}

// TestReadinessStopsBeforeTheFirstWrite: a workspace that cannot hold
// the notebook fails the migration with NotionNotReady before the layout
// (the first write) is made, with the check's message.
func TestReadinessStopsBeforeTheFirstWrite(t *testing.T) {
	facts := readiness.Facts{Plan: readiness.PlanFree, Members: 3, TokenType: readiness.TokenInternal, BlocksUsed: 998}
	var asked activities.CheckReadinessInput
	env := readinessEnv(t, func(in activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
		asked = in
		v := readiness.Check(facts, readiness.EstimateBlocks(in.Sections, in.Pages))
		return activities.CheckReadinessResult{Verdict: v}, temporal.NewNonRetryableApplicationError(v.Err().Error(), failure.NotionNotReady, nil)
	})
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil).Never()
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p",
		ContentOptions: activities.ContentOptions{SkipAttachments: true}})
	err := env.GetWorkflowError()
	app, decision := failure.Of(err)
	if app == nil || app.Type() != failure.NotionNotReady || decision != failure.Fail {
		t.Fatalf("error %v, want %s", err, failure.NotionNotReady)
	}
	for _, want := range []string{"nothing was written", "998 are used and 2 left", "personal access token"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if asked.Sections != 3 || asked.Pages != 0 || !asked.SkipAttachments || asked.ReportOnly {
		t.Errorf("CheckReadiness asked with %+v", asked)
	}
	env.AssertExpectations(t)
}

// TestDryRunReportsReadiness: a dry run writes nothing, and its report
// carries the verdict for the pages it listed, made in report-only mode.
func TestDryRunReportsReadiness(t *testing.T) {
	var asked activities.CheckReadinessInput
	env := readinessEnv(t, func(in activities.CheckReadinessInput) (activities.CheckReadinessResult, error) {
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
