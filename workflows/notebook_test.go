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
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/notion"
)

func tree() *activities.NotebookTree {
	return &activities.NotebookTree{ID: "nb1", Name: "Work notes",
		Sections: []activities.TreeNode{{ID: "s1", Name: "Plans"}},
		SectionGroups: []activities.GroupNode{{ID: "g1", Name: "Archive",
			Sections: []activities.TreeNode{{ID: "s2", Name: "2023"}, {ID: "s3", Name: "2024"}}}}}
}

func TestNotebookNotFoundListsTheNames(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{
		Notebooks: []activities.NotebookInfo{{ID: "a", Name: "Alpha"}, {ID: "b", Name: "Beta"}}}, nil)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Gamma", NotionParent: "p"})
	err := env.GetWorkflowError()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.Config {
		t.Fatalf("error %v, want %s", err, failure.Config)
	}
	for _, s := range []string{`"Gamma"`, `"Alpha"`, `"Beta"`} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not mention %s", err, s)
		}
	}
}

func TestFatalConfigErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		typ, want string
		notion    bool
	}{
		{failure.NotSignedIn, "not signed in", false},
		{failure.GraphLibraryLimit, "10008", false},
		{failure.NotionNotShared, "not shared with the integration", true},
	} {
		env, _ := newEnv(t)
		fail := temporal.NewNonRetryableApplicationError("boom", tc.typ, nil)
		if tc.notion {
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
			env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, fail)
		} else {
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{}, fail)
		}
		env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p"})
		err := env.GetWorkflowError()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.typ, err, tc.want)
		}
	}
}

// TestFailedSectionWaitsForRetry runs a notebook whose second section fails
// once: the notebook stays open, reports it, and a retry-section update
// runs that section (only it) again.
func TestFailedSectionWaitsForRetry(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{
		SectionDatabaseIDs: map[string]string{"s1": "db1", "s2": "db2", "s3": "db3"}}, nil)
	env.OnActivity(activities.StageLinkTargetsName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.StageLinkTargetsInput) (activities.StageLinkTargetsResult, error) {
			if len(in.DatabaseIDs) != 3 {
				return activities.StageLinkTargetsResult{}, fmt.Errorf("staged targets of %v, want all 3 databases", in.DatabaseIDs)
			}
			return activities.StageLinkTargetsResult{Targets: 6}, nil
		})
	env.OnActivity(activities.RewriteLinksName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.RewriteLinksInput) (activities.RewriteLinksResult, error) {
			return activities.RewriteLinksResult{Pages: 1, Losses: 1, LossPageCount: 1, LossPages: []activities.LinkLossPage{
				{OneNotePageID: "page-of-" + in.DatabaseID, NotionPageID: "n", Title: "T", Losses: 1,
					Samples: []string{"link: points to a page not migrated"}}}}, nil
		})
	runs := map[string]int{}
	env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
			runs[in.Section.ID]++
			if in.DatabaseID == "" {
				return SectionResult{}, errors.New("no database")
			}
			if in.Section.ID == "s2" && runs["s2"] == 1 {
				return SectionResult{}, temporal.NewNonRetryableApplicationError("listing failed", "GraphNotFound", nil)
			}
			return SectionResult{SectionID: in.Section.ID, Pages: 2, Done: 2, Written: 2, Linked: 1}, nil
		})
	env.RegisterDelayedCallback(func() {
		v, err := env.QueryWorkflow(QueryProgress)
		if err != nil {
			t.Fatal(err)
		}
		var p NotebookProgress
		if err := v.Get(&p); err != nil {
			t.Fatal(err)
		}
		if p.Failed != 1 || p.Done != 2 || !strings.Contains(p.Phase, "waiting") {
			t.Errorf("progress while waiting: %+v", p)
		}
		mustUpdate(t, env, UpdateRetrySection, "s2")
	}, time.Hour)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "nb1", NotionParent: "p"})
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var rep NotebookReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.FailedSections != 0 || rep.Written != 6 || rep.LinkPages != 3 {
		t.Errorf("report: %+v", rep)
	}
	if rep.LinkLosses != 3 || rep.LinkLossPages != 3 || len(rep.LossPages) != 3 || rep.LossPages[0].Notes[0] != "link: points to a page not migrated" ||
		!strings.Contains(rep.Message, "3 internal links kept as text") {
		t.Errorf("the link pass's losses in the report: %d on %d pages, %+v, %q", rep.LinkLosses, rep.LinkLossPages, rep.LossPages, rep.Message)
	}
	if runs["s1"] != 1 || runs["s2"] != 2 || runs["s3"] != 1 {
		t.Errorf("section runs %v, want s2 twice and the others once", runs)
	}
	if rep.Sections[1].Path != "Work notes / Archive / 2023" {
		t.Errorf("section path %q", rep.Sections[1].Path)
	}
}

// TestFinishCompletesWithFailures completes a notebook with a failed
// section on the finish update, reporting it.
func TestFinishCompletesWithFailures(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil)
	env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
			if in.Section.ID == "s3" {
				return SectionResult{SectionID: "s3", Pages: 2, Done: 1, Failed: 1,
					FailedPages: []PageFailure{{ID: "p9", Error: "write: boom"}}}, nil
			}
			return SectionResult{SectionID: in.Section.ID}, nil
		})
	env.RegisterDelayedCallback(func() { mustUpdate(t, env, UpdateFinish) }, time.Hour)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p",
		Exclude: []string{"Plans"}})
	var rep NotebookReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.FailedSections != 1 || rep.FailedPages != 1 || len(rep.Sections) != 2 || !strings.Contains(rep.Message, "2024") {
		t.Errorf("report: %+v", rep)
	}
}

// TestDryRunWritesNothing reads the tree and lists pages but creates no
// Notion containers and rewrites no links.
func TestDryRunWritesNothing(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(activities.ListPagesResult{
		Pages: []activities.PageMeta{{ID: "p1"}, {ID: "p2", Order: 1}}, Done: true}, nil)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", DryRun: true})
	var rep NotebookReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if rep.Pages != 6 || rep.Written != 0 || rep.FailedSections != 0 || !strings.HasPrefix(rep.Message, "Dry run") {
		t.Errorf("report: %+v", rep)
	}
	env.AssertNotCalled(t, activities.EnsureLayoutName, mock.Anything, mock.Anything)
}

// TestLinkLossesJoinTheReport: the link pass's losses are counted apart
// and noted on the pages the report names, a page already named getting
// the notes added, at most 20 pages named.
func TestLinkLossesJoinTheReport(t *testing.T) {
	rep := NotebookReport{LossPages: []PageLoss{{ID: "a", Title: "A", Losses: 2, Notes: []string{"colour"}}}}
	r := activities.RewriteLinksResult{Losses: 25, LossPageCount: 22, LossPages: []activities.LinkLossPage{
		{OneNotePageID: "a", Losses: 1, Samples: []string{"link a"}},
		{NotionPageID: "notion-only", Title: "Old form", Losses: 1, Samples: []string{"link n"}}}}
	for i := 0; i < 20; i++ {
		r.LossPages = append(r.LossPages, activities.LinkLossPage{OneNotePageID: fmt.Sprint("p", i), Losses: 1})
	}
	rep.addLinkLosses(r)
	if rep.LinkLosses != 25 || rep.LinkLossPages != 22 || len(rep.LossPages) != 20 {
		t.Fatalf("%d losses on %d pages, %d named", rep.LinkLosses, rep.LinkLossPages, len(rep.LossPages))
	}
	if a := rep.LossPages[0]; a.Losses != 3 || len(a.Notes) != 2 || a.Notes[1] != "link a" {
		t.Errorf("page a: %+v", a)
	}
	if n := rep.LossPages[1]; n.ID != "notion-only" || n.Title != "Old form" {
		t.Errorf("a page known by its Notion ID only: %+v", n)
	}
}

// TestOperatorUpdatesAreValidated: retry-section, retry-failed and finish
// answer at once: a yes saying what the notebook will do, or a refusal
// saying why, which changes nothing. s1 is done, s2 fails once, s3 runs
// for three hours.
func TestOperatorUpdatesAreValidated(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil)
	runs := map[string]int{}
	env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
			runs[in.Section.ID]++
			switch {
			case in.Section.ID == "s2" && runs["s2"] == 1:
				return SectionResult{}, temporal.NewNonRetryableApplicationError("listing failed", failure.GraphTransient, nil)
			case in.Section.ID == "s2":
				_ = workflow.Sleep(ctx, time.Hour)
			case in.Section.ID == "s3":
				_ = workflow.Sleep(ctx, 3*time.Hour)
			}
			return SectionResult{SectionID: in.Section.ID, Pages: 1, Done: 1, Written: 1}, nil
		})
	type step struct {
		update string
		args   []any
		want   string // in the answer, or in the refusal
		refuse bool
	}
	steps, answered := 0, 0
	for _, at := range []struct {
		after time.Duration
		steps []step
	}{
		{time.Hour, []step{
			{UpdateRetrySection, []any{"nope"}, `no section "nope" in this notebook: the sections that can be retried are "Work notes / Archive / 2023" (s2, failed)`, true},
			{UpdateRetrySection, []any{"s3"}, `section "Work notes / Archive / 2024" is running`, true},
			{UpdateRetrySection, []any{"Plans"}, `section "Work notes / Plans" is done, nothing to retry`, true},
			{UpdateFinish, nil, `1 sections still run or wait to run ("Work notes / Archive / 2024" (running))`, true},
			{UpdateRetrySection, []any{"Work notes / Archive / 2023"}, `section "Work notes / Archive / 2023" (s2) runs again`, false},
		}},
		{time.Hour + time.Minute, []step{
			{UpdateRetrySection, []any{"s2"}, `section "Work notes / Archive / 2023" is running`, true},
			{UpdateRetryFailed, nil, `no section has failed or been skipped: nothing to retry`, true},
			{UpdateFinish, nil, `2 sections still run`, true},
		}},
	} {
		env.RegisterDelayedCallback(func() {
			for _, st := range at.steps {
				update(env, st.update, func(answer string, err error) {
					answered++
					switch {
					case st.refuse && (failure.Find(err, failure.Refused) == nil || !strings.Contains(err.Error(), st.want)):
						t.Errorf("after %s, %s %v: %q, %v; want refused with %q", at.after, st.update, st.args, answer, err, st.want)
					case !st.refuse && (err != nil || !strings.Contains(answer, st.want)):
						t.Errorf("after %s, %s %v: %q, %v; want %q", at.after, st.update, st.args, answer, err, st.want)
					}
				}, st.args...)
			}
		}, at.after)
		steps += len(at.steps)
	}
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p", DryRun: true})
	var rep NotebookReport
	if err := env.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	// Only the accepted retry changed anything: s2 ran twice, the others
	// once, and the notebook completed by itself.
	if runs["s1"] != 1 || runs["s2"] != 2 || runs["s3"] != 1 || rep.FailedSections != 0 {
		t.Errorf("section runs %v, report %+v", runs, rep)
	}
	if answered != steps {
		t.Errorf("%d of %d updates answered", answered, steps)
	}
}
