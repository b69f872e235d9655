package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/workflows"
)

const (
	testApp     = "starter-test-app"
	testQueue   = "starter-test"
	testProfile = "onenote-x60"
)

// harness is the shared stack (a dev server and both emulators), a token
// store and an in-process worker, driven through run as an operator
// would.
type harness struct {
	st        *stack.Stack
	tc        client.Client
	graph     *graph.Server
	graphURL  string // the emulator's root: its identity platform
	notion    *notionemu.Server
	notionURL string
	notebook  *graph.Notebook
	tokenDir  string
	keyFile   string
	// listing makes chosen sections' page listing fail.
	listing stack.ListingFaults
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, graph.GenSpec{Seed: 3, Owner: "alice", Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 3})
}

// newHarnessWith is newHarness with alice's notebooks generated from spec.
func newHarnessWith(t *testing.T, spec graph.GenSpec) *harness {
	t.Helper()
	st := stack.ForTest(t, stack.Graph(graph.Config{Seed: 1, TimeScale: 60, AppID: testApp}),
		stack.Notebooks("alice", spec),
		stack.Notion(notionemu.Config{Seed: 1, Rate: -1}))
	h := &harness{st: st, tc: st.C, graph: st.Graph, graphURL: st.GraphRoot, notion: st.Notion, notionURL: st.NotionURL,
		notebook: st.Notebooks["alice"][0]}
	dir := t.TempDir()
	h.tokenDir, h.keyFile = filepath.Join(dir, "tokens"), filepath.Join(dir, "config", "token.key")
	return h
}

// startWorker runs the migration workflows and activities in process, with
// Graph tokens from the token store that login fills.
func (h *harness) startWorker(t *testing.T) {
	t.Helper()
	key, err := auth.LoadKey(func(string) string { return "" }, h.keyFile)
	if err != nil {
		t.Fatal(err)
	}
	store, err := auth.Open(auth.Config{Dir: h.tokenDir, Key: key,
		Microsoft: auth.Microsoft{ClientID: testApp, Authority: h.graphURL}})
	if err != nil {
		t.Fatal(err)
	}
	ntok := h.st.NotionToken
	nc, err := notion.NewClient(notion.Config{BaseURL: h.notionURL, Token: notion.StaticToken(ntok),
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil), Logger: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{
		GraphBaseURL: h.st.GraphURL, GraphHTTP: onenote.NewHTTPClient(30 * time.Second),
		Tokens: storeTokens{store}, Notion: nc,
		StagingDir: t.TempDir(), Hooks: activities.Hooks{ListPagesSection: h.listing.ListPagesSection},
	})
	if err != nil {
		t.Fatal(err)
	}
	spec, err := limiter.Profile(testProfile)
	if err != nil {
		t.Fatal(err)
	}
	spec.Tuning.LeaseTTL = limiter.Duration(20 * time.Second) // a loaded machine
	if err := stack.StartLimiter(context.Background(), h.tc, testQueue, testApp, spec); err != nil {
		t.Fatal(err)
	}
	// The worker's own log is quiet: the failures these tests cause on
	// purpose would fill it.
	wf := workflows.New(testApp)
	wf.Limits = testProfile
	w, err := stack.StartInProcessWorker(h.st.Server.HostPort(), testQueue, wf, acts, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// storeTokens is the worker's adapter (internal/workerapp/tokens.go): a user who
// must sign in fails at once.
type storeTokens struct{ store *auth.Store }

func (s storeTokens) TokenSource(user string) (onenote.TokenSource, error) {
	ts := s.store.TokenSource(user)
	if _, err := ts.Token(context.Background()); errors.Is(err, auth.ErrNotSignedIn) || errors.Is(err, auth.ErrInvalidUser) {
		return nil, err
	}
	return ts, nil
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// cmd runs a starter command against the harness's Temporal.
func (h *harness) cmd(t *testing.T, name string, args ...string) result {
	t.Helper()
	full := []string{name, "-temporal-address", h.st.Server.HostPort(), "-namespace", "default"}
	if name == "scan" || name == "migrate" || name == "verify" {
		full = append(full, "-task-queue", testQueue)
	}
	full = append(full, args...)
	return runStarter(t, full)
}

// runStarter runs the starter with the command line full, logs what it
// printed, and gives its exit code and output.
func runStarter(t *testing.T, full []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut syncBuffer
	code := run(ctx, full, &out, &errOut)
	r := result{code, out.String(), errOut.String()}
	t.Logf("starter %s\n%v", strings.Join(full, " "), r)
	return r
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// login signs alice in with `starter login`, approving the code on the
// emulator's verification page as a person would, while login polls.
func (h *harness) login(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut syncBuffer
	approved := make(chan error, 1)
	go func() {
		re := regexp.MustCompile(`open the page (\S+) and enter the code (\S+) `)
		for ctx.Err() == nil {
			if m := re.FindStringSubmatch(out.String()); m != nil {
				resp, err := http.PostForm(m[1], url.Values{"user_code": {m[2]}, "user": {"alice"}})
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if !strings.Contains(string(body), "Signed in as alice") {
						err = fmt.Errorf("verification page answered %s: %s", resp.Status, body)
					}
				}
				approved <- err
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		approved <- errors.New("login never showed a code")
	}()
	code := run(ctx, []string{"login", "-user", "alice", "-app-id", testApp, "-authority", h.graphURL,
		"-token-dir", h.tokenDir, "-token-key-file", h.keyFile, "-create-key", "-poll-interval", "1s"}, &out, &errOut)
	if err := <-approved; err != nil {
		t.Errorf("approving the code: %v", err)
	}
	return result{code, out.String(), errOut.String()}
}

// waitPhase waits until the migration's progress says it waits for an
// operator.
func (h *harness) waitWaiting(t *testing.T, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		v, err := h.tc.QueryWorkflow(ctx, id, "", workflows.QueryProgress)
		var p workflows.NotebookProgress
		if err == nil && v.Get(&p) == nil && strings.HasPrefix(p.Phase, "waiting") {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s never waited for an operator: %+v, %v", id, p, err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestCommandsEndToEnd drives every command against a dev server, both
// emulators and an in-process worker: login through the emulator's
// device-code endpoints, scan, migrate and follow, status, list, a failed
// section retried by name and by --all, finish, and the errors a person
// gets for a user who is not signed in and a migration that does not
// exist.
func TestCommandsEndToEnd(t *testing.T) {
	h := newHarness(t)
	sections := h.notebook.Sections
	id := workflows.NotebookWorkflowID("alice", h.notebook.ID)
	root := h.notion.RootPageID()

	t.Run("login", func(t *testing.T) {
		r := h.login(t)
		if r.code != 0 || !strings.Contains(r.stdout, "Signed in alice") || !strings.Contains(r.stdout, "Created the token key file") {
			t.Fatalf("login:\n%v", r)
		}
		raw, err := os.ReadFile(filepath.Join(h.tokenDir, "alice.json.enc"))
		if err != nil {
			t.Fatalf("no token file: %v", err)
		}
		key, err := auth.LoadKey(func(string) string { return "" }, h.keyFile)
		if err != nil {
			t.Fatal(err)
		}
		store, err := auth.Open(auth.Config{Dir: h.tokenDir, Key: key, Microsoft: auth.Microsoft{ClientID: testApp, Authority: h.graphURL}})
		if err != nil {
			t.Fatal(err)
		}
		access, err := store.TokenSource("alice").Token(context.Background())
		if err != nil {
			t.Fatalf("the stored sign-in gives no token: %v", err)
		}
		// The emulator's access tokens start "nbg.", its refresh tokens "nbr.".
		for _, secret := range []string{access, "nbg.", "nbr.", "access_token", "refresh_token"} {
			if bytes.Contains(raw, []byte(secret)) {
				t.Errorf("the token file holds %q in plain text", secret)
			}
		}
		for path, want := range map[string]os.FileMode{filepath.Join(h.tokenDir, "alice.json.enc"): 0o600, h.tokenDir: 0o700, h.keyFile: 0o600} {
			if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, %v; want %04o", path, fi.Mode().Perm(), err, want)
			}
		}
		// A second login reuses the key file.
		if r := h.login(t); r.code != 0 || strings.Contains(r.stdout, "Created the token key file") {
			t.Errorf("second login:\n%v", r)
		}
	})
	if t.Failed() {
		return
	}
	h.startWorker(t)

	t.Run("scan", func(t *testing.T) {
		r := h.cmd(t, "scan", "-user", "alice", "-limits", testProfile)
		if r.code != 0 {
			t.Fatalf("scan:\n%v", r)
		}
		for _, want := range []string{h.notebook.DisplayName, h.notebook.ID, sections[0].DisplayName, sections[1].DisplayName,
			"total: 2 sections, 6 pages", "estimate: about", "starter migrate --user alice",
			// 6 pages, one resource each assumed: 5 images (0.8 a page,
			// rounded up) and 1 attachment.
			"--skip-images       saves 5 Graph requests", "--skip-attachments  saves 1 Graph request,", "--skip-ink          saves no Graph request",
			// The worker was given no plan: the readiness check says so.
			"Notion readiness: ready.", "Give the worker -notion-plan"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("scan output lacks %q:\n%v", want, r)
			}
		}
		if last := h.cmd(t, "scan", "-user", "alice", "-last"); last.code != 0 || last.stdout != r.stdout {
			t.Errorf("scan -last differs from the scan:\n%v", last)
		}
	})

	t.Run("not signed in", func(t *testing.T) {
		r := h.cmd(t, "scan", "-user", "bob")
		if r.code != 1 || !strings.Contains(r.stderr, `run "starter login --user bob"`) {
			t.Errorf("scan of a user who never signed in:\n%v", r)
		}
		r = h.cmd(t, "migrate", "-user", "bob", "-notebook", "Work", "-notion-parent", root)
		if r.code != 1 || !strings.Contains(r.stderr, `run "starter login --user bob"`) {
			t.Errorf("migrate for a user who never signed in:\n%v", r)
		}
	})

	t.Run("migrate follows to the end", func(t *testing.T) {
		r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.DisplayName, "-notion-parent", root,
			"-limits", testProfile, "-interval", "200ms")
		if r.code != 0 {
			t.Fatalf("migrate:\n%v", r)
		}
		for _, want := range []string{"Started " + id, "6/6 pages done", "completed: Notebook", "6 written"} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("migrate output lacks %q:\n%v", want, r)
			}
		}
		if strings.Contains(r.stdout, "\r") {
			t.Errorf("output that is not a terminal must be plain lines:\n%q", r.stdout)
		}
	})

	t.Run("status --follow leaves one line in an 80-column tmux pane", func(t *testing.T) {
		// A section whose listing fails makes the migration wait, redrawn
		// many times, until it is retried.
		h.listing.Set(sections[1].ID, true)
		defer h.listing.Set(sections[1].ID, false)
		r := h.cmd(t, "migrate", "--user", "alice", "--notebook", h.notebook.ID, "--notion-parent", root,
			"--limits", testProfile, "--detach")
		if r.code != 0 {
			t.Fatalf("migrate --detach:\n%v", r)
		}
		h.waitWaiting(t, id)
		rows := h.followInTmux(t, id, 80, "waits for you", func() {
			time.Sleep(time.Second) // redraws while it waits
			h.listing.Set(sections[1].ID, false)
			if r := h.cmd(t, "retry", "-w", id, "--all"); r.code != 0 {
				t.Errorf("retry --all:\n%v", r)
			}
		})
		// One progress row before the waiting message, one after it.
		assertProgressRows(t, rows, 80, 2)
	})

	t.Run("status and list of a finished migration", func(t *testing.T) {
		r := h.cmd(t, "status", "-user", "alice", "-notebook", h.notebook.DisplayName)
		for _, want := range []string{"Migration " + id + ": completed", "6/6 pages done", "2 done, 0 running, 0 pending, 0 failed", sections[1].ID} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("status lacks %q:\n%v", want, r)
			}
		}
		deadline := time.Now().Add(30 * time.Second)
		for {
			r = h.cmd(t, "list", "-user", "alice")
			if strings.Contains(r.stdout, id) && strings.Contains(r.stdout, "done") || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond) // visibility lags a little
		}
		if r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "completed") {
			t.Errorf("list:\n%v", r)
		}
		if r := h.cmd(t, "list", "-user", "nobody"); r.code != 0 || !strings.Contains(r.stdout, "No migrations match") {
			t.Errorf("list of nobody:\n%v", r)
		}
	})

	t.Run("json", func(t *testing.T) {
		var st statusJSON
		decodeJSON(t, h.cmd(t, "status", "--user", "alice", "--notebook", h.notebook.DisplayName, "--json"), &st)
		if st.Type != "status" || st.WorkflowID != id || st.State != "completed" || st.Pages.Done != 6 || st.Pages.Total != 6 ||
			st.SectionCounts.Done != 2 || len(st.Sections) != 2 || st.Report == nil || st.ETASeconds != nil || st.ElapsedSeconds <= 0 {
			t.Errorf("status --json: %+v", st)
		}
		var rows []migrationJSON
		decodeJSON(t, h.cmd(t, "list", "--user", "alice", "--json"), &rows)
		if len(rows) == 0 || rows[0].WorkflowID != id || rows[0].State != "completed" || rows[0].StartTime.IsZero() {
			t.Errorf("list --json: %+v", rows)
		}
		var none []migrationJSON
		if decodeJSON(t, h.cmd(t, "list", "--user", "nobody", "--json"), &none); len(none) != 0 {
			t.Errorf("list --json of nobody: %+v", none)
		}
		var scan scanJSON
		decodeJSON(t, h.cmd(t, "scan", "--user", "alice", "--last", "--json"), &scan)
		if len(scan.Notebooks) != 1 || scan.Notebooks[0].ID != h.notebook.ID || scan.Notebooks[0].ETASeconds < 0 || len(scan.Notebooks[0].Sections) != 2 ||
			!strings.HasPrefix(scan.Notebooks[0].Readiness, "Notion readiness: ready.") {
			t.Errorf("scan --json: %+v", scan)
		}
		// Durations are seconds, in keys that say so: no nanoseconds.
		raw := h.cmd(t, "scan", "--user", "alice", "--last", "--json").stdout
		if strings.Contains(raw, `"eta":`) || !strings.Contains(raw, `"etaSeconds":`) {
			t.Errorf("scan --json keys:\n%s", raw)
		}
	})

	t.Run("retry a failed section by name, then all", func(t *testing.T) {
		h.listing.Set(sections[1].ID, true)
		defer h.listing.Set(sections[1].ID, false)
		r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.ID, "-notion-parent", root, "-limits", testProfile, "-detach")
		if r.code != 0 || !strings.Contains(r.stdout, "starter status -w "+shellQuote(id)+" --follow") {
			t.Fatalf("migrate -detach:\n%v", r)
		}
		h.waitWaiting(t, id)
		// Migrating it again while it waits starts nothing, and says so.
		r = h.cmd(t, "migrate", "--user", "alice", "--notebook", h.notebook.ID, "--notion-parent", root, "--page-parallelism", "1", "--detach")
		if r.code != 1 || !strings.Contains(r.stderr, "is already running") || !strings.Contains(r.stderr, "none of these settings were applied") {
			t.Errorf("migrate of a running migration:\n%v", r)
		}
		r = h.cmd(t, "status", "-w", id)
		for _, want := range []string{"waits for you", "starter retry -w " + shellQuote(id), "failed: " + h.notebook.DisplayName + " / " + sections[1].DisplayName} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("status of a waiting migration lacks %q:\n%v", want, r)
			}
		}
		for _, tc := range []struct{ args, want string }{
			{"-section nope", "no section \"nope\" in this notebook: the sections that can be retried are"},
			{"-section " + sections[0].ID, "is done, nothing to retry"},
			{"", "give either --section S or --all"},
		} {
			r := h.cmd(t, "retry", append([]string{"-w", id}, strings.Fields(tc.args)...)...)
			if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("retry %s: want an error saying %q:\n%v", tc.args, tc.want, r)
			}
		}
		// Still broken: retry-failed runs it again and it fails again.
		if r := h.cmd(t, "retry", "-w", id, "-all"); r.code != 0 || !strings.Contains(r.stdout, "1 failed or skipped sections run again") {
			t.Fatalf("retry -all:\n%v", r)
		}
		h.waitWaiting(t, id)
		h.listing.Set(sections[1].ID, false)
		var answer answerJSON
		decodeJSON(t, h.cmd(t, "retry", "-w", id, "-section", sections[1].DisplayName, "--json"), &answer)
		if answer.WorkflowID != id || answer.Section != sections[1].ID || !strings.Contains(answer.Answer, "runs again") {
			t.Fatalf("retry -section --json: %+v", answer)
		}
		r = h.cmd(t, "status", "-w", id, "-follow", "-interval", "200ms")
		if r.code != 0 || !strings.Contains(r.stdout, "completed: Notebook") || !strings.Contains(r.stdout, "0 failed") {
			t.Errorf("status -follow after the retry:\n%v", r)
		}
	})

	t.Run("finish a waiting migration", func(t *testing.T) {
		h.listing.Set(sections[0].ID, true)
		defer h.listing.Set(sections[0].ID, false)
		if r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.ID, "-notion-parent", root, "-limits", testProfile, "-detach"); r.code != 0 {
			t.Fatalf("migrate -detach:\n%v", r)
		}
		h.waitWaiting(t, id)
		r := h.cmd(t, "finish", "-user", "alice", "-notebook", h.notebook.ID)
		if r.code != 0 || !strings.Contains(r.stdout, "finishing: the report lists 1 failed") || !strings.Contains(r.stdout, "1 sections failed") ||
			!strings.Contains(r.stdout, "failed: "+h.notebook.DisplayName+" / "+sections[0].DisplayName) {
			t.Errorf("finish:\n%v", r)
		}
		desc, err := h.tc.DescribeWorkflow(context.Background(), id, "")
		if err != nil {
			t.Errorf("describe after finish: %v", err)
		} else if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Errorf("after finish the migration is %v", st)
		}
		if r := h.cmd(t, "retry", "-w", id, "-all"); r.code != 1 || !strings.Contains(r.stderr, "nothing to retry") {
			t.Errorf("retry of a finished migration:\n%v", r)
		}
	})

	t.Run("a stopped start after the completed run: the completed run is shown", func(t *testing.T) {
		ctx := context.Background()
		done, err := h.tc.DescribeWorkflow(ctx, id, "")
		if err != nil || done.RawResponse.GetWorkflowExecutionInfo().GetStatus() != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
			t.Fatalf("the migration before is not completed: %v", err)
		}
		doneRun := done.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		h.listing.Set(sections[0].ID, true)
		defer h.listing.Set(sections[0].ID, false)
		if r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.ID, "-notion-parent", root, "-limits", testProfile, "-detach"); r.code != 0 {
			t.Fatalf("migrate -detach:\n%v", r)
		}
		if err := h.tc.TerminateWorkflow(ctx, id, "", "a start by mistake"); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"status", "-w", id}, {"status", "-user", "alice", "-notebook", h.notebook.ID}, {"status", "-user", "alice"}} {
			r := h.cmd(t, args[0], args[1:]...)
			if r.code != 0 || !strings.Contains(r.stdout, "Migration "+id+" run "+doneRun+": completed") ||
				!strings.Contains(r.stderr, "latest completed migration") || !strings.Contains(r.stderr, "terminated") && args[1] != "-user" {
				t.Errorf("%s: want the completed run %s, said so:\n%v", strings.Join(args, " "), doneRun, r)
			}
		}
		if r := h.cmd(t, "retry", "-w", id, "-all"); r.code != 1 || !strings.Contains(r.stderr, "is completed, so there is nothing to retry") {
			t.Errorf("retry picks the completed run:\n%v", r)
		}
		var st statusJSON
		decodeJSON(t, h.cmd(t, "status", "-w", id, "-json"), &st)
		if st.RunID != doneRun || st.State != "completed" {
			t.Errorf("status -json: run %s %s, want %s completed", st.RunID, st.State, doneRun)
		}
		latest, _ := h.tc.DescribeWorkflow(ctx, id, "")
		stopped := latest.RawResponse.GetWorkflowExecutionInfo().GetExecution().GetRunId()
		if r := h.cmd(t, "status", "-w", id, "-run-id", stopped); r.code != 0 || !strings.Contains(r.stdout, "run "+stopped+": terminated") {
			t.Errorf("status -run-id of the stopped run:\n%v", r)
		}
	})

	t.Run("unknown migrations say how to list them", func(t *testing.T) {
		r := h.cmd(t, "status", "-w", "migrate/alice/nope")
		if r.code != 1 || !strings.Contains(r.stderr, "starter list") {
			t.Errorf("status of an unknown workflow:\n%v", r)
		}
		r = h.cmd(t, "finish", "-user", "alice", "-notebook", "No such notebook")
		if r.code != 1 || !strings.Contains(r.stderr, "starter list --user alice") {
			t.Errorf("finish of an unknown notebook:\n%v", r)
		}
		r = h.cmd(t, "migrate", "-user", "alice", "-notebook", "No such notebook", "-notion-parent", root, "-detach")
		if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("%q (ID %s)", h.notebook.DisplayName, h.notebook.ID)) {
			t.Errorf("migrate of an unknown notebook must list the notebooks:\n%v", r)
		}
	})

	t.Run("no token in any history", func(t *testing.T) {
		ids := []string{id, scanWorkflowID("alice"), workflows.SectionWorkflowID("alice", h.notebook.ID, sections[0].ID)}
		for _, wid := range ids {
			iter := h.tc.GetWorkflowHistory(context.Background(), wid, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for iter.HasNext() {
				ev, err := iter.Next()
				if err != nil {
					t.Fatal(err)
				}
				if s := ev.String(); strings.Contains(s, "nbg.") || strings.Contains(s, "nbr.") {
					t.Errorf("history of %s holds a Graph token: event %d", wid, ev.GetEventId())
				}
			}
		}
	})
}

// decodeJSON decodes a command's stdout, which must be all JSON, into v.
func decodeJSON(t *testing.T, r result, v any) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("want exit 0:\n%v", r)
	}
	dec := json.NewDecoder(strings.NewReader(r.stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil || dec.More() {
		t.Fatalf("stdout is not one JSON value of %T (%v):\n%s", v, err, r.stdout)
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
