package workflows

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
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

// BenchmarkSectionContinueAsNewPayload drives the real MigrateSection
// (activities mocked) over a large section, run after run, and reports the
// largest continue-as-new input it carried. Temporal refuses a payload
// over 2 MiB and warns over 512 KiB:
//
//	go test ./workflows/ -run '^$' -bench SectionContinueAsNewPayload -benchtime 1x
func BenchmarkSectionContinueAsNewPayload(b *testing.B) {
	const n = 10000
	pages := graphLikePages(n)
	for range b.N {
		in := SectionInput{User: "alice", NotebookID: "nb", Section: SectionRef{ID: "s", Name: "S", Path: "NB / S"},
			DatabaseID: "db", PageParallelism: 4}
		largest, runs := 0, 0
		for {
			env, _ := newEnv(b)
			env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.ListPagesInput) (activities.ListPagesResult, error) {
					end := min(n, in.Cursor.Skip+100)
					return activities.ListPagesResult{Pages: pages[in.Cursor.Skip:end], Done: end == n,
						Next: onenote.PageCursor{SectionID: in.Cursor.SectionID, Skip: end}}, nil
				})
			env.OnActivity(activities.ExistingRowsName, mock.Anything, mock.Anything).Return(activities.ExistingRowsResult{}, nil)
			env.OnActivity(activities.FetchContentName, mock.Anything, mock.Anything).Return(activities.ContentMeta{}, nil)
			env.OnActivity(activities.WritePageName, mock.Anything, mock.Anything).Return(
				func(_ context.Context, in activities.WritePageInput) (activities.WritePageResult, error) {
					return activities.WritePageResult{NotionPageID: "1a2b3c4d-5e6f-4a5b-9c8d-" + in.Page.ID[2:14], Links: 1}, nil
				})
			env.OnActivity(activities.CleanPageName, mock.Anything, mock.Anything).Return(nil)
			env.ExecuteWorkflow(MigrateSectionName, in)
			runs++
			var can *workflow.ContinueAsNewError
			if err := env.GetWorkflowError(); !errors.As(err, &can) {
				if err != nil {
					b.Fatal(err)
				}
				break
			}
			size := 0
			for _, p := range can.Input.GetPayloads() {
				size += p.Size()
			}
			largest = max(largest, size)
			in = SectionInput{}
			if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(largest), "max-CAN-bytes")
		b.ReportMetric(float64(largest)/n, "CAN-bytes/page")
		b.Logf("%d pages, %d runs: largest continue-as-new input %d bytes (%.0f KiB)", n, runs, largest, float64(largest)/1024)
	}
}
