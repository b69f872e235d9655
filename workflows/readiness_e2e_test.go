package workflows_test

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/readiness"
	"github.com/notebridge/notebridge/workflows"
)

// TestReadinessBeforeTheFirstWrite runs a notebook into an emulated Free
// workspace of three members whose 1,000 blocks are nearly spent, with an
// internal integration's token: the dry run says it will not fit, with the
// numbers, and the migration fails with NotionNotReady before any request
// that writes reaches Notion.
func TestReadinessBeforeTheFirstWrite(t *testing.T) {
	const used = 990
	spec := graph.GenSpec{Seed: 5, Owner: e2eUser, Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 4}
	h := newHarnessWith(t, harnessOptions{spec: spec,
		notion: &notionemu.Config{Seed: 1, Plan: notionemu.PlanFree, Members: 3, BlocksUsed: used,
			ConnectionBudget: 1 << 20, WorkspaceBudget: 1 << 20},
		facts: readiness.Facts{Plan: readiness.PlanFree, TokenType: readiness.TokenInternal, BlocksUsed: used}})
	nb := h.notebooks[0]

	t.Run("dry run", func(t *testing.T) {
		in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, DryRun: true, Limits: h.profile}
		rep := wait(t, h.start(t, in), 2*time.Minute)
		for _, want := range []string{"NOT ready", "3 members", "990 are used and 10 left", "8 pages", "personal access token"} {
			if !strings.Contains(rep.Readiness, want) {
				t.Errorf("the dry run's readiness does not say %q: %s", want, rep.Readiness)
			}
		}
	})
	t.Run("migration", func(t *testing.T) {
		blocks := h.notion.Stats().Blocks
		in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var rep workflows.NotebookReport
		err := h.start(t, in).Get(ctx, &rep)
		app, decision := failure.Of(err)
		if app == nil || app.Type() != failure.NotionNotReady || decision != failure.Fail {
			t.Fatalf("migration: %v, want %s", err, failure.NotionNotReady)
		}
		for _, want := range []string{"nothing was written", "10 left", "upgrade"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the failure does not say %q: %v", want, err)
			}
		}
		if got := h.notion.Stats().Blocks; got != blocks {
			t.Errorf("%d blocks were created before the refusal", got-blocks)
		}
		for _, r := range h.notion.Requests(h.notionTok) {
			if r.Method != http.MethodGet {
				t.Errorf("a write reached Notion: %s %s", r.Method, r.Path)
			}
		}
	})
}

// TestMeasureBlocksPerPage migrates the demo's notebook shape (make demo)
// into an unlimited workspace and prints the blocks created per page:
// readiness.BlocksPerPage's source. Set NOTEBRIDGE_MEASURE_BLOCKS=1.
func TestMeasureBlocksPerPage(t *testing.T) {
	if os.Getenv("NOTEBRIDGE_MEASURE_BLOCKS") != "1" {
		t.Skip("a measurement: set NOTEBRIDGE_MEASURE_BLOCKS=1")
	}
	spec := graph.GenSpec{Seed: 1, Owner: e2eUser, Notebooks: 1, GroupDepth: 1, GroupsPerLevel: 1, SectionsPerContainer: 2,
		PagesPerSection: 40, SubpageLevels: 2, ImagesPerPage: 1, AttachmentsPerPage: 1, LinksPerPage: 1, PrintoutEvery: 5, InkEvery: 4}
	h := newHarnessWith(t, harnessOptions{spec: spec})
	before := h.notion.Stats().Blocks
	in := workflows.MigrateInput{User: e2eUser, Notebook: h.notebooks[0].DisplayName, NotionParent: h.root, Limits: h.profile}
	rep := wait(t, h.start(t, in), 10*time.Minute)
	blocks := h.notion.Stats().Blocks - before
	t.Logf("demo notebook: %d sections, %d pages, %d blocks created: %.2f blocks a page with containers, report and links",
		len(rep.Sections), rep.Pages, blocks, float64(blocks)/float64(rep.Pages))
}
