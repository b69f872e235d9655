package workflows

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"

	"github.com/notebridge/notebridge/activities"
)

// TestScanSavings: on a fixture notebook of two sections of 300 pages, the
// scan's estimate says what each content option saves, from the page
// count and the per-page assumptions (the scan reads no page content):
// the images' or attachments' downloads, and the hours the user's 400
// requests an hour would have spent on them; skipping ink saves no
// request. The figures are worked out by hand below.
func TestScanSavings(t *testing.T) {
	tests := []struct {
		name  string
		in    ScanInput
		total int
		// images and attachments saved, and the time each saves.
		images, attachments  int
		imagesETA, attachETA time.Duration
	}{
		// 1 tree call + 2 listings + 600 contents + 600 resources (one a
		// page, 0.8 images, 0.2 attachments): 1,203 requests, 2.0075 h.
		// Without the 480 images, 723: 0.8075 h, 1.2 h less; without the
		// 120 attachments, 1,083: 1.7075 h, 0.3 h less.
		{"default assumptions", ScanInput{User: "alice"}, 1203, 480, 120, 72 * time.Minute, 18 * time.Minute},
		// 2 images and 0.5 attachments a page: 1 + 2 + 600 + 1,200 + 300 =
		// 2,103 requests, 4.2575 h; without images 903 (1.2575 h, 3 h
		// less); without attachments 1,803 (3.5075 h, 45 min less).
		{"given per page", ScanInput{User: "alice", ImagesPerPage: 2, AttachmentsPerPage: 0.5}, 2103, 1200, 300, 3 * time.Hour, 45 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, _ := newEnv(t)
			env.OnActivity(activities.ListNotebooksName, mock.Anything, mock.Anything).Return(activities.ListNotebooksResult{
				Notebooks: []activities.NotebookInfo{{ID: "nb", Name: "Fixture", Tree: &activities.NotebookTree{ID: "nb", Name: "Fixture",
					Sections: []activities.TreeNode{{ID: "s1", Name: "A"}, {ID: "s2", Name: "B"}}}}}}, nil)
			pages := make([]activities.PageMeta, 300)
			for i := range pages {
				pages[i] = activities.PageMeta{ID: fmt.Sprintf("p%d", i)}
			}
			env.OnActivity(activities.ListPagesName, mock.Anything, mock.Anything).Return(activities.ListPagesResult{Pages: pages, Done: true}, nil)
			env.ExecuteWorkflow(ScanNotebooksName, tc.in)
			var res ScanResult
			if err := env.GetWorkflowResult(&res); err != nil {
				t.Fatal(err)
			}
			if len(res.Notebooks) != 1 {
				t.Fatalf("scan %+v", res)
			}
			nb := res.Notebooks[0]
			if nb.Pages != 600 || nb.Requests != tc.total {
				t.Errorf("estimate %d requests for %d pages, want %d for 600", nb.Requests, nb.Pages, tc.total)
			}
			want := map[string]struct {
				requests int
				eta      time.Duration
			}{"skipImages": {tc.images, tc.imagesETA}, "skipAttachments": {tc.attachments, tc.attachETA}, "skipInk": {0, 0}}
			if len(nb.Savings) != len(want) {
				t.Fatalf("savings %+v, want one per option", nb.Savings)
			}
			for _, s := range nb.Savings {
				w, ok := want[s.Option]
				if !ok || s.Requests != w.requests || s.ETA.D().Round(time.Second) != w.eta || s.Text == "" {
					t.Errorf("%s saves %d requests, %s (%q); want %d, %s", s.Option, s.Requests, s.ETA.D(), s.Text, w.requests, w.eta)
				}
			}
		})
	}
}
