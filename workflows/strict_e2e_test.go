package workflows_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/workflows"
)

// strictSpec is a notebook with section groups nested four deep (one
// group per level, one section in each container: five sections) whose
// last section is password-protected.
func strictSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 11, Owner: e2eUser, Notebooks: 1, GroupDepth: 4, GroupsPerLevel: 1,
		SectionsPerContainer: 1, PagesPerSection: 12, SubpageLevels: 1,
		ImagesPerPage: 1, AttachmentsPerPage: 1, InkEvery: 3, LinksPerPage: 1,
		ImageBytes: 1024, AttachmentBytes: 2048, LockedSections: 1}
}

// TestEndToEndStrictGraph migrates, on a real dev server, a notebook
// nested four section groups deep with one password-protected section from
// the Graph emulator behaving like real Graph in every measured way at
// once: HTTPS, the two-level $expand limit (deeper answers 400), an
// expand outage (every $expand on /notebooks answers 500/19999, so the
// tree is read without it), 429/10007 bursts (here whenever two requests
// are in the server at once), Dutch error messages,
// 403/20185 on the locked section, and application/octet-stream on every
// resource download. Every page lands; the locked section is reported
// skipped with its reason, and after it is unlocked a retry-section
// migrates it and the notebook completes. The limiter's permits equal the
// requests the emulator counted, tree calls included.
func TestEndToEndStrictGraph(t *testing.T) {
	spec := strictSpec()
	h := newHarnessWith(t, harnessOptions{spec: spec, tls: true})
	// One request in twenty takes 200 ms, as real Graph answers do, so
	// two requests are surely in the server at once some time: with
	// answers of a millisecond, whether any overlap was up to the
	// scheduler (a CI run once had none, and no burst).
	h.graph.SetFaults(graph.Faults{ExpandOutageRate: 1, BurstConcurrency: 1, MessageLocale: "nl",
		SlowRate: 0.05, SlowDelay: 200 * time.Millisecond})
	nb := h.notebooks[0]
	sections := emuSections(nb)
	if len(sections) != 5 {
		t.Fatalf("generated %d sections, want 5", len(sections))
	}
	locked := sections[len(sections)-1]
	if !locked.PasswordProtected {
		t.Fatalf("section %s is not locked", locked.DisplayName)
	}
	want := strictExpected(t, spec, sections)

	in := workflows.MigrateInput{User: e2eUser, Notebook: nb.DisplayName, NotionParent: h.root, Limits: h.profile,
		SectionParallelism: 5, PageParallelism: 5}
	run := h.start(t, in)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var p workflows.NotebookProgress
	for {
		v, err := h.c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), workflows.QueryProgress)
		if err == nil && v.Get(&p) == nil && p.Skipped == 1 && p.Done == 4 && p.Running == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the notebook never settled with one section skipped: %+v", p)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, s := range p.Sections {
		if (s.Status == workflows.SectionSkipped) != (s.ID == locked.ID) {
			t.Errorf("section %s is %s", s.Path, s.Status)
		}
		if s.ID == locked.ID {
			for _, part := range []string{"password-protected", "20185", "unlock it in OneNote, then retry the section", locked.ID} {
				if !strings.Contains(s.Error, part) {
					t.Errorf("the skipped section's reason %q does not say %q", s.Error, part)
				}
			}
		}
	}
	desc, err := h.c.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(); st != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Fatalf("notebook is %v with a skipped section, want running", st)
	}
	st := h.graph.Stats()
	if st.Users[e2eUser].ByStatus[400] != 0 {
		t.Errorf("Graph answered %d requests with 400 (a tree call it refuses?)", st.Users[e2eUser].ByStatus[400])
	}

	if err := h.graph.LockSection(locked.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := workflows.RetrySection(ctx, h.c, run.GetID(), locked.ID); err != nil {
		t.Fatal(err)
	}
	rep := wait(t, run, 5*time.Minute)
	t.Logf("strict run: %s", rep.Message)
	if len(rep.LossPages) > 0 {
		t.Logf("losses of page %s: %q", rep.LossPages[0].ID, rep.LossPages[0].Notes)
	}
	if rep.FailedSections != 0 || rep.SkippedSections != 0 || rep.FailedPages != 0 || rep.Written != len(want) || len(rep.Sections) != 5 {
		t.Fatalf("report: %d written of %d, %d failed pages, %d failed and %d skipped sections: %s",
			rep.Written, len(want), rep.FailedPages, rep.FailedSections, rep.SkippedSections, rep.Message)
	}
	for _, s := range rep.Sections {
		if wantRuns := map[bool]int{true: 2, false: 1}[s.ID == locked.ID]; s.Attempts != wantRuns {
			t.Errorf("section %s ran %d times, want %d", s.Path, s.Attempts, wantRuns)
		}
	}
	rows, dup := exportedRows(t, h.notion.Export(), nb.DisplayName)
	if len(dup) > 0 {
		t.Errorf("pages written more than once: %v", dup)
	}
	for id, sig := range want {
		got, ok := rows[id]
		switch {
		case !ok:
			t.Errorf("page %s is not in Notion", id)
		case got.Signature != sig:
			t.Errorf("page %s content differs:\n got %s\nwant %s", id, clipSig(got.Signature), clipSig(sig))
		}
	}
	if len(rows) != len(want) {
		t.Errorf("Notion holds %d pages, want %d", len(rows), len(want))
	}

	// Graph said application/octet-stream for every file; Notion got
	// the real types. Each page with ink has its two drawings, as SVG.
	types := map[string]int{}
	for _, u := range h.notion.Export().Uploads {
		if u.Attached {
			types[u.ContentType]++
		}
	}
	pages, images := len(want), 0 // image blocks: pictures and drawings
	for _, sig := range want {
		images += strings.Count(sig, "image:media")
	}
	if types["image/png"] != pages*spec.ImagesPerPage || types["application/pdf"] != pages*spec.AttachmentsPerPage ||
		types["image/svg+xml"] == 0 || types["image/png"]+types["image/svg+xml"] != images || len(types) != 3 {
		t.Errorf("attached uploads by type %v, want %d image/png, %d application/pdf and the other %d images, drawings, in image/svg+xml",
			types, pages, pages, images-pages)
	}

	// Every fact was met on the way: the expand outage (500/19999) and
	// a 10007 burst; nothing was answered 400.
	codes := map[string]int{}
	for _, e := range h.graph.Log() {
		codes[e.Code]++
	}
	st = h.graph.Stats()
	if codes["19999"] == 0 || codes["10007"] == 0 || codes["20185"] == 0 || st.Users[e2eUser].ByStatus[400] != 0 {
		t.Errorf("Graph answers by code %v, by status %v: want 19999 (the expand outage), 10007 (a burst) and 20185, and no 400",
			codes, st.Users[e2eUser].ByStatus)
	}
	t.Logf("Graph answers by code %v", codes)
	if st.Batches != 0 {
		t.Errorf("%d $batch requests sent", st.Batches)
	}
	// Every request sent had its own permit, the tree calls and every
	// retry included; units a throttle left unsent, and spares asked
	// ahead that no page took, went back to the limiter (the report
	// counts those of the sections that ended with a result).
	if told := h.limiterState(t).Stats.Unsent[e2eUser]; rep.UnsentUnits > told {
		t.Errorf("the report counts %d units never sent; the limiter was told of %d", rep.UnsentUnits, told)
	}
	h.checkPermits(t)
}

// strictExpected converts every page of sections, read from an unlimited
// reference emulator holding the same data (unlocked), into its content
// signature.
func strictExpected(t *testing.T, spec graph.GenSpec, sections []*graph.Section) map[string]string {
	t.Helper()
	spec.LockedSections = 0
	ref := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	ref.AddNotebooks(e2eUser, graph.Generate(spec)...)
	ts := httptest.NewServer(ref)
	defer ts.Close()
	return expectedFrom(t, ts.URL+"/v1.0", ref.IssueToken(e2eUser, []string{"Notes.Read"}, time.Hour), sections, nil)
}
