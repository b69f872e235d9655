package workflows_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/readiness"
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

// harness is the shared stack (a dev server and both emulators) and an
// in-process worker.
type harness struct {
	st        *stack.Stack
	c         client.Client
	graph     *graph.Server
	notion    *notionemu.Server
	root      string
	graphTok  string
	notionTok string
	notebooks []*graph.Notebook
	graphURL  string
	profile   string
	logs      *logBuffer
	// listing makes chosen sections' page listing fail.
	listing stack.ListingFaults
}

func genSpec() graph.GenSpec {
	return graph.GenSpec{Seed: 7, Owner: e2eUser, Notebooks: 1, GroupDepth: 2, GroupsPerLevel: 1,
		SectionsPerContainer: 2, PagesPerSection: 60, SubpageLevels: 2,
		ImagesPerPage: 1, AttachmentsPerPage: 1, PrintoutEvery: 10, InkEvery: 4, LinksPerPage: 1,
		ImageBytes: 1024, AttachmentBytes: 2048}
}

// harnessOptions vary the harness: the generated data, and how the Graph
// emulator is served.
type harnessOptions struct {
	spec graph.GenSpec
	// tls serves the Graph emulator over HTTPS, as real Graph is.
	tls bool
	// notion, when set, configures the Notion emulator (Seed 1 and no
	// per-second limit otherwise); facts are the worker's Notion facts.
	notion *notionemu.Config
	facts  readiness.Facts
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	return newHarnessWith(t, harnessOptions{spec: genSpec()})
}

func newHarnessWith(t *testing.T, opts harnessOptions) *harness {
	t.Helper()
	stackOpts := []stack.Option{
		stack.Graph(graph.Config{Seed: 1, TimeScale: e2eScale, AppID: e2eApp,
			ScopeHeader: graph.ScopeHeaderSimple, PercentageHeader: true}),
		stack.Notebooks(e2eUser, opts.spec),
		stack.Notion(notionemu.Config{Seed: 1, Rate: -1}),
	}
	if opts.notion != nil {
		stackOpts[2] = stack.Notion(*opts.notion)
	}
	if opts.tls {
		stackOpts = append(stackOpts, stack.GraphTLS())
	}
	st := stack.ForTest(t, stackOpts...)
	h := &harness{st: st, c: st.C, profile: stack.Limits(e2eScale), logs: &logBuffer{},
		graph: st.Graph, notion: st.Notion, root: st.Root, notionTok: st.NotionToken, notebooks: st.Notebooks[e2eUser],
		graphURL: st.GraphURL}
	logger := capturingLogger(h.logs)
	graphHTTP := onenote.NewHTTPClient(30 * time.Second)
	if opts.tls {
		graphHTTP.Transport.(*http.Transport).TLSClientConfig = st.GraphTLSConfig
	}
	h.graphTok = h.graph.IssueToken(e2eUser, []string{"Notes.Read"}, 2*time.Hour)

	tok := notion.StaticToken(h.notionTok)
	nc, err := notion.NewClient(notion.Config{BaseURL: st.NotionURL, Token: tok,
		Pacers: notion.NewPacers(notion.PacerConfig{Rate: 500, Burst: 50}, nil), Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	acts, err := activities.New(activities.Config{
		GraphBaseURL: h.graphURL, GraphHTTP: graphHTTP,
		Tokens: staticTokens{e2eUser: h.graphTok}, Notion: nc,
		StagingDir: t.TempDir(), Hooks: activities.Hooks{ListPagesSection: h.listing.ListPagesSection}, Signals: h.c,
		NotionFacts: opts.facts,
	})
	if err != nil {
		t.Fatal(err)
	}
	startLimiter(t, h.c, e2eQueue, e2eApp, h.profile)
	// The worker's logs are captured (to search them for tokens);
	// warnings and errors also go to stderr.
	w, err := stack.StartInProcessWorker(st.Server.HostPort(), e2eQueue, workflows.New(e2eApp), acts, logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	return h
}

// startLimiter starts app's limiter with profile and a lease TTL long
// enough for a loaded machine (the scaled default is 0.5 s).
func startLimiter(t *testing.T, c client.Client, queue, app, profile string) {
	t.Helper()
	spec, err := limiter.Profile(profile)
	if err != nil {
		t.Fatal(err)
	}
	spec.Tuning.LeaseTTL = limiter.Duration(20 * time.Second)
	if err := stack.StartLimiter(context.Background(), c, queue, app, spec); err != nil {
		t.Fatal(err)
	}
}

func (h *harness) limiterState(t *testing.T) entity.State {
	t.Helper()
	st, err := stack.LimiterState(context.Background(), h.c, e2eApp)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// checkPermits asserts the Graph emulator saw no violation and as many
// requests from the user as the limiter granted permit units, less those
// the limiter was told were never sent (permits asked ahead that no page
// took; resources stopped early).
func (h *harness) checkPermits(t *testing.T) int64 {
	t.Helper()
	st := h.limiterState(t)
	unsent := st.Stats.Unsent[e2eUser]
	gs := h.graph.Stats()
	if v := h.graph.Violations(); len(v) != 0 {
		t.Errorf("the Graph emulator found %d limit violations, first: %+v", len(v), v[0])
		t.Logf("limiter: %d expired leases, %d orphaned grants, %d releases of lost grants, %d duplicate releases, %d runs, units told unsent %v\n%s",
			st.Stats.Expired, st.Stats.Orphaned, st.Stats.Charged, st.Stats.Duplicates, st.Stats.Runs, st.Stats.Unsent, violationTimeline(h.graph.Log(), v[0]))
	}
	got, units := gs.Users[e2eUser].Requests, int64(st.Stats.Units[e2eUser])
	if got != units-int64(unsent) {
		t.Errorf("Graph emulator received %d requests from %s; the limiter granted %d permit units, %d of them unsent",
			got, e2eUser, units, unsent)
	}
	t.Logf("Graph: %d requests (throttled %d, max concurrency %d); limiter: %d units, %d runs, %d expired leases, %d releases of lost grants, %d duplicate releases",
		got, gs.Throttled, gs.Users[e2eUser].MaxConcurrent, units, st.Stats.Runs, st.Stats.Expired, st.Stats.Charged, st.Stats.Duplicates)
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
	run, err := stack.StartMigration(context.Background(), h.c, e2eQueue, nb.ID, nb.DisplayName, in)
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

// violationTimeline lists the requests of v's user (or of every user, for
// the app) that the emulator counted from one window before v ended to its
// end, a line each (offset from v's start, status, code, path), so that a
// failure shows which requests crowded the window.
func violationTimeline(log []graph.LogEntry, v graph.Violation) string {
	var b strings.Builder
	from := v.End.Add(-v.Window)
	fmt.Fprintf(&b, "the emulator's requests of %s %s from %s to %s (offsets from the violation's start):\n",
		v.Scope, v.Key, from.Format("15:04:05.000"), v.End.Format("15:04:05.000"))
	for _, e := range log {
		if e.Time.Before(from) || e.Time.After(v.End) || (v.Scope == "user" && e.User != v.Key) {
			continue
		}
		fmt.Fprintf(&b, "  %+8.3fs %d %s %s\n", e.Time.Sub(v.Start).Seconds(), e.Status, e.Code, e.Path)
	}
	return b.String()
}
