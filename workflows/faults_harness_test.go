package workflows_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/workflows"
)

const (
	faultUser  = "fay"
	faultApp   = "fault-app"
	faultQueue = "notebridge-faults"
)

// faultSpec is the notebook every fault case migrates: 2 sections of 4
// pages with subpages, an image and an attachment each, ink on every
// second page, links.
func faultSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 21, Owner: faultUser, Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 4,
		SubpageLevels: 1, ImagesPerPage: 1, AttachmentsPerPage: 1, InkEvery: 2, LinksPerPage: 1, ImageBytes: 1024, AttachmentBytes: 2048}
}

// bigSpec is a notebook of one section of 105 pages without resources,
// for listing more than one $top window. (Its owner only seeds its IDs,
// which would otherwise be those of faultSpec's notebook.)
func bigSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 22, Owner: faultUser + "-big", Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 105}
}

// faultHarness is one dev server, a Graph and a Notion emulator, a real
// token store signed in through the Graph emulator's identity endpoints,
// and a worker whose logs are captured, shared by the fault and bad-input
// cases.
type faultHarness struct {
	st        *stack.Stack
	c         client.Client
	graph     *graph.Server
	ref       *graph.Server // the same data, unlimited, for expectations
	refURL    string
	refTok    string
	notion    *notionemu.Server
	root      string
	notionTok string
	nb, big   *graph.Notebook
	profile   string
	graphURL  string
	notionURL string
	logs      *logBuffer
	logger    *slog.Logger
	store     *auth.Store
	acts      *activities.Activities
	workers   []worker.Worker
	mu        sync.Mutex
	unsent    int // permit units granted but never sent, over every run
	gone      map[string]bool
}

// logBuffer collects log output from many goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// teeHandler sends every record to all its handlers.
type teeHandler []slog.Handler

func (t teeHandler) Enabled(ctx context.Context, l slog.Level) bool {
	for _, h := range t {
		if h.Enabled(ctx, l) {
			return true
		}
	}
	return false
}

func (t teeHandler) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range t {
		if h.Enabled(ctx, r.Level) {
			if err := h.Handle(ctx, r.Clone()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t teeHandler) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (t teeHandler) WithGroup(name string) slog.Handler {
	out := make(teeHandler, len(t))
	for i, h := range t {
		out[i] = h.WithGroup(name)
	}
	return out
}

// capturingLogger logs everything (debug and up) into buf and warnings
// to stderr.
func capturingLogger(buf *logBuffer) *slog.Logger {
	return slog.New(teeHandler{
		slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug}),
		slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}),
	})
}

// lazyTokens hands the token store's sources to the activities.
type lazyTokens struct{ s *auth.Store }

func (l lazyTokens) TokenSource(user string) (onenote.TokenSource, error) {
	return l.s.TokenSource(user), nil
}

func newFaultHarness(t *testing.T) *faultHarness {
	t.Helper()
	logs := &logBuffer{}
	logger := capturingLogger(logs)
	// Access tokens live 20 s: the store refreshes them during the run.
	st := stack.ForTest(t,
		stack.Graph(graph.Config{Seed: 3, TimeScale: e2eScale, AppID: faultApp,
			ScopeHeader: graph.ScopeHeaderSimple, PercentageHeader: true, TokenTTL: 20 * time.Second}),
		stack.Notebooks(faultUser, faultSpec()), stack.Notebooks(faultUser, bigSpec()),
		stack.Notion(notionemu.Config{Seed: 3, Rate: -1, Faults: notionemu.Faults{SlowDelay: 300 * time.Millisecond}}),
		stack.SignIn(stack.SignInOptions{Dir: t.TempDir(), App: faultApp, PollInterval: time.Second,
			RefreshMargin: 5 * time.Second, Logger: logger}))
	h := &faultHarness{st: st, c: st.C, profile: stack.Limits(e2eScale), logs: logs, logger: logger, gone: map[string]bool{},
		graph: st.Graph, notion: st.Notion, root: st.Root, notionTok: st.NotionToken,
		graphURL: st.GraphURL, notionURL: st.NotionURL, store: st.SignIn.Store}
	h.nb, h.big = st.Notebooks[faultUser][0], st.Notebooks[faultUser][1]
	h.ref = graph.NewServer(graph.Config{Seed: 3, Limits: graph.UnlimitedLimits()})
	for _, spec := range []graph.GenSpec{faultSpec(), bigSpec()} {
		h.ref.AddNotebooks(faultUser, graph.Generate(spec)...)
	}
	rts := httptest.NewServer(h.ref)
	t.Cleanup(rts.Close)
	h.refURL, h.refTok = rts.URL+"/v1.0", h.ref.IssueToken(faultUser, []string{"Notes.Read"}, time.Hour)

	tok := notion.StaticToken(h.notionTok)
	nc, err := notion.NewClient(notion.Config{BaseURL: h.notionURL, Token: tok,
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil), Logger: h.logger,
		Retry: notion.RetryPolicy{MaxAttempts: 10, BaseDelay: 50 * time.Millisecond, MaxDelay: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	h.acts, err = activities.New(activities.Config{
		GraphBaseURL: h.graphURL, GraphHTTP: onenote.NewHTTPClient(3 * time.Second),
		Tokens: lazyTokens{h.store}, Notion: nc, StagingDir: t.TempDir(), Signals: h.c,
	})
	if err != nil {
		t.Fatal(err)
	}
	startLimiter(t, h.c, faultQueue, faultApp, h.profile)
	h.startWorker(t)
	return h
}

// startWorker starts one more worker of the harness (with sessions) and
// returns it; the harness stops it at the end.
func (h *faultHarness) startWorker(t *testing.T) worker.Worker {
	t.Helper()
	return h.startWorkerWith(t, h.acts)
}

// killable is a transport that fails every request once killed, as if
// its machine were gone.
type killable struct {
	next http.RoundTripper
	dead atomic.Bool
}

func (k *killable) RoundTrip(r *http.Request) (*http.Response, error) {
	if k.dead.Load() {
		return nil, errors.New("the worker's machine is gone")
	}
	return k.next.RoundTrip(r)
}

// killableActivities are activities of their own (their own staging
// directory, as on another machine) whose Graph and Notion requests all
// fail once kill is called.
func (h *faultHarness) killableActivities(t *testing.T) (acts *activities.Activities, kill func()) {
	t.Helper()
	k := &killable{next: http.DefaultTransport.(*http.Transport).Clone()}
	nc, err := notion.NewClient(notion.Config{BaseURL: h.notionURL, Token: notion.StaticToken(h.notionTok),
		HTTPClient: &http.Client{Transport: k}, Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil),
		Logger: h.logger, Retry: notion.RetryPolicy{MaxAttempts: 3, BaseDelay: 50 * time.Millisecond, MaxDelay: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	acts, err = activities.New(activities.Config{GraphBaseURL: h.graphURL,
		GraphHTTP: &http.Client{Transport: k, Timeout: 3 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}},
		Tokens: lazyTokens{h.store}, Notion: nc, StagingDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return acts, func() { k.dead.Store(true) }
}

// startWorkerWith starts a worker running acts.
func (h *faultHarness) startWorkerWith(t *testing.T, acts *activities.Activities) worker.Worker {
	t.Helper()
	w, err := stack.StartInProcessWorker(h.st.Server.HostPort(), faultQueue, workflows.New(faultApp), acts, h.logger)
	if err != nil {
		t.Fatal(err)
	}
	h.workers = append(h.workers, w)
	t.Cleanup(w.Stop)
	return w
}

func (h *faultHarness) input(nb *graph.Notebook, parent string) workflows.MigrateInput {
	return workflows.MigrateInput{User: faultUser, Notebook: nb.ID, NotionParent: parent, Limits: h.profile,
		SectionParallelism: 2, PageParallelism: 3}
}

// parent makes a fresh Notion page to migrate under.
func (h *faultHarness) parent(t *testing.T, title string) string {
	t.Helper()
	id, err := h.notion.AddPage(h.root, title, true)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// start starts a migration of in (any JSON-able value).
func (h *faultHarness) start(t *testing.T, id string, in any) client.WorkflowRun {
	t.Helper()
	run, err := h.c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: faultQueue},
		workflows.MigrateNotebookName, in)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// migrate runs a migration to its end and returns its report or error.
func (h *faultHarness) migrate(t *testing.T, in any, nbID string) (workflows.NotebookReport, error) {
	t.Helper()
	run := h.start(t, workflows.NotebookWorkflowID(faultUser, nbID), in)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var rep workflows.NotebookReport
	err := run.Get(ctx, &rep)
	if ctx.Err() != nil {
		// Still running (waiting for a retry, say): end it, so the next
		// case does not wait on it.
		t.Errorf("the migration did not end in time; its progress: %s", h.progress(run))
		_ = h.c.TerminateWorkflow(context.Background(), run.GetID(), run.GetRunID(), "test case timed out")
	}
	h.mu.Lock()
	h.unsent += rep.UnsentUnits
	h.mu.Unlock()
	return rep, err
}

// progress is a migration's progress query answer, as text.
func (h *faultHarness) progress(run client.WorkflowRun) string {
	p, err := stack.NotebookProgress(context.Background(), h.c, run.GetID())
	if err != nil {
		return err.Error()
	}
	b, _ := json.Marshal(p)
	return string(b)
}

// expected is what the notebook's pages convert to now (pages deleted in
// OneNote left out).
func (h *faultHarness) expected(t *testing.T) map[string]string {
	t.Helper()
	return expectedFrom(t, h.refURL, h.refTok, emuSections(h.nb), h.gone)
}

// checkMigrated compares what Notion holds under parent with the source,
// page for page and block for block.
func (h *faultHarness) checkMigrated(t *testing.T, parent string, want map[string]string) {
	t.Helper()
	rows, dup := exportedRowsUnder(t, h.notion.Export(), parent, h.nb.DisplayName)
	if len(dup) > 0 {
		t.Errorf("pages written more than once: %v", dup)
	}
	bad := 0
	for id, sig := range want {
		got, ok := rows[id]
		switch {
		case !ok:
			t.Errorf("page %s is not in Notion", id)
		case got.Signature != sig:
			if bad++; bad <= 2 {
				t.Errorf("page %s differs from its OneNote content:\n got %s\nwant %s", id, clipSig(got.Signature), clipSig(sig))
			}
		}
	}
	for id := range rows {
		if _, ok := want[id]; !ok {
			t.Errorf("Notion holds page %s, which is not in the source", id)
		}
	}
}

// checkGraph asserts the Graph emulator saw no window over a limit and as
// many requests as the limiter granted permit units, less those granted
// for resource requests never sent.
func (h *faultHarness) checkGraph(t *testing.T) {
	t.Helper()
	if v := h.graph.Violations(); len(v) != 0 {
		t.Errorf("the Graph emulator found %d limit violations, first: %+v", len(v), v[0])
	}
	st, err := stack.LimiterState(context.Background(), h.c, faultApp)
	if err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	unsent := h.unsent
	h.mu.Unlock()
	// A request with an expired token is refused before it is counted
	// for a user: add those (the harness has one user).
	gs := h.graph.Stats()
	// The limiter hears of every unit never sent; the reports count those
	// of every section run, failed ones too, but not the grants that came
	// for a page no longer waiting.
	got, units, told := gs.Users[faultUser].Requests+gs.Unauthorized, int64(st.Stats.Units[faultUser]), st.Stats.Unsent[faultUser]
	if got != units-int64(told) {
		t.Errorf("Graph received %d requests from %s; the limiter granted %d permit units and was told %d of them were never sent",
			got, faultUser, units, told)
	}
	if unsent > told {
		t.Errorf("the reports count %d units never sent; the limiter was told of %d", unsent, told)
	}
	t.Logf("units never sent: the reports count %d, the limiter was told of %d", unsent, told)
}

// secrets are every token of the run: the Graph access and refresh tokens
// the emulator issued and the Notion token.
func (h *faultHarness) secrets() []string {
	return append(h.graph.IssuedSecrets(), h.notionTok)
}

// checkNoSecrets searches the captured logs, every workflow history and
// the given error texts for any token.
func (h *faultHarness) checkNoSecrets(t *testing.T, texts ...string) {
	t.Helper()
	logs := h.logs.String()
	secrets := h.secrets()
	if len(secrets) < 3 || len(logs) == 0 {
		t.Fatalf("nothing to search: %d secrets, %d bytes of logs", len(secrets), len(logs))
	}
	for _, s := range secrets {
		if strings.Contains(logs, s) {
			t.Errorf("a token (%s…) appears in the worker's logs", s[:6])
		}
		for _, x := range texts {
			if strings.Contains(x, s) {
				t.Errorf("a token (%s…) appears in an error message", s[:6])
			}
		}
	}
	hh := &harness{c: h.c}
	n := 0
	forEachHistory(t, hh, func(id string, js []byte) {
		n++
		for _, s := range secrets {
			if bytes.Contains(js, []byte(s)) {
				t.Errorf("the history of %s holds a token (%s…)", id, s[:6])
			}
		}
	})
	t.Logf("searched %d bytes of logs, %d histories and %d error messages for %d tokens", len(logs), n, len(texts), len(secrets))
}

// rawInput is a workflow input as an operator typed it.
func rawInput(s string) json.RawMessage { return json.RawMessage(s) }
