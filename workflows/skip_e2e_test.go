package workflows_test

import (
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// TestSkipOptionsSaveRequests migrates three notebooks of the same shape,
// one with each content option, on the Graph emulator, and counts what the
// emulator received: with skipImages the images are never requested, with
// skipAttachments the attachments are not, and skipInk costs the same
// requests as a full migration (ink comes with each page's content) while
// no drawing reaches Notion. Each run's requests are exactly the tree, the
// listings, one content request per page and the resources not skipped,
// counted from the emulator's own record of each page's resources (not
// from the converter). What was skipped is in the report as skipped by
// option, not lost.
func TestSkipOptionsSaveRequests(t *testing.T) {
	spec := graph.GenSpec{Seed: 31, Owner: e2eUser, Notebooks: 3, SectionsPerContainer: 2, PagesPerSection: 6,
		ImagesPerPage: 2, AttachmentsPerPage: 1, PrintoutEvery: 3, InkEvery: 2, ImageBytes: 512, AttachmentBytes: 1024}
	h := newHarnessWith(t, harnessOptions{spec: spec})
	tests := []struct {
		option string
		set    func(*workflows.MigrateInput)
		// skipped says whether a resource of that content type is not
		// fetched; uploadType is the upload type that must not reach
		// Notion.
		skipped    func(contentType string) bool
		uploadType string
	}{
		{"skipImages", func(in *workflows.MigrateInput) { in.SkipImages = true },
			func(ct string) bool { return strings.HasPrefix(ct, "image/") }, "image/png"},
		{"skipAttachments", func(in *workflows.MigrateInput) { in.SkipAttachments = true },
			func(ct string) bool { return !strings.HasPrefix(ct, "image/") }, "application/pdf"},
		{"skipInk", func(in *workflows.MigrateInput) { in.SkipInk = true },
			func(string) bool { return false }, "image/svg+xml"},
	}
	for i, tc := range tests {
		nb := h.notebooks[i]
		t.Run(tc.option, func(t *testing.T) {
			want, skipped, pages := treeCalls(nb), 0, 0
			for _, s := range emuSections(nb) {
				want++ // one listing: fewer than 100 pages
				pages += len(s.Pages)
				for _, p := range s.Pages {
					want++ // content, with its ink
					for _, r := range h.graph.PageResources(p.ID) {
						if tc.skipped(r.ContentType) {
							skipped++
						} else {
							want++
						}
					}
				}
			}
			in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile}
			tc.set(&in)
			uploadsBefore := len(h.notion.Export().Uploads)
			before := h.graph.Stats().Users[e2eUser].Requests
			rep := wait(t, h.start(t, in), 3*time.Minute)
			got := h.graph.Stats().Users[e2eUser].Requests - before
			if rep.FailedPages != 0 || rep.Pages != pages {
				t.Fatalf("migration: %d pages, %d failed; want %d, none", rep.Pages, rep.FailedPages, pages)
			}
			if got != int64(want) {
				t.Errorf("%s: the Graph emulator received %d requests, want %d (tree, listings, contents and the resources not skipped; %d skipped)",
					tc.option, got, want, skipped)
			}
			t.Logf("%s: %d Graph requests, %d resources not requested", tc.option, got, skipped)
			for _, u := range h.notion.Export().Uploads[uploadsBefore:] {
				if u.ContentType == tc.uploadType {
					t.Errorf("%s: %s uploaded to Notion (%s)", tc.option, u.ContentType, u.Filename)
				}
			}
			// The report counts the skipped items apart from losses: one
			// per image or attachment not fetched; for ink, one per ink
			// node (every second page has ink).
			var gotSkipped int
			for _, k := range rep.LossKinds {
				if k.Severity == report.Skipped {
					gotSkipped += k.Count
					if k.Kind != "skipped-by-option" {
						t.Errorf("skipped entry of kind %q", k.Kind)
					}
				}
			}
			if (tc.option == "skipInk" && gotSkipped < pages/2) || (tc.option != "skipInk" && (skipped == 0 || gotSkipped != skipped)) {
				t.Errorf("%s: the report counts %d skipped (kinds %v); want %d", tc.option, gotSkipped, rep.LossKinds, skipped)
			}
		})
	}
	h.checkPermits(t)
}
