package workflows

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// fakeSection mocks a section's activities: pages p0..p(n-1), p2 a
// subpage of p1, each page with resources r1..r3.
type fakeSection struct {
	mu       sync.Mutex
	n        int
	existing map[string]string
	writes   []activities.WritePageInput
	fetches  [][]string // resource IDs asked for, per FetchResources call
	throttle bool       // the first resource fetch stops after one
	// lockedFrom, when set, is the page from which the section is
	// password-protected (locked after its listing): its resources (or,
	// with lockContent, its content) answer 403/20185.
	lockedFrom  string
	lockContent bool
	cleaned     int
}

func (f *fakeSection) pages() []activities.PageMeta {
	var out []activities.PageMeta
	for i := range f.n {
		p := activities.PageMeta{ID: fmt.Sprintf("p%d", i), Title: fmt.Sprintf("Page %d", i), Order: i,
			LastModified: "2024-01-01T00:00:00.000Z", LinkID: fmt.Sprintf("G%d", i)}
		if i == 2 {
			p.Level = 1
		}
		out = append(out, p)
	}
	return out
}

func TestSectionPipelineLedgerAndContinueAsNew(t *testing.T) {
	f := &fakeSection{n: 5, existing: map[string]string{"p0": "n-p0"}, throttle: true}
	env, _ := newEnv(t)
	f.mock(env)
	in := SectionInput{User: "alice", NotebookID: "nb", Section: SectionRef{ID: "s", Name: "S", Path: "NB / S"},
		DatabaseID: "db", PageParallelism: 2, PagesPerRun: 2}
	env.ExecuteWorkflow(MigrateSectionName, in)
	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("after 2 pages the section should continue as new, got %v", err)
	}
	// The first run listed, skipped p0 (already in Notion) and wrote p1, p2.
	if len(f.writes) != 2 || f.writes[0].Page.ID != "p1" || f.writes[1].Page.ID != "p2" {
		t.Fatalf("first run wrote %v", f.writes)
	}
	var first SectionInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &first); err != nil {
		t.Fatal(err)
	}
	// The throttled permit covered 3 requests, of which 2 were sent.
	if first.State.Unsent != 1 {
		t.Errorf("unsent permit units %d, want 1", first.State.Unsent)
	}
	if f.writes[1].ParentNotionID != "n-p1" {
		t.Errorf("subpage p2 written under %q, want n-p1", f.writes[1].ParentNotionID)
	}
	if f.cleaned != 2 {
		t.Errorf("cleaned %d staging dirs, want 2", f.cleaned)
	}
	// The throttled fetch asked for r1..r3, its retry only for r2, r3.
	if len(f.fetches) < 2 || !slices.Equal(f.fetches[0], []string{"r1", "r2", "r3"}) || !slices.Equal(f.fetches[1], []string{"r2", "r3"}) {
		t.Errorf("resource fetches %v", f.fetches)
	}

	// The second run carries the ledger: no listing, p3 and p4 only.
	var next SectionInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.State == nil || !next.State.ListDone || next.State.Tally.Done != 3 || len(next.State.Batch) != 2 {
		t.Fatalf("carried state: %+v", next.State)
	}
	f.writes = nil
	env2, calls := newEnv(t)
	f.mock(env2)
	env2.ExecuteWorkflow(MigrateSectionName, next)
	var res SectionResult
	if err := env2.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, w := range f.writes {
		ids = append(ids, w.Page.ID)
	}
	slices.Sort(ids)
	if !slices.Equal(ids, []string{"p3", "p4"}) {
		t.Errorf("second run wrote %v, want p3 and p4", ids)
	}
	if res.Pages != 5 || res.Done != 5 || res.Written != 4 || res.Skipped != 1 || res.Linked != 4 {
		t.Errorf("result: %+v", res)
	}
	// Second run: one content and one resource permit per page.
	if *calls != 4 {
		t.Errorf("second run made %d Graph calls, want 4 (no listing)", *calls)
	}
}

func (f *fakeSection) mock(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
			return activities.ListPagesResult{Pages: f.pages(), Done: true}, nil
		})
	env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ExistingRowsInput) (activities.ExistingRowsResult, error) {
			if len(in.Pages) != f.n {
				return activities.ExistingRowsResult{}, errors.New("not every page asked for")
			}
			return activities.ExistingRowsResult{Done: f.existing}, nil
		})
	env.OnActivity(activities.FetchContentName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FetchContentInput) (activities.ContentMeta, error) {
			if f.lockContent && f.locked(in.Key) {
				return activities.ContentMeta{}, entity.OutcomeError(errors.New("onenote: get page content: protected: HTTP 403 code 20185"),
					failure.GraphProtected, limiter.Outcome{Status: 403, Code: "20185"}, true)
			}
			return activities.ContentMeta{Resources: []activities.ResourceRef{{ID: "r1"}, {ID: "r2"}, {ID: "r3"}}, Links: 1}, nil
		})
	env.OnActivity(activities.FetchResourcesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.FetchResourcesInput) (activities.FetchResourcesResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			var ids []string
			for _, r := range in.Resources {
				ids = append(ids, r.ID)
			}
			f.fetches = append(f.fetches, ids)
			if f.locked(in.Key) {
				return activities.FetchResourcesResult{Requests: 1, Fatal: true, ErrorType: failure.GraphProtected,
					Error: "onenote: get resource: protected: HTTP 403 code 20185: Encrypted sections are not accessible."}, nil
			}
			if f.throttle {
				f.throttle = false
				return activities.FetchResourcesResult{Fetched: ids[:1], Requests: 2, Error: "throttled", ErrorType: failure.GraphThrottled}, nil
			}
			return activities.FetchResourcesResult{Fetched: ids, Requests: len(ids)}, nil
		})
	env.OnActivity(activities.WritePageName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WritePageInput) (activities.WritePageResult, error) {
			f.mu.Lock()
			defer f.mu.Unlock()
			f.writes = append(f.writes, in)
			return activities.WritePageResult{NotionPageID: "n-" + in.Page.ID, Links: 1}, nil
		})
	env.OnActivity(activities.CleanPageName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, _ activities.StageKey) error {
			f.mu.Lock()
			f.cleaned++
			f.mu.Unlock()
			return nil
		})
}

// locked reports whether the page of a stage key ("<run>/<page>") is in
// the locked part of the section.
func (f *fakeSection) locked(key activities.StageKey) bool {
	k := string(key)
	return f.lockedFrom != "" && k[strings.LastIndex(k, "/")+1:] >= f.lockedFrom
}

// TestSectionLockedMidRunIsSkipped: a section locked after its listing
// (its content or resources answer 403/20185) stops starting pages and
// ends skipped with the reason, so the notebook reports it and can retry
// it once unlocked.
func TestSectionLockedMidRunIsSkipped(t *testing.T) {
	for _, content := range []bool{true, false} {
		t.Run(fmt.Sprintf("content %v", content), func(t *testing.T) {
			f := &fakeSection{n: 5, existing: map[string]string{}, lockedFrom: "p3", lockContent: content}
			env, _ := newEnv(t)
			f.mock(env)
			in := SectionInput{User: "alice", NotebookID: "nb", Section: SectionRef{ID: "s", Name: "S", Path: "NB / S"},
				DatabaseID: "db", PageParallelism: 1, PagesPerRun: 100}
			env.ExecuteWorkflow(MigrateSectionName, in)
			err := env.GetWorkflowError()
			app := failure.Find(err, failure.SectionProtected)
			if app == nil || !strings.Contains(app.Message(), "password-protected") || !strings.Contains(app.Message(), "20185") ||
				!strings.Contains(app.Message(), "unlock it in OneNote, then retry the section") {
				t.Fatalf("error %v, want a %s naming the reason", err, failure.SectionProtected)
			}
			var written []string
			for _, w := range f.writes {
				written = append(written, w.Page.ID)
			}
			if !slices.Equal(written, []string{"p0", "p1", "p2"}) {
				t.Errorf("wrote %v, want the pages before the lock (p0..p2) and none after", written)
			}
		})
	}
}
