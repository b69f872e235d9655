package workflows_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/workflows"
)

// TestFaultsAndBadInput runs the fault matrix and the bad-input cases of
// issue #10 on one dev server and one pair of emulators, with a real
// token store signed in through the Graph emulator (access tokens live
// 20 s). Each fault case migrates the same notebook under a fresh Notion
// page while one kind of fault is injected: it must complete, Notion must
// hold the source page for page and block for block (no duplicate, none
// missing), and the Graph emulator must see no window over a limit. Each
// bad input must end with an error that names the problem and what to do,
// losing nothing already migrated. At the end the worker's logs, every
// history and every error are searched for tokens.
func TestFaultsAndBadInput(t *testing.T) {
	h := newFaultHarness(t)
	var errTexts []string
	migrated := func(t *testing.T, name string, set, clear func()) workflows.NotebookReport {
		t.Helper()
		parent := h.parent(t, name)
		want := h.expected(t)
		if set != nil {
			set()
		}
		start := time.Now()
		rep, err := h.migrate(t, h.input(h.nb, parent), h.nb.ID)
		if clear != nil {
			clear()
		}
		if err != nil {
			errTexts = append(errTexts, err.Error())
			t.Fatalf("migration failed: %v", err)
		}
		t.Logf("%s in %s", rep.Message, time.Since(start).Round(100*time.Millisecond))
		if rep.FailedPages != 0 || rep.FailedSections != 0 {
			t.Errorf("report: %s", rep.Message)
		}
		h.checkMigrated(t, parent, want)
		h.checkGraph(t)
		return rep
	}
	graphFaults := func(f graph.Faults) (func(), func()) {
		return func() { h.graph.SetFaults(f) }, h.graph.ClearFaults
	}
	notionFaults := func(f notionemu.Faults) (func(), func()) {
		f.SlowDelay = 300 * time.Millisecond
		return func() { h.notion.SetFaults(f) }, func() { h.notion.SetFaults(notionemu.Faults{}) }
	}

	t.Run("no fault", func(t *testing.T) { migrated(t, "clean", nil, nil) })

	// Graph faults.
	for _, tc := range []struct {
		name string
		f    graph.Faults
	}{
		{"graph 5xx bursts", graph.Faults{ServerErrorRate: 0.2, ServerErrorBurst: 3}},
		// The worker's Graph client gives up after 3 s.
		{"graph slow responses and timeouts", graph.Faults{SlowRate: 0.1, SlowDelay: 3500 * time.Millisecond}},
		{"graph truncated bodies", graph.Faults{TruncateRate: 0.15}},
		// The pipeline makes no $batch requests: inner 429/502/503 are
		// tested at the activity level, as plain answers.
		{"graph 429 502 503 answers", graph.Faults{ThrottleRate: 0.08, ServerErrorRate: 0.08, ServerErrorBurst: 1}},
		{"graph transient bare 400s", graph.Faults{BadRequestRate: 0.1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, clear := graphFaults(tc.f)
			migrated(t, tc.name, set, clear)
		})
	}
	t.Run("graph access token expires mid-migration", func(t *testing.T) {
		before := len(h.graph.IssuedSecrets())
		set, clear := graphFaults(graph.Faults{TokenExpiryRate: 0.1})
		migrated(t, "token expiry", set, clear)
		if after := len(h.graph.IssuedSecrets()); after <= before {
			t.Errorf("the token store never refreshed (%d tokens issued before, %d after)", before, after)
		}
	})
	t.Run("page deleted or changed between listing and fetch", func(t *testing.T) {
		secs := emuSections(h.nb)
		gone, changed := secs[0].Pages[2].ID, secs[1].Pages[1].ID
		if err := h.ref.TouchPage(changed); err != nil {
			t.Fatal(err)
		}
		if err := h.ref.DeletePage(gone); err != nil {
			t.Fatal(err)
		}
		h.gone[gone] = true
		set, clear := graphFaults(graph.Faults{DeleteAfterListing: []string{gone}, TouchAfterListing: []string{changed}})
		rep := migrated(t, "deleted and changed", set, clear)
		if rep.Skipped != 1 {
			t.Errorf("the deleted page should be reported as skipped: %s", rep.Message)
		}
	})
	t.Run("graph ignores $skip", func(t *testing.T) {
		h.graph.SetFaults(graph.Faults{IgnoreSkip: true})
		in := h.input(h.big, "")
		in.DryRun = true
		rep, err := h.migrate(t, in, h.big.ID)
		h.graph.ClearFaults()
		if err != nil {
			t.Fatal(err)
		}
		if rep.Pages != 105 || !rep.Sections[0].Relisted {
			t.Errorf("listed %d pages (relisted: %v), want all 105 once", rep.Pages, rep.Sections[0].Relisted)
		}
		h.checkGraph(t)
	})

	// Notion faults.
	for _, tc := range []struct {
		name string
		f    notionemu.Faults
	}{
		{"notion 529 overloaded", notionemu.Faults{Overload: 0.05, OverloadRetryAfter: 1}},
		{"notion 409 conflict", notionemu.Faults{Conflict: 0.15}},
		{"notion 502 503 504", notionemu.Faults{BadGateway: 0.06, Unavailable: 0.06, GatewayTimeout: 0.06}},
		{"notion write applied but answered 500", notionemu.Faults{AppliedThenInternalError: 0.12, AppliedThenGatewayTimeout: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, clear := notionFaults(tc.f)
			migrated(t, tc.name, set, clear)
		})
	}
	t.Run("notion 429 with Retry-After", func(t *testing.T) {
		before := h.notion.Stats().RateLimited
		migrated(t, "notion 429", func() { h.notion.SetRate(60, 10) }, func() { h.notion.SetRate(-1, 0) })
		st := h.notion.Stats()
		if st.RateLimited == before {
			t.Error("Notion never answered 429: the case tested nothing")
		}
		// Requests already in flight when a 429 arrives reach Notion
		// early; none sent after it may.
		t.Logf("Notion answered %d 429s; %d requests arrived before their Retry-After (in flight when it came)",
			st.RateLimited-before, st.Early)
	})
	t.Run("notion upload expires before it is attached", func(t *testing.T) {
		before := len(h.notion.Export().Uploads)
		migrated(t, "upload expiry", func() { h.notion.InjectUploadExpiry(4) }, nil)
		pages := 0
		for _, s := range emuSections(h.nb) {
			for _, p := range s.Pages {
				if !h.gone[p.ID] {
					pages++
				}
			}
		}
		if got := len(h.notion.Export().Uploads) - before; got < 2*pages+4 {
			t.Errorf("%d uploads for %d pages with 2 resources each: the 4 expired ones were not made again", got, pages)
		}
	})

	// Bad input: each ends with an error naming the problem and what to
	// do.
	bad := func(t *testing.T, in any, nbID string, want ...string) workflows.NotebookReport {
		t.Helper()
		rep, err := h.migrate(t, in, nbID)
		if err == nil {
			t.Fatalf("the migration succeeded: %s", rep.Message)
		}
		errTexts = append(errTexts, err.Error())
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || (app.Type() != failure.Config && app.Type() != failure.InvalidInput) {
			t.Errorf("error %v is not a configuration or input error", err)
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
		var partial workflows.NotebookReport
		if app != nil && app.HasDetails() {
			_ = app.Details(&partial)
		}
		return partial
	}
	t.Run("bad input: user with no stored sign-in", func(t *testing.T) {
		in := h.input(h.nb, h.root)
		in.User = "nobody"
		bad(t, in, h.nb.ID, `run "starter login --user nobody"`, "start the migration again")
		if n := h.graph.Stats().Users["nobody"].Requests; n != 0 {
			t.Errorf("%d Graph requests for a user without a token", n)
		}
	})
	t.Run("bad input: unknown notebook", func(t *testing.T) {
		in := h.input(h.nb, h.root)
		in.Notebook = "No such notebook"
		bad(t, in, "unknown", `"No such notebook" not found`, h.nb.DisplayName, h.big.DisplayName)
	})
	t.Run("bad input: Notion parent not shared", func(t *testing.T) {
		private, err := h.notion.AddPage(h.root, "Private", false)
		if err != nil {
			t.Fatal(err)
		}
		bad(t, h.input(h.nb, private), h.nb.ID, "not shared with the integration", "Connections")
	})
	t.Run("bad input: malformed JSON", func(t *testing.T) {
		bad(t, rawInput(`{"user":"fay","notebook":["x"],"notionParent":"p"}`), "malformed", `field "notebook"`, "must be a string")
		bad(t, rawInput(`{"user":"fay","notebook":"x","notionparent":"p","sectionParalelism":2}`), "malformed",
			`"sectionParalelism"`, "the fields are")
	})
	t.Run("bad input: Graph 403 10008", func(t *testing.T) {
		h.graph.SetFaults(graph.Faults{LibraryLimitUsers: []string{faultUser}})
		bad(t, h.input(h.nb, h.root), h.nb.ID, "10008", "5,000")
		h.graph.ClearFaults()
	})
	t.Run("bad input: password-protected section", func(t *testing.T) {
		secs := emuSections(h.nb)
		if err := h.graph.LockSection(secs[1].ID, true); err != nil {
			t.Fatal(err)
		}
		defer h.graph.LockSection(secs[1].ID, false)
		parent := h.parent(t, "protected")
		want := expectedFrom(t, h.refURL, h.refTok, secs[:1], h.gone)
		// The notebook waits with the section skipped (a person may
		// unlock it and retry it); finish ends it with the skip reported.
		run := h.start(t, workflows.NotebookWorkflowID(faultUser, h.nb.ID), h.input(h.nb, parent))
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for {
			v, err := h.c.QueryWorkflow(ctx, run.GetID(), run.GetRunID(), workflows.QueryProgress)
			var p workflows.NotebookProgress
			if err == nil && v.Get(&p) == nil && p.Skipped == 1 && p.Running == 0 && p.Pending == 0 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("the notebook never waited with the section skipped: %s", h.progress(run))
			}
			time.Sleep(200 * time.Millisecond)
		}
		if _, err := workflows.Finish(ctx, h.c, run.GetID()); err != nil {
			t.Fatal(err)
		}
		var rep workflows.NotebookReport
		if err := run.Get(ctx, &rep); err != nil {
			t.Fatal(err)
		}
		if rep.SkippedSections != 1 || rep.FailedSections != 0 || !strings.Contains(rep.Message, "password") {
			t.Errorf("report: %s", rep.Message)
		}
		rows, dup := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
		if len(dup) != 0 || len(rows) != len(want) {
			t.Errorf("Notion holds %d pages (duplicates %v), want the %d of the readable section", len(rows), dup, len(want))
		}
		h.checkGraph(t)
	})
	t.Run("bad input: attachment over the workspace upload limit", func(t *testing.T) {
		// Attachments are 2,048 bytes and images 1,024.
		h.notion.SetMaxFileUploadBytes(1500)
		defer h.notion.SetMaxFileUploadBytes(0)
		parent := h.parent(t, "upload limit")
		rep, err := h.migrate(t, h.input(h.nb, parent), h.nb.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := h.expected(t)
		rows, dup := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
		if len(dup) != 0 || len(rows) != len(want) || rep.Written != len(want) {
			t.Errorf("Notion holds %d pages (duplicates %v, %d written), want %d", len(rows), dup, rep.Written, len(want))
		}
		notes := 0
		for _, lp := range rep.LossPages {
			for _, n := range lp.Notes {
				// Notion's refusal ("exceeds this workspace's limit"), or
				// the worker's own check ("larger than the Notion
				// workspace allows") once it knows the limit.
				if strings.HasPrefix(n, "lost · attachment") && (strings.Contains(n, "limit") || strings.Contains(n, "workspace allows")) {
					notes++
				}
			}
		}
		if rep.PagesWithLosses < len(want) || notes == 0 {
			t.Errorf("%d pages report losses (%d notes about the upload limit), want every page: %s", rep.PagesWithLosses, notes, rep.Message)
		}
		// Every page lost its attachment: each has the callout, and the
		// report links each one.
		for id, r := range rows {
			if !strings.HasPrefix(r.Signature, lossMark) {
				t.Errorf("page %s lost its attachment but has no loss callout", id)
			}
		}
		checkLossReport(t, h.notion.Export(), rep, rows)
		h.checkGraph(t)
	})
	t.Run("bad input: Notion block limit reached", func(t *testing.T) {
		parent := h.parent(t, "block limit")
		want := h.expected(t)
		h.notion.SetWorkspaceBlockLimit(h.notion.Stats().Blocks + 60)
		partial := bad(t, h.input(h.nb, parent), h.nb.ID, "block limit", "upgrade the Notion workspace", "pages written",
			"start the migration again")
		h.notion.SetWorkspaceBlockLimit(0)
		if partial.Written == 0 || partial.Written >= len(want) {
			t.Errorf("the stopped migration reports %d pages written, want some of %d", partial.Written, len(want))
		}
		before, _ := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
		// After the upgrade, starting again completes it: nothing lost,
		// nothing written twice.
		rep, err := h.migrate(t, h.input(h.nb, parent), h.nb.ID)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Skipped < partial.Written-1 {
			t.Errorf("the second run skipped %d pages, the first wrote %d", rep.Skipped, partial.Written)
		}
		after, _ := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
		for id, r := range before {
			if after[id].ID != r.ID {
				t.Errorf("page %s migrated before the stop was replaced", id)
			}
		}
		h.checkMigrated(t, parent, want)
		h.checkGraph(t)
	})

	// Last: a worker dies while it holds pages (its network goes, then
	// it stops). Its sessions fail; the pages are run again on another
	// worker's session and land once.
	t.Run("worker dies mid-page", func(t *testing.T) {
		defer workflows.SetSessionHeartbeatForTest(3 * time.Second)()
		for _, w := range h.workers {
			w.Stop()
		}
		acts, kill := h.killableActivities(t)
		doomed := h.startWorkerWith(t, acts)
		parent := h.parent(t, "worker dies")
		want := h.expected(t)
		h.notion.SetFaults(notionemu.Faults{Slow: 1, SlowDelay: 250 * time.Millisecond})
		defer h.notion.SetFaults(notionemu.Faults{})
		in := h.input(h.nb, parent)
		in.PageParallelism = 1
		run := h.start(t, workflows.NotebookWorkflowID(faultUser, h.nb.ID), in)
		sec := emuSections(h.nb)[0]
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		for {
			v, err := h.c.QueryWorkflow(ctx, workflows.SectionWorkflowID(faultUser, h.nb.ID, sec.ID), "", workflows.QueryProgress)
			var p workflows.SectionProgress
			// (A section run of an earlier case answers too, finished.)
			if err == nil && v.Get(&p) == nil && p.Done >= 1 && p.Remaining > 0 {
				t.Logf("killing the worker while section %q is at %+v", sec.DisplayName, p)
				break
			}
			if ctx.Err() != nil {
				t.Fatal("no page was written")
			}
			time.Sleep(100 * time.Millisecond)
		}
		kill()
		h.startWorker(t)
		doomed.Stop()
		var rep workflows.NotebookReport
		if err := run.Get(ctx, &rep); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s; %d pages run again", rep.Message, rep.Reruns)
		if rep.FailedPages != 0 || rep.FailedSections != 0 || rep.Reruns == 0 {
			t.Errorf("report: %s; %d pages run again, want some", rep.Message, rep.Reruns)
		}
		h.checkMigrated(t, parent, want)
		// The killed worker's requests may have been cut short: the
		// invariant is that none left without a permit.
		if v := h.graph.Violations(); len(v) != 0 {
			t.Errorf("%d limit violations", len(v))
		}
	})

	t.Run("no token in any log line, error or history", func(t *testing.T) { h.checkNoSecrets(t, errTexts...) })
}
