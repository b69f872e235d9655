package entity_test

import (
	"context"
	"encoding/json"

	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"

	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/graphload"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// The integration tests run the limiter and many requester workflows on a
// real Temporal dev server, each request a real HTTP call to the Graph
// emulator, and check the emulator's own counts against the limiter's.

const (
	itResource  = "graph-it"
	itApp       = "app"
	itTaskQueue = "limiter-it"
	itScale     = 120 // an hour lasts 30 s
	// envWorker makes the test binary act as a worker process (see
	// TestMain), so a test can kill it with SIGKILL.
	envWorker = "NOTEBRIDGE_ENTITY_TEST_WORKER"
)

func TestMain(m *testing.M) {
	if cfg := os.Getenv(envWorker); cfg != "" {
		if err := runWorkerProcess(cfg); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if cfg := os.Getenv(envPaceProcess); cfg != "" {
		if err := runPaceProcess(cfg); err != nil {
			fmt.Fprintln(os.Stderr, "pace process:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// itSpec is the OneNote table at itScale, with a lease TTL long enough
// for a loaded machine and short enough that a killed worker's slots come
// back quickly.
func itSpec() limiter.Spec {
	s, err := limiter.Profile(fmt.Sprintf("onenote-x%d", itScale))
	if err != nil {
		panic(err)
	}
	s.Tuning.LeaseTTL = limiter.Duration(15 * time.Second)
	return s
}

// workerConfig is what a worker needs; it travels in an environment
// variable to a worker process. Tokens stay out of workflow history: the
// activity looks them up by user.
type workerConfig struct {
	HostPort string            `json:"hostPort"`
	GraphURL string            `json:"graphURL"`
	Tokens   map[string]string `json:"tokens"`
}

func newWorker(c client.Client, cfg workerConfig) worker.Worker {
	w := worker.New(c, itTaskQueue, worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8})
	graphload.Register(w, c, &graphload.Activities{BaseURL: cfg.GraphURL, Tokens: cfg.Tokens, HTTP: &http.Client{Timeout: 10 * time.Second}})
	return w
}

func runWorkerProcess(raw string) error {
	var cfg workerConfig
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return err
	}
	c, err := client.Dial(client.Options{HostPort: cfg.HostPort, Logger: quietSDKLogger{}})
	if err != nil {
		return err
	}
	defer c.Close()
	return newWorker(c, cfg).Run(worker.InterruptCh())
}

type quietSDKLogger struct{}

func (quietSDKLogger) Debug(string, ...any) {}
func (quietSDKLogger) Info(string, ...any)  {}
func (quietSDKLogger) Warn(string, ...any)  {}
func (quietSDKLogger) Error(string, ...any) {}

// fixture is a dev server, a Graph emulator with users, and their tokens.
type fixture struct {
	srv   *devserver.Server
	graph *graph.Server
	cfg   workerConfig
	users []string
}

func newFixture(t *testing.T, users int) *fixture {
	t.Helper()
	srv := devserver.ForTest(t, devserver.Options{})
	g := graph.NewServer(graph.Config{Limits: graph.DefaultLimits(), TimeScale: itScale, Seed: 1})
	ts := httptest.NewServer(g)
	t.Cleanup(ts.Close)
	f := &fixture{srv: srv, graph: g, cfg: workerConfig{HostPort: srv.HostPort(), GraphURL: ts.URL, Tokens: map[string]string{}}}
	for i := range users {
		u := fmt.Sprintf("user%d", i)
		f.users = append(f.users, u)
		g.AddNotebooks(u, graph.Generate(graph.GenSpec{Seed: 1, Owner: u, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})...)
		f.cfg.Tokens[u] = g.IssueToken(u, []string{"Notes.Read"}, time.Hour)
	}
	return f
}

// startWorker runs a worker for the fixture's task queue until the test
// ends.
func (f *fixture) startWorker(t *testing.T) {
	t.Helper()
	w := newWorker(f.srv.Client(), f.cfg)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
}

// startLoad starts requesters workflows, spread over the users.
func (f *fixture) startLoad(t *testing.T, requesters, each int) []client.WorkflowRun {
	t.Helper()
	var runs []client.WorkflowRun
	for i := range requesters {
		run, err := f.srv.Client().ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{
			ID: fmt.Sprintf("load-%d", i), TaskQueue: itTaskQueue,
		}, graphload.Requester, graphload.Input{Resource: itResource, App: itApp, User: f.users[i%len(f.users)], N: each, Spec: itSpec()})
		if err != nil {
			t.Fatalf("start requester %d: %v", i, err)
		}
		runs = append(runs, run)
	}
	return runs
}

func waitAll(t *testing.T, runs []client.WorkflowRun, each int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	for _, run := range runs {
		var res graphload.Output
		if err := run.Get(ctx, &res); err != nil {
			t.Fatalf("requester %s: %v", run.GetID(), err)
		}
		if res.Done != each {
			t.Errorf("requester %s did %d requests, want %d", run.GetID(), res.Done, each)
		}
	}
}

func (f *fixture) limiterState(t *testing.T) entity.State {
	t.Helper()
	v, err := f.srv.Client().QueryWorkflow(context.Background(), entity.WorkflowID(itResource, itApp), "", entity.QueryState)
	if err != nil {
		t.Fatalf("query limiter: %v", err)
	}
	var st entity.State
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

// checkReferee asserts the emulator saw no 429 and no window over a limit,
// and compares its per-user counts with the limiter's permits.
func (f *fixture) checkReferee(t *testing.T, exact bool) entity.State {
	t.Helper()
	st := f.limiterState(t)
	gs := f.graph.Stats()
	if gs.Throttled != 0 {
		t.Errorf("upstream throttled %d requests, want 0 (by status: %v)", gs.Throttled, gs.ByStatus)
	}
	if v := f.graph.Violations(); len(v) != 0 {
		t.Errorf("the emulator found %d windows over a limit, first: %+v", len(v), v[0])
	}
	for _, u := range f.users {
		got, permits := gs.Users[u].Requests, int64(st.Stats.Units[u])
		if exact && got != permits {
			t.Errorf("%s: emulator received %d requests, limiter granted %d permits", u, got, permits)
		}
		if got > permits {
			t.Errorf("%s: emulator received %d requests, more than the %d permits granted", u, got, permits)
		}
	}
	t.Logf("limiter: %d runs, permits %v, expired leases %d, orphaned %d; emulator: %d requests, max concurrency %d",
		st.Stats.Runs, st.Stats.Units, st.Stats.Expired, st.Stats.Orphaned, gs.Requests, gs.MaxConcurrent)
	return st
}

func TestIntegrationEveryRequestHasAPermit(t *testing.T) {
	f := newFixture(t, 4)
	f.startWorker(t)
	const requesters, each = 20, 50
	waitAll(t, f.startLoad(t, requesters, each), each)
	f.checkReferee(t, true)
}

// workerProcess is a worker in a child process of the test binary.
type workerProcess struct {
	cmd  *exec.Cmd
	done chan struct{}
}

func startWorkerProcess(t *testing.T, cfg workerConfig) *workerProcess {
	t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envWorker+"="+string(raw))
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &workerProcess{cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() { p.kill() })
	return p
}

func (p *workerProcess) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func TestIntegrationWorkerKilledMidRun(t *testing.T) {
	f := newFixture(t, 4)
	// Every Graph request takes 300 ms, so the killed worker dies in the
	// middle of requests, holding permits.
	f.graph.SetFaults(graph.Faults{SlowRate: 1, SlowDelay: 300 * time.Millisecond})
	first := startWorkerProcess(t, f.cfg)
	const requesters, each = 20, 25
	runs := f.startLoad(t, requesters, each)

	// Kill the worker once a third of the requests have gone out.
	deadline := time.Now().Add(2 * time.Minute)
	for f.graph.Stats().Requests < requesters*each/3 {
		if time.Now().After(deadline) {
			t.Fatalf("only %d requests after 2 minutes", f.graph.Stats().Requests)
		}
		time.Sleep(50 * time.Millisecond)
	}
	first.kill()
	killedAt := f.graph.Stats().Requests
	startWorkerProcess(t, f.cfg)

	waitAll(t, runs, each)
	if got := f.graph.Stats().Requests; got <= killedAt {
		t.Fatalf("no request after the kill (%d before, %d after)", killedAt, got)
	}
	// A permit granted to the killed worker may never have been sent, so
	// the emulator can count fewer requests than permits, never more.
	st := f.checkReferee(t, false)
	// The dead worker's permits came back (their activities timed out and
	// were released, or their leases expired): nothing is left in flight.
	if st.Model.App.InFlight != 0 {
		t.Errorf("%d slots still in flight after every requester finished", st.Model.App.InFlight)
	}
}

// TestIntegrationContinueAsNewBoundsHistory pushes many permits through one
// limiter whose run is capped at 300 events: it continues as new many
// times, no run grows past the cap by more than one pass, and every permit
// is granted exactly once.
func TestIntegrationContinueAsNewBoundsHistory(t *testing.T) {
	f := newFixture(t, 1)
	f.startWorker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	spec := itSpec()
	spec.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 1_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 200}
	spec.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 1_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 200}
	const app, maxHistory, permits = "soak", 300, 20_000
	id := entity.WorkflowID(itResource, app)
	if _, err := f.srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: itTaskQueue},
		entity.WorkflowName, entity.Input{Resource: itResource, App: app, Spec: &spec, MaxHistory: maxHistory}); err != nil {
		t.Fatal(err)
	}
	run, err := f.srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "soak", TaskQueue: itTaskQueue},
		graphload.SoakRequester, graphload.SoakInput{Resource: itResource, App: app, User: f.users[0], Permits: permits, Batch: 100, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	var done int
	if err := run.Get(ctx, &done); err != nil {
		t.Fatalf("soak: %v", err)
	}
	v, err := f.srv.Client().QueryWorkflow(ctx, id, "", entity.QueryState)
	if err != nil {
		t.Fatal(err)
	}
	var st entity.State
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	if got := st.Stats.Units[f.users[0]]; got != permits {
		t.Errorf("limiter granted %d permits, want %d", got, permits)
	}
	if st.Stats.Duplicates != 0 || st.Stats.Orphaned != 0 {
		t.Errorf("duplicates %d, orphaned %d; want none", st.Stats.Duplicates, st.Stats.Orphaned)
	}
	lengths := runLengths(ctx, t, f.srv.Client(), id)
	if len(lengths) < 3 {
		t.Errorf("the limiter ran %d times for %d permits with a %d-event cap; want several continue-as-new runs", len(lengths), permits, maxHistory)
	}
	for i, n := range lengths {
		if n > maxHistory+300 {
			t.Errorf("run %d has %d events, cap %d", i, n, maxHistory)
		}
	}
	t.Logf("%d permits over %d runs, events per run %v", permits, len(lengths), lengths)
}

// runLengths returns the event count of every run of a workflow ID.
func runLengths(ctx context.Context, t *testing.T, c client.Client, id string) []int {
	t.Helper()
	resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = '%s'", id)})
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range resp.GetExecutions() {
		out = append(out, int(e.GetHistoryLength()))
	}
	return out
}
