package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// TaskQueue is the task queue the bench's workers poll.
const TaskQueue = "notebridge"

// Harness builds the worker once and starts a fresh stack per run. Its
// work directory keeps each run's logs.
type Harness struct {
	// Root is the module root (where ./worker is built from).
	Root string
	// Dir is the work directory: the worker binary, and a directory per
	// run with its logs, tokens and staging.
	Dir string
	// Log receives progress lines.
	Log *slog.Logger
	// WorkerBin is the worker binary; Build sets it.
	WorkerBin string
}

// Build compiles the worker into the work directory, so that it runs as
// a process of its own whose memory and CPU can be measured.
func (h *Harness) Build(ctx context.Context) error {
	if err := os.MkdirAll(h.Dir, 0o755); err != nil {
		return fmt.Errorf("work directory: %w", err)
	}
	bin := filepath.Join(h.Dir, "worker")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./worker")
	cmd.Dir = h.Root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./worker: %w\n%s", err, out)
	}
	h.WorkerBin = bin
	return nil
}

// User is a Graph emulator user and the notebooks generated for them.
type User struct {
	Name string
	Spec graph.GenSpec
}

// StackConfig describes one run's stack.
type StackConfig struct {
	// Name names the run: its directory and the app ID (so its limiter is
	// its own).
	Name string
	// Profile is the limits profile the workflows use (onenote-xF), and
	// Scale the Graph emulator's time scale; they must agree.
	Profile string
	Scale   float64
	// GraphLimits are the emulator's advertised limits (before scaling);
	// nil means the OneNote table.
	GraphLimits *graph.Limits
	// Hidden, in (0, 1), makes the emulator enforce limits that much
	// stricter than it advertises.
	Hidden float64
	// ScopeHeader and PercentageHeader switch the throttle headers on.
	ScopeHeader      graph.ScopeHeaderMode
	PercentageHeader bool
	// LimiterSpec, when set, starts the limiter with this spec before
	// anything runs (raised limits, lanes off); nil lets the first
	// requester start it with the profile.
	LimiterSpec *limiter.Spec
	// Throttle is the worker's pacing: "" (the limiter) or a baseline.
	Throttle workflows.Throttle
	Users    []User
	// Server starts the run's Temporal server (nil: a dev server with an
	// in-memory database); see server.go.
	Server StartServer
}

// Stack is one run: a Temporal dev server, both emulators in this process
// and the worker as a child process.
type Stack struct {
	cfg  StackConfig
	h    *Harness
	dir  string
	dev  TemporalServer
	C    client.Client
	App  string
	Root string // the Notion page migrations go under

	Graph      *graph.Server
	Notion     *notionemu.Server
	graphHTTP  *http.Server
	notionHTTP *http.Server
	done       *doneWatch
	spans      *spanWatch
	devLog     *os.File
	Worker     *Worker
	// Notebooks are each user's generated notebooks.
	Notebooks map[string][]*graph.Notebook
}

// Start brings a stack up: dev server, emulators, sign-in, the limiter
// when configured, and a worker that is polling.
func (h *Harness) Start(ctx context.Context, cfg StackConfig) (_ *Stack, err error) {
	if h.WorkerBin == "" {
		return nil, errors.New("e2e: Build the worker first")
	}
	s := &Stack{cfg: cfg, h: h, dir: filepath.Join(h.Dir, cfg.Name), App: "bench-" + cfg.Name,
		Notebooks: map[string][]*graph.Notebook{}}
	defer func() {
		if err != nil {
			s.Stop()
		}
	}()
	if err := os.RemoveAll(s.dir); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(s.dir, "staging"), 0o700); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	if s.devLog, err = os.Create(filepath.Join(s.dir, "temporal.log")); err != nil {
		return nil, err
	}
	start := cfg.Server
	if start == nil {
		start = startDevServer
	}
	if s.dev, err = start(ctx, s.devLog); err != nil {
		return nil, err
	}
	s.C = s.dev.Client()

	gcfg := graph.Config{Seed: 1, TimeScale: cfg.Scale, HiddenLimitFactor: cfg.Hidden,
		ScopeHeader: cfg.ScopeHeader, PercentageHeader: cfg.PercentageHeader}
	if cfg.GraphLimits != nil {
		gcfg.Limits = *cfg.GraphLimits
	}
	s.Graph = graph.NewServer(gcfg)
	var users []string
	for _, u := range cfg.Users {
		nbs := graph.Generate(u.Spec)
		s.Graph.AddNotebooks(u.Name, nbs...)
		s.Notebooks[u.Name] = nbs
		users = append(users, u.Name)
	}
	s.spans = &spanWatch{next: s.Graph}
	graphURL, gsrv, err := serve(s.spans)
	if err != nil {
		return nil, err
	}
	s.graphHTTP = gsrv
	s.Graph.SetBaseURL(graphURL)

	// Notion is not what is measured: no rate limit, so it never paces
	// the pipeline.
	s.Notion = notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	notionTok := s.Notion.IssueToken()
	s.Root = s.Notion.RootPageID()
	s.done = newDoneWatch(s.Notion)
	notionURL, nsrv, err := serve(s.done)
	if err != nil {
		return nil, err
	}
	s.notionHTTP = nsrv

	tokArgs, tokEnv, err := signIn(ctx, s.dir, s.App, graphURL, s.Graph, users)
	if err != nil {
		return nil, err
	}
	if cfg.LimiterSpec != nil {
		if err := s.startLimiter(ctx, *cfg.LimiterSpec); err != nil {
			return nil, err
		}
	}
	args := []string{"-temporal-address", s.dev.HostPort(), "-namespace", "default", "-task-queue", TaskQueue,
		"-app-id", s.App, "-staging-dir", filepath.Join(s.dir, "staging"),
		"-graph-url", graphURL + "/v1.0", "-notion-url", notionURL, "-limits", cfg.Profile,
		"-notion-rate", "100000", "-notion-pacing", "process", "-log-level", "warn"}
	args = append(args, tokArgs...)
	if cfg.Throttle != "" && cfg.Throttle != workflows.ThrottleLimiter {
		args = append(args, "-throttle", string(cfg.Throttle))
	}
	env := append([]string{"NOTION_TOKEN=" + notionTok, "NOTION_TOKEN_FILE="}, tokEnv...)
	s.Worker, err = startWorker(h.WorkerBin, args, env, filepath.Join(s.dir, "worker.log"))
	if err != nil {
		return nil, err
	}
	if err := s.awaitPollers(ctx, time.Minute); err != nil {
		return nil, err
	}
	return s, nil
}

// serve runs handler on a free loopback port and returns its base URL.
func serve(handler http.Handler) (string, *http.Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), srv, nil
}

// limiterID is the workflow ID of the run's limiter entity.
func (s *Stack) limiterID() string { return entity.WorkflowID(workflows.LimiterResource, s.App) }

// startLimiter starts the run's limiter entity with spec, so the first
// requester finds it running and its spec is the one that counts.
func (s *Stack) startLimiter(ctx context.Context, spec limiter.Spec) error {
	id := s.limiterID()
	_, err := s.C.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: TaskQueue},
		entity.WorkflowName, entity.Input{Resource: workflows.LimiterResource, App: s.App, Spec: &spec})
	if err != nil {
		return fmt.Errorf("start limiter %s: %w", id, err)
	}
	return nil
}

// awaitPollers waits until the worker polls both workflow and activity
// tasks, so no run's clock starts while the worker is still starting.
func (s *Stack) awaitPollers(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		if done, err := s.Worker.Exited(); done {
			return fmt.Errorf("worker exited at start (%v); see %s", err, filepath.Join(s.dir, "worker.log"))
		}
		ready := true
		for _, typ := range []enumspb.TaskQueueType{enumspb.TASK_QUEUE_TYPE_WORKFLOW, enumspb.TASK_QUEUE_TYPE_ACTIVITY} {
			resp, err := s.C.DescribeTaskQueue(ctx, TaskQueue, typ)
			if err != nil || len(resp.GetPollers()) == 0 {
				ready = false
			}
		}
		if ready {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the worker did not poll within %v; see %s", timeout, filepath.Join(s.dir, "worker.log"))
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

// Stop stops the worker (returning its last usage), the emulators and the
// dev server. It is safe on a partly started stack.
func (s *Stack) Stop() (Usage, error) {
	var u Usage
	var errs []error
	if s.Worker != nil {
		var err error
		u, err = s.Worker.Stop(20 * time.Second)
		errs = append(errs, err)
		s.Worker = nil
	}
	for _, srv := range []*http.Server{s.graphHTTP, s.notionHTTP} {
		if srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			errs = append(errs, srv.Shutdown(ctx))
			cancel()
		}
	}
	s.graphHTTP, s.notionHTTP = nil, nil
	if s.dev != nil {
		errs = append(errs, s.dev.Stop())
		s.dev = nil
	}
	if s.devLog != nil {
		s.devLog.Close()
		s.devLog = nil
	}
	return u, errors.Join(errs...)
}

// GraphLog returns every request the Graph emulator counted, with times
// as offsets from t0.
func (s *Stack) GraphLog(t0 time.Time) []Request {
	log := s.Graph.Log()
	out := make([]Request, len(log))
	for i, e := range log {
		out[i] = Request{User: e.User, At: e.Time.Sub(t0), Status: e.Status, Code: e.Code}
	}
	return out
}

// GraphSpans returns when each Graph API request was being served, as
// offsets from t0.
func (s *Stack) GraphSpans(t0 time.Time) []Span { return s.spans.since(t0) }

// PagesDone returns when pages were marked done in Notion, as offsets
// from t0.
func (s *Stack) PagesDone(t0 time.Time) []time.Duration { return s.done.times(t0) }

// Request is one request the Graph emulator counted.
type Request struct {
	User   string
	At     time.Duration
	Status int
	Code   string
}

// Throttled reports whether the request was refused for a limit (429:
// 20166 or 10003).
func (r Request) Throttled() bool { return r.Status == http.StatusTooManyRequests }

// Times returns the arrival times of the requests for which keep is true
// (nil keeps all).
func Times(rs []Request, keep func(Request) bool) []time.Duration {
	var out []time.Duration
	for _, r := range rs {
		if keep == nil || keep(r) {
			out = append(out, r.At)
		}
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// scaledHour is how long an hour lasts at scale.
func scaledHour(scale float64) time.Duration {
	return time.Duration(float64(time.Hour) / scale)
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// LimiterState queries the limiter entity's state.
func (s *Stack) LimiterState(ctx context.Context) (entity.State, error) {
	var st entity.State
	v, err := s.C.QueryWorkflow(ctx, s.limiterID(), "", entity.QueryState)
	if err != nil {
		return st, fmt.Errorf("query the limiter: %w", err)
	}
	return st, v.Get(&st)
}

// LimiterWindows describes user's windows in the limiter's model, as
// used/effective limit per window ("22/120 277/280"), for progress lines;
// the error if the limiter cannot be queried.
func (s *Stack) LimiterWindows(user string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	st, err := s.LimiterState(ctx)
	if err != nil {
		return err.Error()
	}
	for _, u := range st.Model.Users {
		if u.User != user {
			continue
		}
		var parts []string
		for _, w := range u.Windows {
			parts = append(parts, fmt.Sprintf("%d/%d", w.Used, w.Effective))
		}
		return strings.Join(parts, " ")
	}
	return "no such user"
}

// SaveData writes what the emulators recorded (every Graph request, every
// Graph request's span, every page done, as offsets from t0) and the
// limiter entity's state at the end (its adapted limits and counts) to
// data.json in the run's directory, for looking into a figure after the
// run. Call it while the stack is still up.
func (s *Stack) SaveData(t0 time.Time) error {
	data := struct {
		Requests []Request       `json:"requests"`
		Spans    []Span          `json:"spans"`
		Done     []time.Duration `json:"done"`
		Limiter  *entity.State   `json:"limiter,omitempty"`
	}{Requests: s.GraphLog(t0), Spans: s.GraphSpans(t0), Done: s.PagesDone(t0)}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if st, err := s.LimiterState(ctx); err == nil {
		data.Limiter = &st
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("save data: %w", err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, "data.json"), raw, 0o644); err != nil {
		return fmt.Errorf("save data: %w", err)
	}
	return nil
}
