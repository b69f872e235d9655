package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// runOffline runs a command that must not reach Temporal.
func runOffline(t *testing.T, args ...string) result {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return result{code, out.String(), errOut.String()}
}

func TestHelpShowsTheTemporalCommand(t *testing.T) {
	t.Setenv("TEMPORAL_ADDRESS", "temporal.example:7233")
	t.Setenv("NOTEBRIDGE_TASK_QUEUE", "")
	t.Setenv("TEMPORAL_NAMESPACE", "")
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"login", "-help"}, []string{"None: signing in talks to Microsoft", "-create-key", "-authority"}},
		{[]string{"scan", "-user", "alice", "--help"}, []string{
			`temporal workflow execute --address temporal.example:7233 --namespace default --task-queue notebridge --type ScanNotebooks --workflow-id scan/alice --input '{"user":"alice"}'`}},
		{[]string{"migrate", "-user", "alice", "-notion-parent", "p1", "-h"}, []string{
			`temporal workflow start --address temporal.example:7233 --namespace default --task-queue notebridge --type MigrateNotebook --workflow-id 'migrate/alice/<notebookID>' --input '{"user":"alice","notebook":"<notebook ID or name>","notionParent":"p1"}'`,
			`temporal workflow query --address temporal.example:7233 --namespace default --workflow-id 'migrate/alice/<notebookID>' --name progress`}},
		{[]string{"status", "-w", "migrate/alice/nb1", "-app-id", "app1", "-help"}, []string{
			"temporal workflow query --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name progress",
			"--workflow-id 'migrate/alice/nb1/section/<sectionID>' --name progress",
			"--workflow-id limiter/graph-onenote/app1 --name state"}},
		{[]string{"retry", "-w", "migrate/alice/nb1", "-section", "s1", "-help"}, []string{
			`temporal workflow update execute --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name retry-section --input '"s1"'`,
			"--workflow-id migrate/alice/nb1 --name retry-failed"}},
		{[]string{"finish", "-user", "alice", "-notebook", "nb1", "-help"}, []string{
			"temporal workflow update execute --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1 --name finish",
			"temporal workflow result --address temporal.example:7233 --namespace default --workflow-id migrate/alice/nb1"}},
		{[]string{"list", "-user", "alice", "-status", "waiting", "-help"}, []string{
			`temporal workflow list --address temporal.example:7233 --namespace default --query 'WorkflowType = "MigrateNotebook" AND NoteBridgeUser = "alice" AND NoteBridgeStatus = "waiting"'`}},
	} {
		r := runOffline(t, tc.args...)
		if r.code != 0 {
			t.Errorf("%v: %v", tc.args, r)
		}
		for _, want := range append(tc.want, "The same with the temporal CLI:", "Flags:") {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("%v: help lacks %q:\n%s", tc.args, want, r.stdout)
			}
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{nil, exitUsage, "Usage: starter <command>"},
		{[]string{"frobnicate"}, exitUsage, `unknown command "frobnicate"`},
		{[]string{"help"}, exitOK, "Commands:"},
		{[]string{"scan"}, exitUsage, "-user is required"},
		{[]string{"scan", "-user", "alice", "extra"}, exitUsage, "unexpected arguments"},
		{[]string{"scan", "-nope"}, exitUsage, "flag provided but not defined: -nope"},
		{[]string{"login", "-user", "alice"}, exitUsage, "-app-id (or NOTEBRIDGE_APP_ID) is required"},
		{[]string{"login", "-user", "../etc", "-app-id", "a"}, exitUsage, "invalid user ID"},
		{[]string{"login", "-user", "alice", "-app-id", "a", "-scope", "Notes.ReadWrite"}, exitUsage, "Notes.Read.All"},
		{[]string{"migrate", "-notebook", "n", "-notion-parent", "p"}, exitUsage, `field "user": is required`},
		{[]string{"migrate", "-user", "alice", "-notion-parent", "p"}, exitUsage, "(flag -notebook)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n"}, exitUsage, "(flag -notion-parent)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n", "-notion-parent", "p", "-section-parallelism", "99"}, exitUsage, "(flag -section-parallelism)"},
		{[]string{"migrate", "-user", "alice", "-notebook", "n", "-notion-parent", "p", "-limits", "fast"}, exitUsage, "(flag -limits)"},
		{[]string{"migrate", "-input", `{"user":"alice","notebok":"n"}`}, exitUsage, `"notebok"`},
		{[]string{"migrate", "-user", "a", "-include", "S", "-exclude", "S", "-notebook", "n", "-notion-parent", "p"}, exitUsage, "(flag -exclude)"},
		{[]string{"retry", "-w", "x"}, exitUsage, "give either -section S or -all"},
		{[]string{"retry", "-w", "x", "-all", "-section", "s"}, exitUsage, "give either -section S or -all"},
		{[]string{"list", "-limit", "0"}, exitUsage, "-limit must be positive"},
	} {
		r := runOffline(t, tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: want exit %d saying %q, got %v", tc.args, tc.code, tc.want, r)
		}
	}
}

func TestLoginNeedsAKey(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("NOTEBRIDGE_TOKEN_KEY", "")
	r := runOffline(t, "login", "-user", "alice", "-app-id", "a", "-token-dir", filepath.Join(dir, "tokens"),
		"-token-key-file", filepath.Join(dir, "token.key"))
	if r.code != exitFailed || !strings.Contains(r.stderr, "starter login --user alice --create-key") {
		t.Errorf("login without a key: %v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "token.key")); !os.IsNotExist(err) {
		t.Errorf("a key file was created without -create-key: %v", err)
	}
}

func TestMergeInput(t *testing.T) {
	flags := workflows.MigrateInput{User: "bob", PageParallelism: 7}
	in, err := mergeInput(flags, map[string]bool{"user": true}, `{"user":"alice","notebook":"n","notionParent":"p","pageParallelism":2,"include":["A"]}`, "")
	if err != nil {
		t.Fatal(err)
	}
	if in.User != "bob" || in.Notebook != "n" || in.NotionParent != "p" || in.PageParallelism != 2 || len(in.Include) != 1 {
		t.Errorf("merged: %+v; want the JSON with the flags set on the command line laid over it", in)
	}
	file := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(file, []byte(`{"user":"carol","notebook":"n2","dryRun":true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if in, err := mergeInput(workflows.MigrateInput{}, nil, "", file); err != nil || in.User != "carol" || !in.DryRun {
		t.Errorf("input file: %+v, %v", in, err)
	}
	if _, err := mergeInput(workflows.MigrateInput{}, nil, "{}", file); err == nil {
		t.Error("-input and -input-file together: no error")
	}
	if in, err := mergeInput(flags, nil, "", ""); err != nil || in.User != "bob" {
		t.Errorf("flags alone: %+v, %v", in, err)
	}
}

func TestTotals(t *testing.T) {
	started := time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)
	sec := func(id, status string, pages, failed int, errText string) workflows.SectionSummary {
		return workflows.SectionSummary{SectionRef: workflows.SectionRef{ID: id, Path: "NB / " + id}, Status: status,
			Pages: pages, Failed: failed, Error: errText}
	}
	for _, tc := range []struct {
		name  string
		snap  snapshot
		scan  map[string]int
		pages string // pagesText
		want  totals
	}{
		{
			name: "running, pending known from the scan",
			snap: snapshot{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, started: started, now: started.Add(10 * time.Minute), progressOK: true,
				progress: workflows.NotebookProgress{Phase: "migrating", Permits: 12, Waited: time.Minute, Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 10, 0, ""), sec("b", workflows.SectionRunning, 0, 0, ""), sec("c", workflows.SectionPending, 0, 0, "")}},
				sections: map[string]workflows.SectionProgress{"b": {Pages: 20, Done: 8, Failed: 2, Remaining: 10, Permits: 9, Waited: time.Minute, Phase: "migrating"}}},
			scan:  map[string]int{"c": 30},
			pages: "18/60 pages",
			// 20 pages worked in 10 minutes, 40 left: 20 minutes.
			want: totals{pages: 60, done: 18, failed: 2, remaining: 40, secDone: 1, secRunning: 1, secPending: 1,
				permits: 21, waited: 2 * time.Minute, eta: 20 * time.Minute},
		},
		{
			name: "a section not listed yet and not in a scan",
			snap: snapshot{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, started: started, now: started.Add(time.Minute), progressOK: true,
				progress: workflows.NotebookProgress{Phase: "migrating", ETA: 5 * time.Minute, Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 4, 0, ""), sec("b", workflows.SectionRunning, 0, 0, "")}},
				sections: map[string]workflows.SectionProgress{"b": {Phase: "listing"}}},
			pages: "4/4+ pages",
			want:  totals{pages: 4, done: 4, unknown: 1, secDone: 1, secRunning: 1, eta: 5 * time.Minute},
		},
		{
			name: "a failed section that never listed its pages counts as left",
			snap: snapshot{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, started: started, now: started.Add(time.Minute), progressOK: true,
				progress: workflows.NotebookProgress{Phase: "waiting for retry-section, retry-failed or finish", Sections: []workflows.SectionSummary{
					sec("a", workflows.SectionDone, 4, 1, ""), sec("b", workflows.SectionFailed, 0, 0, "404")}}},
			scan:  map[string]int{"b": 6},
			pages: "3/10 pages",
			want:  totals{pages: 10, done: 3, failed: 1, remaining: 6, secDone: 1, secFailed: 1}, // no ETA while it waits
		},
		{
			name: "completed: the report's sections",
			snap: snapshot{status: enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED, started: started, now: started.Add(time.Hour),
				report: &workflows.NotebookReport{Sections: []workflows.SectionSummary{
					{SectionRef: workflows.SectionRef{ID: "a"}, Status: workflows.SectionDone, Pages: 5, Skipped: 5},
					{SectionRef: workflows.SectionRef{ID: "b"}, Status: workflows.SectionDone, Pages: 7}}}},
			pages: "12/12 pages",
			want:  totals{pages: 12, done: 12, unchanged: 5, secDone: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := totalsOf(&tc.snap, tc.scan)
			if got != tc.want {
				t.Errorf("totals\n got %+v\nwant %+v", got, tc.want)
			}
			if got.pagesText() != tc.pages {
				t.Errorf("pagesText %q, want %q", got.pagesText(), tc.pages)
			}
		})
	}
}

func TestLineAndBudget(t *testing.T) {
	st := &entity.State{Model: limiter.Snapshot{Users: []limiter.UserUsage{{User: "alice", Queued: [2]int{0, 4}, ScopeUsage: limiter.ScopeUsage{
		Windows:  []limiter.WindowUsage{{Per: time.Minute, Limit: 120, Effective: 120, Used: 96}, {Per: time.Hour, Limit: 400, Effective: 300, Used: 290}},
		InFlight: 3, EffectiveConcurrency: 5, Breaker: limiter.BreakerInfo{State: "open", Reason: "429 from Graph"}}}}}}
	snap := &snapshot{status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, user: "alice", limiter: st, progressOK: true,
		progress: workflows.NotebookProgress{Phase: "migrating"}}
	got := line(snap, totals{pages: 160, done: 52, remaining: 108, permits: 80, waited: 123 * time.Second, eta: 90 * time.Second})
	want := "52/160 pages done, 0 failed, 108 left · ETA 1m30s · permit waits 2m3s (80 permits) · " +
		"budget alice 96/120 per 1m, 290/300 per 1h (lowered from 400), 3/5 at once, breaker open (429 from Graph), 4 queued · migrating"
	if got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
	if b := budgetText(st, "bob"); b != "bob idle" {
		t.Errorf("budget of a user the limiter does not know: %q", b)
	}
	if b := bar(totals{pages: 4, done: 1}, 8); b != "[##......]" {
		t.Errorf("bar: %s", b)
	}
}

func TestShortDurAndTidy(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1m", time.Hour: "1h", 90 * time.Minute: "1h30m", 61 * time.Second: "1m1s", 0: "0s",
		1500 * time.Millisecond: "2s", 250 * time.Millisecond: "250ms", time.Second: "1s",
	} {
		if got := shortDur(d); got != want {
			t.Errorf("shortDur(%v) = %q, want %q", d, got, want)
		}
	}
	msg := `child workflow execution error (type: MigrateSection, workflowID: m/s, runID: r, initiatedEventID: 1, startedEventID: 2): ` +
		`listing the pages of section "N / S": activity error (type: ListPages, scheduledEventID: 13, startedEventID: 14, identity: w): ` +
		`onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist. (type: GraphNotFound, retryable: false): ` +
		`onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist. (type: Error, retryable: true) (wrapError)`
	want := `listing the pages of section "N / S": onenote: list pages: not found: HTTP 404 code 20102: The requested resource does not exist.`
	if got := tidy(msg); got != want {
		t.Errorf("tidy\n got %s\nwant %s", got, want)
	}
}

func TestListQuery(t *testing.T) {
	f := listFilter{user: `al"ice`, status: "waiting", open: true}
	want := `WorkflowType = "MigrateNotebook" AND NoteBridgeUser = "al\"ice" AND NoteBridgeStatus = "waiting" AND ExecutionStatus = "Running"`
	if got := f.query(); got != want {
		t.Errorf("query\n got %s\nwant %s", got, want)
	}
}

func TestNotSignedInIsRecognised(t *testing.T) {
	signIn := temporal.NewNonRetryableApplicationError(`user "bob" is not signed in to Microsoft`, failure.NotSignedIn, nil)
	conv := temporal.GetDefaultFailureConverter()
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		// A notebook stopped on a section's lost sign-in: the stop keeps
		// it as its cause.
		{"stop's cause", temporal.NewNonRetryableApplicationError("sign in, then start again", failure.Config, signIn),
			`run "starter login --user bob"`},
		// A scan whose listing failed, wrapped by the workflow.
		{"wrapped", fmt.Errorf("listing notebooks: %w", signIn), `run "starter login --user bob"`},
		{"another failure", temporal.NewNonRetryableApplicationError("notebook \"X\" not found", failure.Config, nil),
			`scan of bob failed: notebook "X" not found`},
	} {
		// What the starter gets: the error as it crossed the server.
		got := explain(conv.FailureToError(conv.ErrorToFailure(tc.err)), "bob", "scan of bob")
		if !strings.Contains(got.Error(), tc.want) {
			t.Errorf("%s: explain = %v, want %q in it", tc.name, got, tc.want)
		}
	}
}
