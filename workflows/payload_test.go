package workflows

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/onenote"
)

// graphLikePages is a listing of n pages whose IDs, links and dates are
// as long as real Graph's, so the payload measured is the real one.
func graphLikePages(n int) []activities.PageMeta {
	out := make([]activities.PageMeta, n)
	for i := range out {
		id := fmt.Sprintf("0-%032x!%d-B3B6B2850E51608A!%d", i*7919, i%97, 1000+i)
		out[i] = activities.PageMeta{ID: id, Title: fmt.Sprintf("Meeting notes %d, project review", i), Order: i,
			Created: "2024-01-01T09:00:00Z", LastModified: "2024-06-01T10:11:12.000Z",
			LinkID: fmt.Sprintf("{%08x-1a2b-4c3d-9e8f-%012x}", i, i),
			WebURL: "https://onedrive.live.com/redir.aspx?cid=b3b6b2850e51608a&page=edit&resid=B3B6B2850E51608A!" + fmt.Sprint(1000+i) + "&parId=B3B6B2850E51608A!101&wd=target%28Section.one%7C" + id + "%29"}
	}
	return out
}

// maxCANPayload is the continue-as-new input a section may carry at most:
// Temporal warns over 512 KiB and refuses over 2 MiB.
const maxCANPayload = 512 << 10

// largeSection is a section of n Graph-like pages for the payload test:
// every tenth page has three subpages, every 100th (from the 6th) is in
// Notion already, every 50th (from the 8th) fails to write, and each
// listing batch after the first repeats the last page of the one before
// (Graph's paging is not stable).
type largeSection struct {
	n        int
	pages    []activities.PageMeta
	mu       sync.Mutex
	writes   map[string]int
	parents  map[string]string
	existing map[string]bool
}

func newLargeSection(n int) *largeSection {
	f := &largeSection{n: n, pages: graphLikePages(n), writes: map[string]int{}, parents: map[string]string{}, existing: map[string]bool{}}
	for i := range f.pages {
		if i%10 >= 1 && i%10 <= 3 {
			f.pages[i].Level = 1
		}
		if i%100 == 5 {
			f.existing[f.pages[i].ID] = true
		}
	}
	return f
}

func (f *largeSection) notionID(pageID string) string {
	return "notion-" + pageID[2:14] + pageID[len(pageID)-5:]
}

func (f *largeSection) failing(i int) bool { return i%50 == 7 }

func (f *largeSection) mock(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
			from := max(0, in.Cursor.Skip-1) // repeats the last page of the batch before
			end := min(f.n, in.Cursor.Skip+100)
			return activities.ListPagesResult{Pages: f.pages[from:end], Done: end == f.n,
				Next: onenote.PageCursor{SectionID: in.Cursor.SectionID, Skip: end}}, nil
		})
	env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.ExistingRowsInput) (activities.ExistingRowsResult, error) {
			out := activities.ExistingRowsResult{Done: map[string]string{}}
			for id := range in.Pages {
				if f.existing[id] {
					out.Done[id] = f.notionID(id)
				}
			}
			return out, nil
		})
	env.OnActivity(activities.FetchContentName, mock.Anything, mock.Anything).Return(activities.ContentMeta{}, nil)
	env.OnActivity(activities.WritePageName, mock.Anything, mock.Anything).Return(
		func(_ context.Context, in activities.WritePageInput) (activities.WritePageResult, error) {
			if f.failing(in.Page.Order) {
				return activities.WritePageResult{}, temporal.NewNonRetryableApplicationError(
					strings.Repeat("Notion refused the page. ", 200), failure.NotionInvalid, nil)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			f.writes[in.Page.ID]++
			f.parents[in.Page.ID] = in.ParentNotionID
			return activities.WritePageResult{NotionPageID: f.notionID(in.Page.ID), Links: 1,
				Losses: 2, LossSamples: []string{"ink: a drawing", "audio: a recording"}}, nil
		})
	env.OnActivity(activities.CleanPageName, mock.Anything, mock.Anything).Return(nil)
}

// migrate runs the section, run after run, and returns its result, the
// number of runs and the largest continue-as-new input.
func (f *largeSection) migrate(tb testing.TB) (res SectionResult, runs, largest int) {
	in := SectionInput{User: "alice", NotebookID: "nb", Section: SectionRef{ID: "s", Name: "S", Path: "NB / S"},
		DatabaseID: "db", PageParallelism: 4}
	for {
		env, _ := newEnv(tb)
		f.mock(env)
		env.ExecuteWorkflow(MigrateSectionName, in)
		runs++
		var can *workflow.ContinueAsNewError
		if err := env.GetWorkflowError(); !errors.As(err, &can) {
			if err != nil {
				tb.Fatalf("run %d: %v", runs, err)
			}
			if err := env.GetWorkflowResult(&res); err != nil {
				tb.Fatal(err)
			}
			return res, runs, largest
		}
		size := 0
		for _, p := range can.Input.GetPayloads() {
			size += p.Size()
		}
		if size >= maxCANPayload {
			tb.Errorf("run %d continued as new with %d bytes, want under %d", runs, size, maxCANPayload)
		}
		largest = max(largest, size)
		in = SectionInput{}
		if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestLargeSectionContinuesAsNewWithBoundedInput migrates a 10,000-page
// section (2,000 with -short) through continue-as-new: every input it carries stays under
// 512 KiB, and every page is written exactly once, subpages under their
// parent even when the parent was handled in an earlier run.
func TestLargeSectionContinuesAsNewWithBoundedInput(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 2000 // still ten runs; the full 10,000 take about 20 s
	}
	f := newLargeSection(n)
	res, runs, largest := f.migrate(t)
	t.Logf("%d pages, %d runs: largest continue-as-new input %d bytes (%.1f KiB)", n, runs, largest, float64(largest)/1024)
	failed, existing := 0, 0
	parent := ""
	for i, p := range f.pages {
		if p.Level == 0 {
			parent = f.notionID(p.ID)
		}
		switch {
		case f.existing[p.ID]:
			existing++
			if f.writes[p.ID] != 0 {
				t.Errorf("page %d, already in Notion, written %d times", i, f.writes[p.ID])
			}
		case f.failing(i):
			failed++
		case f.writes[p.ID] != 1:
			t.Errorf("page %d written %d times, want once", i, f.writes[p.ID])
		case p.Level > 0 && f.parents[p.ID] != parent:
			t.Errorf("subpage %d written under %q, want %q", i, f.parents[p.ID], parent)
		}
	}
	written := n - failed - existing
	if res.Pages != n || res.Done != n-failed || res.Written != written || res.Skipped != existing || res.Failed != failed {
		t.Errorf("result %d pages, %d done, %d written, %d skipped, %d failed; want %d, %d, %d, %d, %d",
			res.Pages, res.Done, res.Written, res.Skipped, res.Failed, n, n-failed, written, existing, failed)
	}
	if len(res.FailedPages) != maxNamed || len(res.LossPages) != maxNamed || res.LossPageCount != written || res.Losses != 2*written {
		t.Errorf("named %d of %d failures and %d of %d pages with %d losses", len(res.FailedPages), res.Failed,
			len(res.LossPages), res.LossPageCount, res.Losses)
	}
	if runs < n/DefaultPagesPerRun {
		t.Errorf("%d runs, want at least %d", runs, n/DefaultPagesPerRun)
	}
}

// BenchmarkSectionContinueAsNewPayload drives the real MigrateSection
// (activities mocked) over a 10,000-page section, run after run, and
// reports the largest continue-as-new input it carried:
//
//	go test ./workflows/ -run '^$' -bench SectionContinueAsNewPayload -benchtime 1x
func BenchmarkSectionContinueAsNewPayload(b *testing.B) {
	const n = 10000
	for range b.N {
		_, runs, largest := newLargeSection(n).migrate(b)
		b.ReportMetric(float64(largest), "max-CAN-bytes")
		b.ReportMetric(float64(largest)/n, "CAN-bytes/page")
		b.Logf("%d pages, %d runs: largest continue-as-new input %d bytes (%.1f KiB)", n, runs, largest, float64(largest)/1024)
	}
}
