package workflows

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// pipelineMocks mocks the page activities of a section of n pages p0..;
// fail, if set, decides a WritePage's error from the page ID and how
// often it was written before.
type pipelineMocks struct {
	mu       sync.Mutex
	n        int
	contents map[string]int
	writes   map[string]int
	inputs   []activities.WritePageInput
	lost     map[string][]activities.LostResource // FetchResources reports these
	fail     func(page string, before int) error
	// failContent, if set, decides a FetchContent's error the same way.
	failContent func(page string, before int) error
	levels      map[string]int // page levels (subpages), 0 if absent
}

func (m *pipelineMocks) register(env *testsuite.TestWorkflowEnvironment) {
	m.contents, m.writes = map[string]int{}, map[string]int{}
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
			var ps []activities.PageMeta
			for i := range m.n {
				id := fmt.Sprintf("p%d", i)
				ps = append(ps, activities.PageMeta{ID: id, Order: i, Level: m.levels[id], LastModified: "2024-01-01T00:00:00.000Z"})
			}
			return activities.ListPagesResult{Pages: ps, Done: true}, nil
		})
	env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(activities.ExistingRowsResult{}, nil)
	env.OnActivity(activities.FetchContentName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FetchContentInput) (activities.ContentMeta, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			before := m.contents[in.PageID]
			m.contents[in.PageID]++
			if m.failContent != nil {
				if err := m.failContent(in.PageID, before); err != nil {
					return activities.ContentMeta{}, err
				}
			}
			return activities.ContentMeta{Resources: []activities.ResourceRef{{ID: in.PageID + "-r1"}, {ID: in.PageID + "-r2"}}}, nil
		})
	env.OnActivity(activities.FetchResourcesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FetchResourcesInput) (activities.FetchResourcesResult, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			r := activities.FetchResourcesResult{Requests: len(in.Resources)}
			for _, ref := range in.Resources {
				if l := slices.IndexFunc(m.lost[ref.ID], func(l activities.LostResource) bool { return l.ID == ref.ID }); l >= 0 {
					r.Lost = append(r.Lost, m.lost[ref.ID][l])
				} else {
					r.Fetched = append(r.Fetched, ref.ID)
				}
			}
			return r, nil
		})
	env.OnActivity(activities.WritePageName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WritePageInput) (activities.WritePageResult, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			before := m.writes[in.Page.ID]
			m.writes[in.Page.ID]++
			m.inputs = append(m.inputs, in)
			if m.fail != nil {
				if err := m.fail(in.Page.ID, before); err != nil {
					return activities.WritePageResult{}, err
				}
			}
			res := activities.WritePageResult{NotionPageID: "n-" + in.Page.ID}
			for _, l := range in.Lost {
				res.Losses++
				res.LossSamples = append(res.LossSamples, "attachment: "+l.Reason)
			}
			return res, nil
		})
	env.OnActivity(activities.CleanPageName, mock.Anything, mock.Anything).Return(nil)
}

func sectionInput(n int) SectionInput {
	return SectionInput{User: "alice", NotebookID: "nb", Section: SectionRef{ID: "s", Name: "S", Path: "NB / S"},
		DatabaseID: "db", PageParallelism: 2, PagesPerRun: n + 1}
}

// TestPageWhoseStagedDataIsGoneRunsAgain: the write finds the staged
// content missing (the worker that staged it is gone): the page is run
// again from its content fetch, written once, and not marked failed.
func TestPageWhoseStagedDataIsGoneRunsAgain(t *testing.T) {
	env, _ := newEnv(t)
	m := &pipelineMocks{n: 3, fail: func(page string, before int) error {
		if page == "p1" && before == 0 {
			return temporal.NewNonRetryableApplicationError("staged page content is missing on this worker", failure.Staging, nil)
		}
		return nil
	}}
	m.register(env)
	env.ExecuteWorkflow(MigrateSectionName, sectionInput(3))
	var res SectionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Done != 3 || res.Failed != 0 || res.Reruns != 1 {
		t.Errorf("result %+v: want 3 done, 0 failed, 1 rerun", res)
	}
	if m.contents["p1"] != 2 || m.writes["p1"] != 2 || m.contents["p0"] != 1 {
		t.Errorf("content fetches %v, writes %v: p1 should run twice, the others once", m.contents, m.writes)
	}
}

// TestLostRunsAreNotThePagesFault runs one page whose runs end in
// different ways: runs lost with their worker (the staged content gone)
// run the page again, past the three the rule once allowed, spaced once
// the page had been staged, up to maxPageRuns; an error of the page's own
// ends it in its run.
func TestLostRunsAreNotThePagesFault(t *testing.T) {
	staging := func() error {
		return temporal.NewNonRetryableApplicationError("staged page content is missing on this worker", failure.Staging, nil)
	}
	lostFirst := func(n int) func(string, int) error {
		return func(_ string, before int) error {
			if before < n {
				return staging()
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name              string
		fail, failContent func(string, int) error
		contents, writes  int
		failed            bool
		reruns            int
		waits             []time.Duration // the timers before the reruns
		errorSays         string
	}{
		{name: "lost once while writing: run again at once", fail: lostFirst(1), contents: 2, writes: 2, reruns: 1},
		{name: "lost five times while writing: written on the sixth run", fail: lostFirst(5), contents: 6, writes: 6, reruns: 5,
			waits: []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute}},
		{name: "lost every run: failed after maxPageRuns", fail: lostFirst(maxPageRuns), contents: maxPageRuns, writes: maxPageRuns,
			failed: true, reruns: maxPageRuns - 1,
			waits:     []time.Duration{15 * time.Second, 30 * time.Second, time.Minute, 2 * time.Minute, 2 * time.Minute, 2 * time.Minute},
			errorSays: fmt.Sprintf("lost %d times in a row", maxPageRuns)},
		{name: "lost before anything was staged: run again at once, unspaced", failContent: lostFirst(4), contents: 5, writes: 1, reruns: 4},
		{name: "lost before staging every run: still bounded", failContent: lostFirst(maxPageRuns), contents: maxPageRuns, writes: 0,
			failed: true, reruns: maxPageRuns - 1, errorSays: fmt.Sprintf("lost %d times in a row", maxPageRuns)},
		{name: "Notion refuses the page: failed in its first run", contents: 1, writes: 1, failed: true, errorSays: failure.NotionInvalid,
			fail: func(string, int) error {
				return temporal.NewNonRetryableApplicationError("body failed validation", failure.NotionInvalid, nil)
			}},
		{name: "its content cannot be converted: failed in its first run", contents: 1, writes: 1, failed: true, errorSays: failure.Convert,
			fail: func(string, int) error {
				return temporal.NewNonRetryableApplicationError("unreadable page", failure.Convert, nil)
			}},
		{name: "lost twice, then refused: the page's own error ends it", contents: 3, writes: 3, failed: true, reruns: 2,
			waits: []time.Duration{15 * time.Second}, errorSays: failure.NotionInvalid,
			fail: func(_ string, before int) error {
				if before < 2 {
					return staging()
				}
				return temporal.NewNonRetryableApplicationError("body failed validation", failure.NotionInvalid, nil)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := newEnv(t)
			m := &pipelineMocks{n: 1, fail: tc.fail, failContent: tc.failContent}
			m.register(env)
			var waits []time.Duration
			env.SetOnTimerScheduledListener(func(_ string, d time.Duration) { waits = append(waits, d) })
			env.ExecuteWorkflow(MigrateSectionName, sectionInput(1))
			var res SectionResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if m.contents["p0"] != tc.contents || m.writes["p0"] != tc.writes {
				t.Errorf("%d content fetches and %d writes, want %d and %d", m.contents["p0"], m.writes["p0"], tc.contents, tc.writes)
			}
			if (res.Failed == 1) != tc.failed || res.Done+res.Failed != 1 || res.Reruns != tc.reruns || res.MostReruns != tc.reruns {
				t.Errorf("result %+v: want failed %v, %d reruns", res, tc.failed, tc.reruns)
			}
			if !slices.Equal(waits, tc.waits) {
				t.Errorf("waited %v before the reruns, want %v", waits, tc.waits)
			}
			if tc.failed && (len(res.FailedPages) != 1 || !strings.Contains(res.FailedPages[0].Error, tc.errorSays)) {
				t.Errorf("failed pages %+v: want the error to say %q", res.FailedPages, tc.errorSays)
			}
		})
	}
}

// TestRerunAfterLoss is the rule itself, run by run: every lost run
// counts toward maxPageRuns; one that had staged the page waits longer
// each time (at once, 15 s, 30 s, 1 min, then 2 min), one that had not
// goes again at once.
func TestRerunAfterLoss(t *testing.T) {
	for _, tc := range []struct {
		run    int
		staged bool
		again  bool
		wait   time.Duration
	}{
		{1, true, true, 0},
		{2, true, true, 15 * time.Second},
		{3, true, true, 30 * time.Second},
		{4, true, true, time.Minute},
		{5, true, true, 2 * time.Minute},
		{maxPageRuns - 1, true, true, 2 * time.Minute},
		{maxPageRuns, true, false, 0},
		{1, false, true, 0},
		{maxPageRuns - 1, false, true, 0},
		{maxPageRuns, false, false, 0},
	} {
		again, wait := rerunAfterLoss(tc.run, tc.staged)
		if again != tc.again || wait != tc.wait {
			t.Errorf("run %d lost (staged %v): again %v after %s, want %v after %s", tc.run, tc.staged, again, wait, tc.again, tc.wait)
		}
	}
	// A page that kills every worker it runs on is stopped within
	// maxPageRuns runs, spaced over at least this long.
	var total time.Duration
	for run := 1; ; run++ {
		again, wait := rerunAfterLoss(run, true)
		if !again {
			break
		}
		total += wait
	}
	if total < 7*time.Minute {
		t.Errorf("the reruns of a page that kills its workers are spaced over %s in all, want at least 7 min", total)
	}
	t.Logf("a page losing every worker runs %d times, the reruns spaced over %s", maxPageRuns, total)
}

// TestSubpagesFailWithTheirParent: a subpage whose parent failed is not
// written outside it (a retry would then skip it as done and never nest
// it): it fails too, naming the cause, and the other pages migrate.
func TestSubpagesFailWithTheirParent(t *testing.T) {
	env, _ := newEnv(t)
	m := &pipelineMocks{n: 4, levels: map[string]int{"p2": 1, "p3": 2}, fail: func(page string, _ int) error {
		if page == "p1" {
			return temporal.NewNonRetryableApplicationError("notion refused the page", "NotionValidation", nil)
		}
		return nil
	}}
	m.register(env)
	env.ExecuteWorkflow(MigrateSectionName, sectionInput(4))
	var res SectionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Done != 1 || res.Failed != 3 {
		t.Fatalf("result %+v: want p0 done, p1 and its subpages p2, p3 failed", res)
	}
	if m.writes["p2"] != 0 || m.writes["p3"] != 0 {
		t.Errorf("writes %v: the subpages of a failed page must not be written", m.writes)
	}
	for _, fp := range res.FailedPages {
		if fp.ID != "p1" && !strings.Contains(fp.Error, "its parent page failed") {
			t.Errorf("failed page %s: error %q, want it to name its failed parent", fp.ID, fp.Error)
		}
	}
}

// TestLostResourcesAreWrittenAsLosses: a resource Graph no longer has
// does not fail the page: the write gets it as lost and the ledger and
// result report the loss.
func TestLostResourcesAreWrittenAsLosses(t *testing.T) {
	env, _ := newEnv(t)
	m := &pipelineMocks{n: 2, lost: map[string][]activities.LostResource{
		"p1-r2": {{ID: "p1-r2", Reason: "it is gone from OneNote (HTTP 404)"}}}}
	m.register(env)
	env.ExecuteWorkflow(MigrateSectionName, sectionInput(2))
	var res SectionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Done != 2 || res.Failed != 0 || res.Losses != 1 || len(res.LossPages) != 1 || res.LossPages[0].ID != "p1" ||
		!strings.Contains(res.LossPages[0].Notes[0], "404") {
		t.Errorf("result %+v", res)
	}
	for _, in := range m.inputs {
		if (in.Page.ID == "p1") != (len(in.Lost) == 1) {
			t.Errorf("write of %s got lost resources %v", in.Page.ID, in.Lost)
		}
	}
}

// TestListingFollowsNextLinkWhenSkipIsIgnored: Graph sends the first 100
// pages again for $skip=100; the section lists again following nextLink
// and gets every page once.
func TestListingFollowsNextLinkWhenSkipIsIgnored(t *testing.T) {
	env, _ := newEnv(t)
	page := func(i int) activities.PageMeta {
		return activities.PageMeta{ID: fmt.Sprintf("p%03d", i), Order: i, LastModified: "2024-01-01T00:00:00.000Z"}
	}
	var cursors []onenote.PageCursor
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
			cursors = append(cursors, in.Cursor)
			c := in.Cursor
			var r activities.ListPagesResult
			switch {
			case !c.UseNextLink && c.Skip == 0:
				for i := range 100 {
					r.Pages = append(r.Pages, page(i))
				}
				r.Next = onenote.PageCursor{SectionID: c.SectionID, Skip: 100, PrevFingerprint: "x"}
			case !c.UseNextLink:
				r.Done, r.Repeated, r.Next = true, true, c
			default:
				n := 0
				fmt.Sscan(c.NextLink, &n)
				for i := n; i < min(n+40, 130); i++ {
					r.Pages = append(r.Pages, page(i))
				}
				r.Next = c
				r.Next.NextLink = fmt.Sprint(n + 40)
				r.Done = n+40 >= 130
			}
			return r, nil
		})
	env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(activities.ExistingRowsResult{}, nil)
	in := sectionInput(0)
	in.DryRun = true
	env.ExecuteWorkflow(MigrateSectionName, in)
	var res SectionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Pages != 130 || !res.Relisted || res.ListCalls != 2+4 {
		t.Errorf("result %+v after cursors %+v", res, cursors)
	}
}

// TestBlockLimitStopsTheSectionAndTheNotebook: the Notion workspace is
// full after two pages: the section starts no more pages, and the notebook
// ends with an error that says what to do and what was migrated.
func TestBlockLimitStopsTheSectionAndTheNotebook(t *testing.T) {
	env, _ := newEnv(t)
	m := &pipelineMocks{n: 6, fail: func(page string, _ int) error {
		if page >= "p2" {
			return temporal.NewNonRetryableApplicationError("workspace block limit reached", failure.NotionBlockLimit, nil)
		}
		return nil
	}}
	m.register(env)
	in := sectionInput(6)
	in.PageParallelism = 1
	env.ExecuteWorkflow(MigrateSectionName, in)
	var res SectionResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Stopped != StopBlockLimit || res.Done != 2 || res.Failed != 1 || len(m.writes) != 3 {
		t.Errorf("result %+v, writes %v: want 2 done, stopped at the third", res, m.writes)
	}

	nenv, _ := newEnv(t)
	nenv.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	nenv.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{
		SectionDatabaseIDs: map[string]string{"s1": "db1", "s2": "db2", "s3": "db3"}}, nil)
	started := map[string]bool{}
	nenv.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
			started[in.Section.ID] = true
			if in.Section.ID == "s2" {
				return SectionResult{SectionID: "s2", Pages: 5, Done: 2, Written: 2, Failed: 1,
					Stopped: StopBlockLimit, StoppedType: failure.NotionBlockLimit}, nil
			}
			return SectionResult{SectionID: in.Section.ID, Pages: 3, Done: 3, Written: 3}, nil
		})
	nenv.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p", SectionParallelism: 1})
	err := nenv.GetWorkflowError()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.Config {
		t.Fatalf("notebook error %v, want %s", err, failure.Config)
	}
	for _, want := range []string{"block limit", "upgrade the Notion workspace", "5 pages written", "1 of 3 sections complete"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	var rep NotebookReport
	if err := app.Details(&rep); err != nil || rep.Written != 5 {
		t.Errorf("report in the error's details: %+v (%v)", rep, err)
	}
	if started["s3"] {
		t.Error("a section started after the block limit was reached")
	}
}

// TestPasswordProtectedSectionIsSkipped: one section cannot be read
// (403, code 20185): it is skipped with the reason named, the others
// migrate, and the notebook waits. Once unlocked, a retry-section runs it
// and the notebook completes; a second notebook completes on finish with
// the section still skipped.
func TestPasswordProtectedSectionIsSkipped(t *testing.T) {
	for _, unlock := range []bool{true, false} {
		t.Run(fmt.Sprintf("unlock %v", unlock), func(t *testing.T) {
			env, _ := newEnv(t)
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
			env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{
				SectionDatabaseIDs: map[string]string{"s1": "db1", "s2": "db2", "s3": "db3"}}, nil)
			env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(activities.ExistingRowsResult{}, nil)
			// The mocked activity runs on the test environment's
			// goroutines, the callbacks below on the test's own.
			var mu sync.Mutex
			locked, listings := true, map[string]int{}
			env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
					mu.Lock()
					defer mu.Unlock()
					listings[in.Cursor.SectionID]++
					if in.Cursor.SectionID == "s2" && locked {
						return activities.ListPagesResult{}, entity.OutcomeError(errors.New("onenote: list pages: protected: HTTP 403 code 20185: Encrypted sections are not accessible."),
							failure.GraphProtected, limiter.Outcome{Status: 403, Code: "20185"}, true)
					}
					return activities.ListPagesResult{Done: true}, nil
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
				s2 := p.Sections[1]
				if p.Skipped != 1 || p.Failed != 0 || p.Done != 2 || p.Phase != PhaseWaiting || s2.Status != SectionSkipped ||
					!strings.Contains(s2.Error, "password-protected") || !strings.Contains(s2.Error, "20185") ||
					!strings.Contains(s2.Error, "unlock it in OneNote, then retry the section") {
					t.Errorf("progress while skipped: %+v", p)
				}
				if unlock {
					mu.Lock()
					locked = false
					mu.Unlock()
					mustUpdate(t, env, UpdateRetrySection, "s2")
				} else {
					mustUpdate(t, env, UpdateFinish)
				}
			}, time.Hour)
			env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p"})
			var rep NotebookReport
			if err := env.GetWorkflowResult(&rep); err != nil {
				t.Fatal(err)
			}
			if unlock {
				mu.Lock()
				defer mu.Unlock()
				if rep.SkippedSections != 0 || rep.FailedSections != 0 || rep.Sections[1].Status != SectionDone || rep.Sections[1].Attempts != 2 || listings["s2"] != 2 {
					t.Errorf("after unlock and retry-section: %+v (listings %v)", rep, listings)
				}
				return
			}
			if rep.SkippedSections != 1 || rep.FailedSections != 0 || rep.Sections[1].Status != SectionSkipped ||
				!strings.Contains(rep.Message, "password-protected") || !strings.Contains(rep.Message, "2023") {
				t.Errorf("report %+v", rep)
			}
		})
	}
}

// TestSignInGoneMidMigrationStops: a section fails because the user's
// sign-in is gone: the notebook starts no other section and ends saying
// which command to run.
func TestSignInGoneMidMigrationStops(t *testing.T) {
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil)
	started := 0
	env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
		func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
			started++
			return SectionResult{}, fmt.Errorf("listing the pages of section: %w", temporal.NewNonRetryableApplicationError(
				`Microsoft sign-in for user "alice" has expired or was revoked: run "starter login --user alice" to sign in again`,
				failure.NotSignedIn, nil))
		})
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p", SectionParallelism: 1})
	err := env.GetWorkflowError()
	if err == nil || !strings.Contains(err.Error(), `starter login --user alice`) || started != 1 {
		t.Errorf("error %v after %d sections, want the login command after 1", err, started)
	}
	// The stop keeps why as its cause, typed, so the starter and the
	// Web UI can tell a lost sign-in from another stop.
	stop := failure.Find(err, failure.Config)
	if stop == nil || failure.Find(stop.Unwrap(), failure.NotSignedIn) == nil {
		t.Errorf("error %v: want a %s whose cause is the %s", err, failure.Config, failure.NotSignedIn)
	}
	var rep NotebookReport
	if stop == nil || !stop.HasDetails() || stop.Details(&rep) != nil || len(rep.Sections) != 3 {
		t.Errorf("the stop's details hold no report of the 3 sections: %+v", rep)
	}
}

// TestEveryStopKeepsItsCause: whatever stops a migration (a lost sign-in,
// Notion's block limit, a page the integration cannot write to), the
// error it ends with is a Config error saying what to do whose cause
// carries the type that stopped it.
func TestEveryStopKeepsItsCause(t *testing.T) {
	for _, tc := range []struct {
		typ, msg, want string
	}{
		{failure.NotSignedIn, `no Microsoft sign-in stored for user "alice"`, `starter login --user alice`},
		{failure.NotionBlockLimit, "workspace block limit reached", "upgrade the Notion workspace"},
		{failure.NotionNotShared, "database not found", "Connections"},
		{failure.GraphLibraryLimit, "library over 5,000 items", "Move files out"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			env, _ := newEnv(t)
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
			env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{}, nil)
			env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(
				func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
					// A section stopped by its page: the result names
					// the stop.
					return SectionResult{SectionID: in.Section.ID, Pages: 2, Done: 1, Failed: 1, Stopped: tc.msg, StoppedType: tc.typ}, nil
				})
			env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p", SectionParallelism: 1})
			// As a client sees it, once it crossed the server.
			conv := temporal.GetDefaultFailureConverter()
			err := conv.FailureToError(conv.ErrorToFailure(env.GetWorkflowError()))
			stop := failure.Find(err, failure.Config)
			if stop == nil || !strings.Contains(stop.Message(), tc.want) {
				t.Fatalf("error %v: want a %s saying %q", err, failure.Config, tc.want)
			}
			if cause := failure.Find(stop.Unwrap(), tc.typ); cause == nil || !strings.Contains(cause.Message(), tc.msg) {
				t.Errorf("error %v: its cause is not the %s %q", err, tc.typ, tc.msg)
			}
		})
	}
}

// TestNotebookContinuesAsNewKeepingOutcomes: with SectionsPerRun 2 the
// notebook hands over after two sections, carrying their outcomes and the
// queue; the next run finishes the rest and reports all.
func TestNotebookContinuesAsNewKeepingOutcomes(t *testing.T) {
	section := func(ctx workflow.Context, in SectionInput) (SectionResult, error) {
		if in.Section.ID == "s1" {
			return SectionResult{SectionID: "s1", Pages: 2, Done: 1, Failed: 1, FailedPages: []PageFailure{{ID: "x", Error: "boom"}}}, nil
		}
		return SectionResult{SectionID: in.Section.ID, Pages: 2, Done: 2, Written: 2}, nil
	}
	env, _ := newEnv(t)
	env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{Match: tree()}, nil)
	env.OnActivity(activities.EnsureLayoutName, mock.Anything, mock.Anything).Return(notion.Layout{
		SectionDatabaseIDs: map[string]string{"s1": "db1", "s2": "db2", "s3": "db3"}}, nil)
	env.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(section)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "alice", Notebook: "Work notes", NotionParent: "p",
		SectionParallelism: 1, SectionsPerRun: 2})
	var can *workflow.ContinueAsNewError
	if err := env.GetWorkflowError(); !errors.As(err, &can) {
		t.Fatalf("want a continue-as-new after 2 sections, got %v", err)
	}
	var next MigrateInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	st := next.State
	if st == nil || len(st.Sections) != 3 || st.Sections[0].Status != SectionFailed || st.Sections[1].Status != SectionDone ||
		!slices.Equal(st.Queue, []int{2}) || st.Databases["s3"] != "db3" || st.Runs != 1 {
		t.Fatalf("carried state %+v", st)
	}

	env2, calls := newEnv(t)
	env2.OnWorkflow(MigrateSectionName, mock.Anything, mock.Anything).Return(section)
	env2.RegisterDelayedCallback(func() { mustUpdate(t, env2, UpdateFinish) }, time.Hour)
	env2.ExecuteWorkflow(MigrateNotebookName, next)
	var rep NotebookReport
	if err := env2.GetWorkflowResult(&rep); err != nil {
		t.Fatal(err)
	}
	if *calls != 0 {
		t.Errorf("the continued run made %d Graph calls, want 0 (the tree is carried)", *calls)
	}
	if rep.Pages != 6 || rep.Written != 4 || rep.FailedPages != 1 || rep.FailedSections != 1 || rep.NotebookName != "Work notes" {
		t.Errorf("report after continue-as-new: %+v", rep)
	}
}

// TestMalformedInputNamesTheField starts the notebook with JSON an
// operator got wrong: it fails at once, non-retryably, naming the field.
func TestMalformedInputNamesTheField(t *testing.T) {
	for _, tc := range []struct{ input, want string }{
		{`{"user":"alice","notebook":5,"notionParent":"p"}`, `field "notebook": is a JSON number; it must be a string`},
		{`{"user":"alice","notebook":"n","notionParent":"p","dry_run":true}`, `has a field "dry_run", which the input does not have (did you mean "dryRun"?)`},
		{`{"user":"alice","notebook":"n","notionParent":"p","include":"A"}`, `field "include": is a JSON string; it must be a list`},
		{`["alice"]`, `it must be an object`},
		// Every problem at once: two misspelt fields, a missing one and
		// one out of range.
		{`{"user":"alice","notebok":"n","page_parallelism":3,"sectionParallelism":-1}`,
			"invalid input: 4 problems:\n" +
				`- field "input": has fields "notebok" (did you mean "notebook"?), "page_parallelism" (did you mean "pageParallelism"?), which the input does not have; ` +
				"the fields are " + migrateInputFields + "\n" +
				`- field "notebook": is required: the notebook's ID or display name` + "\n" +
				`- field "notionParent": is required: the ID of a Notion page shared with the integration` + "\n" +
				`- field "sectionParallelism": -1 is out of range`},
	} {
		env, _ := newEnv(t)
		env.ExecuteWorkflow(MigrateNotebookName, json.RawMessage(tc.input))
		err := env.GetWorkflowError()
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Type() != failure.InvalidInput || !app.NonRetryable() || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want a non-retryable %s saying %s", tc.input, err, failure.InvalidInput, tc.want)
		}
	}
}

// TestNoStoredSignInEndsEarly runs the notebook with the real activities
// over a real token store on an empty directory: it ends at once, before
// any Graph request, saying which command signs the user in.
func TestNoStoredSignInEndsEarly(t *testing.T) {
	key, err := auth.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	store, err := auth.Open(auth.Config{Dir: filepath.Join(t.TempDir(), "tokens"), Key: key,
		Microsoft: auth.Microsoft{ClientID: "app", Authority: "http://127.0.0.1:1"}})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{GraphBaseURL: "http://127.0.0.1:1/v1.0", Tokens: storeTokens{store},
		StagingDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(unitWorkerOptions())
	calls := new(int)
	w := &Workflows{App: "test", NewCaller: func(workflow.Context, limiter.Spec) Caller { return directCaller{calls} }}
	w.Register(env)
	acts.Register(env)
	env.ExecuteWorkflow(MigrateNotebookName, MigrateInput{User: "dana", Notebook: "Work notes", NotionParent: "p"})
	err = env.GetWorkflowError()
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.Type() != failure.Config || *calls != 1 {
		t.Fatalf("error %v after %d Graph calls, want %s after 1", err, *calls, failure.Config)
	}
	if !strings.Contains(err.Error(), `run "starter login --user dana"`) || !strings.Contains(err.Error(), "start the migration again") {
		t.Errorf("error %q does not say to run starter login --user dana", err)
	}
}

// storeTokens hands out the auth store's token sources as they are.
type storeTokens struct{ s *auth.Store }

func (s storeTokens) TokenSource(user string) (onenote.TokenSource, error) {
	return s.s.TokenSource(user), nil
}
