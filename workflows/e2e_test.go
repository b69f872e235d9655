package workflows_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/workflows"
)

// TestEndToEnd migrates a generated notebook (nested section groups, 5
// of its 6 sections, 300 pages with subpages, images, attachments,
// printouts, tables and links) on a real dev server, then re-runs it,
// touches pages, breaks a section and retries it, and finally checks that
// no token reached any workflow history.
func TestEndToEnd(t *testing.T) {
	h := newHarness(t)
	nb := h.notebooks[0]
	sections := emuSections(nb)
	migrated := sections[:len(sections)-1]
	want := expectedPages(t, migrated)
	if len(want) != 300 {
		t.Fatalf("generated %d pages to migrate, want 300", len(want))
	}

	var first workflows.NotebookReport
	t.Run("first run migrates every page once", func(t *testing.T) {
		start := time.Now()
		run := h.start(t, h.input())
		rep := wait(t, run, 5*time.Minute)
		first = rep
		t.Logf("first run: %s in %s", rep.Message, time.Since(start).Round(time.Second))
		if rep.Written != 300 || rep.FailedPages != 0 || rep.FailedSections != 0 || len(rep.Sections) != 5 {
			t.Fatalf("report: %d written, %d failed pages, %d failed sections, %d sections; want 300, 0, 0, 5: %s",
				rep.Written, rep.FailedPages, rep.FailedSections, len(rep.Sections), rep.Message)
		}
		h.checkPermits(t)
		if got := h.limiterState(t).Stats.Unsent[e2eUser]; got != rep.UnsentUnits {
			t.Errorf("the limiter was told of %d units never sent; the report counts %d", got, rep.UnsentUnits)
		}
		// Every page was read back from Notion and holds what was written.
		if v := rep.Verification; v == nil || v.Verified != 300 || rep.Verified != 300 || rep.VerifyReads < 300 ||
			!strings.Contains(rep.Message, "300 of 300 pages verified") {
			t.Errorf("verification: %+v, %d verified by this run, %d reads; message %q", v, rep.Verified, rep.VerifyReads, rep.Message)
		}
		rows, dup := exportedRows(t, h.notion.Export(), nb.DisplayName)
		if len(dup) > 0 {
			t.Errorf("pages written more than once: %v", dup)
		}
		if len(rows) != len(want) {
			t.Errorf("Notion holds %d pages, want %d", len(rows), len(want))
		}
		subpages, nested := 0, 0
		for _, s := range migrated {
			for _, p := range s.Pages {
				if p.Level > 0 {
					subpages++
					if rows[p.ID].Parent != "" {
						nested++
					}
				}
			}
		}
		if subpages == 0 || nested != subpages {
			t.Errorf("%d of %d subpages are sub-items of their parent", nested, subpages)
		}
		bad := 0
		for id, sig := range want {
			got, ok := rows[id]
			switch {
			case !ok:
				t.Errorf("page %s is not in Notion", id)
			case got.Signature != sig:
				if bad++; bad <= 2 {
					t.Errorf("page %s content differs:\n got %s\nwant %s", id, clipSig(got.Signature), clipSig(sig))
				}
			}
		}
		if bad > 0 {
			t.Errorf("%d pages differ from their converted OneNote content", bad)
		}
		checkLossReport(t, h.notion.Export(), rep, rows)
		checkOutcome(t, h, run.GetID(), rep, "300 of 300 pages verified")
	})
	if t.Failed() {
		return
	}

	t.Run("re-run writes nothing", func(t *testing.T) {
		before, writes := h.graph.Stats().Users[e2eUser].Requests, h.notionWrites()
		rep := wait(t, h.start(t, h.input()), 2*time.Minute)
		if rep.Written != 0 || rep.Skipped != 300 {
			t.Errorf("re-run wrote %d and skipped %d pages, want 0 and 300", rep.Written, rep.Skipped)
		}
		if got := h.notionWrites() - writes; got != 0 {
			t.Errorf("re-run sent %d writes to Notion, want 0", got)
		}
		// The notebook tree (the expanded call and the deeper groups'
		// listings) and one listing per section (60 pages each).
		if got, want := h.checkPermits(t)-before, int64(treeCalls(nb)+5); got != want {
			t.Errorf("re-run made %d Graph requests, want %d (tree and listings)", got, want)
		}
	})

	t.Run("re-run after 3 touched pages rewrites exactly those", func(t *testing.T) {
		touched := []string{migrated[0].Pages[3].ID, migrated[2].Pages[10].ID, migrated[4].Pages[59].ID}
		for _, id := range touched {
			if err := h.graph.TouchPage(id); err != nil {
				t.Fatal(err)
			}
		}
		before, _ := exportedRows(t, h.notion.Export(), nb.DisplayName)
		rep := wait(t, h.start(t, h.input()), 2*time.Minute)
		if rep.Written != 3 || rep.Skipped != 297 {
			t.Errorf("re-run wrote %d and skipped %d pages, want 3 and 297", rep.Written, rep.Skipped)
		}
		after, dup := exportedRows(t, h.notion.Export(), nb.DisplayName)
		if len(dup) > 0 || len(after) != 300 {
			t.Errorf("after the re-run Notion holds %d pages (duplicates %v), want 300", len(after), dup)
		}
		for id, r := range after {
			changed := r.LastModified != before[id].LastModified || r.ID != before[id].ID
			if changed != contains(touched, id) {
				t.Errorf("page %s: changed %v, touched %v", id, changed, contains(touched, id))
			}
		}
		h.checkPermits(t)
	})

	t.Run("a failed section waits for retry-section", func(t *testing.T) {
		broken := migrated[1]
		h.listing.Set(broken.ID, true)
		run := h.start(t, h.input())
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		var p workflows.NotebookProgress
		for {
			v, err := h.c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), workflows.QueryProgress)
			if err == nil && v.Get(&p) == nil && p.Failed == 1 && p.Done == 4 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("notebook never settled with one failed section: %+v", p)
			}
			time.Sleep(200 * time.Millisecond)
		}
		for _, s := range p.Sections {
			if (s.Status == workflows.SectionFailed) != (s.ID == broken.ID) {
				t.Errorf("section %s is %s", s.Path, s.Status)
			}
		}
		desc, err := h.c.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
		if err != nil {
			t.Fatal(err)
		}
		if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(); st != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
			t.Fatalf("notebook is %v with a failed section, want running", st)
		}
		h.listing.Set(broken.ID, false)
		if answer, err := workflows.RetrySection(ctx, h.c, run.GetID(), broken.ID); err != nil {
			t.Fatal(err)
		} else if !strings.Contains(answer, "runs again") {
			t.Errorf("retry-section answered %q", answer)
		}
		rep := wait(t, run, 2*time.Minute)
		if rep.FailedSections != 0 {
			t.Fatalf("after retry: %s", rep.Message)
		}
		for _, s := range rep.Sections {
			wantAttempts := 1
			if s.ID == broken.ID {
				wantAttempts = 2
			}
			if s.Attempts != wantAttempts {
				t.Errorf("section %s ran %d times, want %d", s.Path, s.Attempts, wantAttempts)
			}
		}
		h.checkPermits(t)
	})

	t.Run("scan counts pages in the foreground lane", func(t *testing.T) {
		before := h.graph.Stats().Users[e2eUser].Requests
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		run, err := h.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "scan/" + e2eUser, TaskQueue: e2eQueue},
			workflows.ScanNotebooksName, workflows.ScanInput{User: e2eUser, Limits: h.profile})
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.ScanResult
		if err := run.Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		if len(res.Notebooks) != 1 || res.Notebooks[0].Pages != 360 || len(res.Notebooks[0].Sections) != 6 {
			t.Fatalf("scan: %+v", res)
		}
		want := treeCalls(nb) + 6
		if got := h.checkPermits(t) - before; got != int64(res.Requests) || got != int64(want) {
			t.Errorf("scan made %d Graph requests, reported %d, want %d (tree and listings)", got, res.Requests, want)
		}
		// The estimate counts the tree calls too: the tree, 6 listings,
		// 360 pages and 360 resources (one a page assumed).
		if est := res.Notebooks[0].Requests; est != treeCalls(nb)+6+360+360 {
			t.Errorf("scan estimates %d requests, want %d", est, treeCalls(nb)+6+720)
		}
		if res.Notebooks[0].ETA <= 0 {
			t.Errorf("scan ETA is %s", res.Notebooks[0].ETAText)
		}
		t.Logf("scan: %s", res.Notebooks[0].ETAText)
	})

	t.Run("verify reports the one page a person edited as edited", func(t *testing.T) {
		rows, _ := exportedRows(t, h.notion.Export(), nb.DisplayName)
		edited := rows[migrated[3].Pages[7].ID].ID
		block := ""
		stack.EachRow(h.notion.Export().Pages, func(row notionemu.Page) {
			if strings.ReplaceAll(row.ID, "-", "") != strings.ReplaceAll(edited, "-", "") {
				return
			}
			for _, b := range row.Blocks {
				if _, ok := b.Content["rich_text"]; ok && block == "" {
					block = b.ID
				}
			}
		})
		if block == "" {
			t.Fatalf("page %s has no block with text", edited)
		}
		if err := h.notion.PersonEditText(block, "Rewritten by hand in Notion"); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		// The temporal CLI form: only the notebook page, as typed.
		run, err := h.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "verify/" + first.NotebookPageID, TaskQueue: e2eQueue},
			workflows.VerifyNotebookName, json.RawMessage(`{"notebookPageID":"`+first.NotebookPageID+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.VerifyReport
		if err := run.Get(ctx, &res); err != nil {
			t.Fatal(err)
		}
		t.Logf("verify: %s", res.Message)
		// Every database under the notebook page is looked into (the
		// section left out has an empty one, made by the layout).
		if res.Sections < 5 || res.Pages != 300 || res.Verified != 299 || res.Edited != 1 || res.Differs != 0 || res.Reads < 300 {
			t.Errorf("verify: %+v", res)
		}
		if len(res.NotVerified) != 1 || res.NotVerified[0].NotionPageID != edited || res.NotVerified[0].Verdict != "edited" {
			t.Errorf("pages named: %+v, want only %s as edited", res.NotVerified, edited)
		}
	})

	t.Run("no token in any history", func(t *testing.T) {
		h.checkHistories(t)
	})
}

// checkOutcome checks that the ended notebook's current details (the Web
// UI's) say, after the counts and before the health, what was lost and
// approximated by kind, the verification and where the report is, and
// that the progress query's outcome is the report's.
func checkOutcome(t *testing.T, h *harness, id string, rep workflows.NotebookReport, verification string) {
	t.Helper()
	details := currentDetails(t, h.c, id)
	t.Logf("current details at the end:\n%s", details)
	counts, health := strings.Index(details, " · pages "), strings.Index(details, "Health: ")
	lost, approx := strings.Index(details, "**Lost:** "), strings.Index(details, "**Approximated:** ")
	if counts < 0 || health < 0 || lost < counts || approx < lost || health < approx {
		t.Errorf("current details do not say the counts, then what was lost and approximated, then the health:\n%s", details)
	}
	if len(rep.LossKinds) == 0 {
		t.Errorf("the report counts no losses or approximations by kind (the generated notebook has some)")
	}
	for _, k := range rep.LossKinds {
		if !strings.Contains(details, fmt.Sprintf("%s ×%d", k.Kind, k.Count)) {
			t.Errorf("current details do not count %s ×%d:\n%s", k.Kind, k.Count, details)
		}
	}
	for _, want := range []string{"**Verification:** " + verification, "**Report:** ", notion.PageURL(rep.ReportPageID)} {
		if rep.ReportPageID == "" || !strings.Contains(details, want) {
			t.Errorf("current details do not say %q:\n%s", want, details)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	v, err := h.c.QueryWorkflow(ctx, id, "", workflows.QueryProgress)
	if err != nil {
		t.Fatalf("progress query of %s: %v", id, err)
	}
	var p workflows.NotebookProgress
	if err := v.Get(&p); err != nil {
		t.Fatal(err)
	}
	if want := rep.Outcome(); p.Outcome == nil || !reflect.DeepEqual(*p.Outcome, *want) {
		t.Errorf("the progress query's outcome %+v, want the report's %+v", p.Outcome, want)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func clipSig(s string) string {
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}

// checkHistories exports every workflow history of the namespace as JSON
// and searches it for the tokens. With NOTEBRIDGE_SAVE_HISTORY set it also
// saves a small migration's histories for the replay test.
func (h *harness) checkHistories(t *testing.T) {
	n := 0
	save := os.Getenv("NOTEBRIDGE_SAVE_HISTORY") != ""
	forEachExecution(t, h, func(e *workflowpb.WorkflowExecutionInfo, js []byte) {
		n++
		for _, secret := range []string{h.graphTok, h.notionTok} {
			if strings.Contains(string(js), secret) {
				t.Errorf("history of %s holds a token", e.Execution.WorkflowId)
			}
		}
		if save {
			h.maybeSave(t, e.Type.Name, e.Execution.WorkflowId, e.Status, js)
		}
	})
	if n < 10 {
		t.Errorf("searched only %d histories", n)
	}
	logs := h.logs.String()
	for _, secret := range []string{h.graphTok, h.notionTok} {
		if strings.Contains(logs, secret) {
			t.Error("a token appears in the worker's logs")
		}
	}
	if len(logs) == 0 {
		t.Error("no worker logs were captured")
	}
	t.Logf("searched %d histories and %d bytes of worker logs for tokens", n, len(logs))
}

// forEachExecution calls fn with every workflow execution of the
// namespace and its history as JSON.
func forEachExecution(t *testing.T, h *harness, fn func(e *workflowpb.WorkflowExecutionInfo, js []byte)) {
	t.Helper()
	ctx := context.Background()
	var token []byte
	for {
		resp, err := h.c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 200, NextPageToken: token})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range resp.Executions {
			fn(e, h.historyJSON(t, e.Execution.WorkflowId, e.Execution.RunId))
		}
		token = resp.NextPageToken
		if len(token) == 0 {
			return
		}
	}
}

// forEachHistory calls fn with every workflow history of the namespace.
func forEachHistory(t *testing.T, h *harness, fn func(id string, js []byte)) {
	t.Helper()
	forEachExecution(t, h, func(e *workflowpb.WorkflowExecutionInfo, js []byte) { fn(e.Execution.WorkflowId, js) })
}

func (h *harness) historyJSON(t *testing.T, id, runID string) []byte {
	it := h.c.GetWorkflowHistory(context.Background(), id, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var hist historypb.History
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatalf("history of %s: %v", id, err)
		}
		hist.Events = append(hist.Events, ev)
	}
	js, err := protojson.Marshal(&hist)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// maybeSave keeps, for the replay test, the smallest completed notebook
// history that took a retry-section update, the smallest that ran the
// link pass, and the smallest completed section history that wrote a
// page.
func (h *harness) maybeSave(t *testing.T, typ, id string, st enums.WorkflowExecutionStatus, js []byte) {
	if st != enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		return
	}
	switch typ {
	case workflows.MigrateNotebookName:
		h.saveSmallest(t, "migrate-notebook.json", workflows.UpdateRetrySection, id, js)
		h.saveSmallest(t, "migrate-notebook-links.json", activities.StageLinkTargetsName, id, js)
	case workflows.MigrateSectionName:
		h.saveSmallest(t, "migrate-section.json", "WritePage", id, js)
	}
}

// saveSmallest saves js as testdata/name if it holds marker and is
// smaller than what this run saved there before.
func (h *harness) saveSmallest(t *testing.T, name, marker, id string, js []byte) {
	if !strings.Contains(string(js), marker) {
		return
	}
	path := filepath.Join("testdata", name)
	if old, err := os.Stat(path); err == nil && old.Size() <= int64(len(js)) && old.ModTime().After(time.Now().Add(-10*time.Minute)) {
		return
	}
	if err := os.WriteFile(path, js, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("saved %s (%s, %d bytes)", path, id, len(js))
}

var _ = graph.Generate
