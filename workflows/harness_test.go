package workflows_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/workflows"
)

const (
	e2eUser  = "alice"
	e2eApp   = "e2e-app"
	e2eQueue = "notebridge-e2e"
	// e2eScale runs the OneNote limits 240 times faster: an hour lasts
	// 15 s. The Graph emulator and the limiter use the same profile.
	e2eScale = 240
)

// staticTokens is the test's token store: one Graph token per user.
type staticTokens map[string]string

func (s staticTokens) TokenSource(user string) (onenote.TokenSource, error) {
	tok, ok := s[user]
	if !ok {
		return nil, fmt.Errorf("user %q: not signed in", user)
	}
	return onenote.TokenSourceFunc(func(context.Context) (string, error) { return tok, nil }), nil
}

// harness is a dev server, both emulators and an in-process worker.
type harness struct {
	srv        *devserver.Server
	c          client.Client
	graph      *graph.Server
	notion     *notionemu.Server
	root       string
	graphTok   string
	notionTok  string
	notebooks  []*graph.Notebook
	graphURL   string
	profile    string
	logs       *logBuffer
	mu         sync.Mutex
	failListed map[string]bool // sections whose listing is made to fail
}

func (h *harness) listSection(id string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failListed[id] {
		return id + "-missing"
	}
	return id
}

func (h *harness) setListingFault(section string, on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.failListed[section] = on
}

func genSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 7, Owner: e2eUser, Notebooks: 1, GroupDepth: 2, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: 60, SubpageLevels: 2,
		ImagesPerPage: 1, AttachmentsPerPage: 1, PrintoutEvery: 10, LinksPerPage: 1,
		ImageBytes: 1024, AttachmentBytes: 2048}
}

// harnessOptions vary the harness: the generated data, and how the Graph
// emulator is served.
type harnessOptions struct {
	spec graph.GenSpec
	// tls serves the Graph emulator over HTTPS, as real Graph is.
	tls bool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, harnessOptions{spec: genSpec()})
}

func newHarnessWith(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	srv := devserver.ForTest(t, devserver.Options{SearchAttributes: workflows.SearchAttributes()})
	h := &harness{srv: srv, c: srv.Client(), failListed: map[string]bool{}, profile: fmt.Sprintf("onenote-x%d", e2eScale),
		logs: &logBuffer{}}
	logger := capturingLogger(h.logs)

	h.graph = graph.NewServer(graph.Config{Seed: 1, TimeScale: e2eScale, AppID: e2eApp,
		ScopeHeader: graph.ScopeHeaderSimple, PercentageHeader: true})
	h.notebooks = graph.Generate(opts.spec)
	h.graph.AddNotebooks(e2eUser, h.notebooks...)
	graphHTTP := onenote.NewHTTPClient(30 * time.Second)
	var gts *httptest.Server
	if opts.tls {
		var cert *graph.TLSCert
		gts, cert = graph.NewTLSTestServer(t, h.graph)
		graphHTTP.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: cert.Pool()}
	} else {
		gts = httptest.NewServer(h.graph)
		t.Cleanup(gts.Close)
	}
	h.graphURL = gts.URL + "/v1.0"
	h.graphTok = h.graph.IssueToken(e2eUser, []string{"Notes.Read"}, 2*time.Hour)

	h.notion = notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	nts := httptest.NewServer(h.notion)
	t.Cleanup(nts.Close)
	h.notionTok = h.notion.IssueToken()
	h.root = h.notion.RootPageID()

	tok := notion.StaticToken(h.notionTok)
	nc, err := notion.NewClient(notion.Config{BaseURL: nts.URL, Token: tok,
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{
		GraphBaseURL: h.graphURL, GraphHTTP: graphHTTP,
		Tokens: staticTokens{e2eUser: h.graphTok}, Notion: nc,
		StagingDir: t.TempDir(), Hooks: activities.Hooks{ListPagesSection: h.listSection},
	})
	if err != nil {
		t.Fatal(err)
	}
	h.startLimiter(t)
	// The worker's logs are captured (to search them for tokens);
	// warnings and errors also go to stderr.
	wc, err := client.Dial(client.Options{HostPort: srv.HostPort(), Namespace: "default",
		Logger: tlog.NewStructuredLogger(logger)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(wc.Close)
	w := worker.New(wc, e2eQueue, worker.Options{EnableSessionWorker: true})
	wf := workflows.New(e2eApp)
	wf.Register(w)
	acts.Register(w)
	entity.Register(w, h.c)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return h
}

// startLimiter starts the limiter with the test's profile and a lease TTL
// long enough for a loaded machine (the scaled default is 0.5 s).
func (h *harness) startLimiter(t *testing.T) {
	spec, err := limiter.Profile(h.profile)
	if err != nil {
		t.Fatal(err)
	}
	spec.Tuning.LeaseTTL = limiter.Duration(20 * time.Second)
	id := entity.WorkflowID(workflows.LimiterResource, e2eApp)
	_, err = h.c.SignalWithStartWorkflow(context.Background(), id, entity.SignalRequest, entity.Message{},
		client.StartWorkflowOptions{ID: id, TaskQueue: e2eQueue}, entity.WorkflowName,
		entity.Input{Resource: workflows.LimiterResource, App: e2eApp, Spec: &spec})
	if err != nil {
		t.Fatal(err)
	}
}

func (h *harness) limiterState(t *testing.T) entity.State {
	t.Helper()
	v, err := h.c.QueryWorkflow(context.Background(), entity.WorkflowID(workflows.LimiterResource, e2eApp), "", entity.QueryState)
	if err != nil {
		t.Fatalf("query limiter: %v", err)
	}
	var st entity.State
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// checkPermits asserts the Graph emulator saw no violation and as many
// requests from the user as the limiter granted permit units.
func (h *harness) checkPermits(t *testing.T) int64 {
	t.Helper()
	return h.checkPermitsUnsent(t, 0)
}

// checkPermitsUnsent is checkPermits when unsent of the units granted were
// never sent (resource downloads stopped early, e.g. by a throttle; the
// reports' UnsentUnits) and given back to the limiter.
func (h *harness) checkPermitsUnsent(t *testing.T, unsent int) int64 {
	t.Helper()
	st := h.limiterState(t)
	gs := h.graph.Stats()
	if v := h.graph.Violations(); len(v) != 0 {
		t.Errorf("the Graph emulator found %d limit violations, first: %+v", len(v), v[0])
	}
	got, units := gs.Users[e2eUser].Requests, int64(st.Stats.Units[e2eUser])
	if got != units-int64(unsent) {
		t.Errorf("Graph emulator received %d requests from %s; the limiter granted %d permit units, %d of them unsent",
			got, e2eUser, units, unsent)
	}
	t.Logf("Graph: %d requests (throttled %d, max concurrency %d); limiter: %d units, %d runs, %d expired leases",
		got, gs.Throttled, gs.Users[e2eUser].MaxConcurrent, units, st.Stats.Runs, st.Stats.Expired)
	return got
}

// notionWrites counts the Notion requests that change something.
func (h *harness) notionWrites() int {
	n := 0
	for _, r := range h.notion.Requests(h.notionTok) {
		if r.Method != "GET" && !(r.Method == "POST" && len(r.Path) > 6 && r.Path[len(r.Path)-6:] == "/query") {
			n++
		}
	}
	return n
}

// migrate runs a migration of the generated notebook and waits for it.
func (h *harness) start(t *testing.T, in workflows.MigrateInput) client.WorkflowRun {
	t.Helper()
	nb := h.notebooks[0]
	run, err := h.c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
		ID: workflows.NotebookWorkflowID(in.User, nb.ID), TaskQueue: e2eQueue,
		StaticSummary: "Migrate " + nb.DisplayName,
	}, workflows.MigrateNotebookName, in)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func (h *harness) input() workflows.MigrateInput {
	return workflows.MigrateInput{User: e2eUser, Notebook: h.notebooks[0].DisplayName, NotionParent: h.root,
		Exclude: []string{h.excluded()}, Limits: h.profile, SectionParallelism: 5, PageParallelism: 5, PagesPerRun: 40}
}

// excluded is the generated section left out, so 5 of 6 migrate.
func (h *harness) excluded() string {
	secs := onenote.FlattenSections(toOneNote(h.notebooks[0]))
	return secs[len(secs)-1].Section.ID
}

func wait(t *testing.T, run client.WorkflowRun, d time.Duration) workflows.NotebookReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var rep workflows.NotebookReport
	if err := run.Get(ctx, &rep); err != nil {
		t.Fatalf("migration %s: %v", run.GetID(), err)
	}
	return rep
}
