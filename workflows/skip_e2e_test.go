package workflows_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// TestSkipOptionsSaveRequests migrates four notebooks of the same shape,
// one with no option and one with each content option, on the Graph emulator, and counts what the
// emulator received: with skipImages the images are never requested, with
// skipAttachments the attachments are not, and skipInk costs the same
// requests as a full migration (ink comes with each page's content) while
// no drawing reaches Notion. Each run's requests are exactly the tree, the
// listings, one content request per page and the resources not skipped,
// counted from the emulator's own record of each page's resources (not
// from the converter). What was skipped is in the report as skipped by
// option, not lost.
//
// With NOTEBRIDGE_SKIP_DEMO=1 the notebooks are the demo's (make demo: 4
// sections of 40 pages, one image and one attachment a page, a printout
// every 5th page, ink every 4th) and the log prints the figures of
// bench/results/skip-options.md.
func TestSkipOptionsSaveRequests(t *testing.T) {
	spec := graph.GenSpec{Seed: 31, Owner: e2eUser, Notebooks: 4, SectionsPerContainer: 2, PagesPerSection: 6,
		ImagesPerPage: 2, AttachmentsPerPage: 1, PrintoutEvery: 3, InkEvery: 2, ImageBytes: 512, AttachmentBytes: 1024}
	if os.Getenv("NOTEBRIDGE_SKIP_DEMO") == "1" {
		spec = graph.GenSpec{Seed: 1, Owner: e2eUser, Notebooks: 4, GroupDepth: 1, GroupsPerLevel: 1, SectionsPerContainer: 2,
			PagesPerSection: 40, SubpageLevels: 2, ImagesPerPage: 1, AttachmentsPerPage: 1, LinksPerPage: 1, PrintoutEvery: 5, InkEvery: 4}
	}
	h := newHarnessWith(t, harnessOptions{spec: spec})
	var baseline int64
	// measured are the requests each option saved on its notebook, and
	// images and attachments the resources of the "none" notebook.
	measured := map[string]int{}
	var images, attachments, allPages int
	tests := []struct {
		option string
		set    func(*workflows.MigrateInput)
		// skipped says whether a resource of that content type is not
		// fetched; uploadType is the upload type that must not reach
		// Notion.
		skipped    func(contentType string) bool
		uploadType string
	}{
		{"none", func(*workflows.MigrateInput) {}, func(string) bool { return false }, ""},
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
			if tc.option == "none" {
				baseline = got
				allPages = pages
				for _, s := range emuSections(nb) {
					for _, p := range s.Pages {
						for _, r := range h.graph.PageResources(p.ID) {
							if strings.HasPrefix(r.ContentType, "image/") {
								images++
							} else {
								attachments++
							}
						}
					}
				}
			}
			measured[tc.option] = int(baseline - got)
			t.Logf("%-16s %d pages: %d Graph requests, %d fewer than with no option (%d resources not requested)",
				tc.option, pages, got, baseline-got, skipped)
			for _, u := range h.notion.Export().Uploads[uploadsBefore:] {
				if tc.uploadType != "" && u.ContentType == tc.uploadType {
					t.Errorf("%s: %s uploaded to Notion (%s)", tc.option, u.ContentType, u.Filename)
				}
			}
			// The report counts the skipped items apart from losses: one
			// per image or attachment not fetched; for ink, one per ink
			// node (counted exactly by the converter's fixtures).
			if tc.option == "none" {
				return
			}
			var gotSkipped int
			for _, k := range rep.LossKinds {
				if k.Severity == report.Skipped {
					gotSkipped += k.Count
					if want := map[string]string{"skipImages": "image-skipped", "skipAttachments": "attachment-skipped",
						"skipInk": "ink-skipped"}[tc.option]; k.Kind != want {
						t.Errorf("skipped entry of kind %q", k.Kind)
					}
				}
			}
			if (tc.option == "skipInk" && gotSkipped == 0) || (tc.option != "skipInk" && (skipped == 0 || gotSkipped != skipped)) {
				t.Errorf("%s: the report counts %d skipped (kinds %v); want %d", tc.option, gotSkipped, rep.LossKinds, skipped)
			}
		})
	}
	if t.Failed() {
		return
	}

	// The scan, told the notebooks' images and attachments per page,
	// predicts exactly the requests each option saved.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := workflows.ScanInput{User: e2eUser, Limits: "onenote",
		ImagesPerPage: float64(images) / float64(allPages), AttachmentsPerPage: float64(attachments) / float64(allPages)}
	run, err := h.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "scan/" + e2eUser, TaskQueue: e2eQueue},
		workflows.ScanNotebooksName, in)
	if err != nil {
		t.Fatal(err)
	}
	var scan workflows.ScanResult
	if err := run.Get(ctx, &scan); err != nil {
		t.Fatal(err)
	}
	for _, nb := range scan.Notebooks {
		if nb.Pages != allPages || len(nb.Savings) != 3 {
			t.Fatalf("scan of %s: %d pages, savings %+v", nb.Name, nb.Pages, nb.Savings)
		}
		for _, sv := range nb.Savings {
			if sv.Requests != measured[sv.Option] {
				t.Errorf("scan of %s: %s saves %d requests, the migration saved %d", nb.Name, sv.Option, sv.Requests, measured[sv.Option])
			}
		}
	}
	nb := scan.Notebooks[0]
	t.Logf("scan (%.3g images, %.3g attachments a page): %s", scan.ImagesPerPage, scan.AttachmentsPerPage, nb.ETAText)
	for _, sv := range nb.Savings {
		t.Logf("scan: %-16s %s", sv.Option, sv.Text)
	}
	h.checkPermits(t)
}
