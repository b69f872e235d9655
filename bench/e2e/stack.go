package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/notebridge/notebridge/bench/baseline"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// TaskQueue is the task queue the bench's workers poll.
const TaskQueue = stack.TaskQueue

// Harness builds the bench's worker once and starts a fresh stack per
// run. Its work directory keeps each run's logs.
type Harness struct {
	// Root is the repository root (the bench module is Root/bench).
	Root string
	// Dir is the work directory: the worker binary, and a directory per
	// run with its logs, tokens and staging.
	Dir string
	// Log receives progress lines.
	Log *slog.Logger
	// WorkerBin is the worker binary; Build sets it.
	WorkerBin string
}

// Build compiles the bench's worker (bench/cmd/worker: the product worker
// with -baseline) into the work directory, so that it runs as a process
// of its own whose memory and CPU can be measured.
func (h *Harness) Build(ctx context.Context) error {
	if err := stack.Build(ctx, filepath.Join(h.Root, "bench"), h.Dir, "./cmd/worker"); err != nil {
		return err
	}
	h.WorkerBin = filepath.Join(h.Dir, "worker")
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
	// Baseline is the worker's pacing: "" (the limiter) or a baseline.
	Baseline baseline.Policy
	Users    []User
	// Server starts the run's Temporal server (nil: a dev server with an
	// in-memory database; stack.OnCluster for a cluster on PostgreSQL).
	Server stack.StartServer
}

// Stack is one run: the shared stack (internal/stack: a Temporal server,
// the dev server unless StackConfig.Server starts another, both emulators in this process, the users signed in) and the
// worker as a child process.
type Stack struct {
	*stack.Stack
	cfg    StackConfig
	dir    string
	App    string
	done   *doneWatch
	spans  *spanWatch
	devLog *os.File
	Worker *Worker
}

// Start brings a stack up: dev server, emulators, sign-in, the limiter
// when configured, and a worker that is polling.
func (h *Harness) Start(ctx context.Context, cfg StackConfig) (_ *Stack, err error) {
	if h.WorkerBin == "" {
		return nil, errors.New("e2e: Build the worker first")
	}
	s := &Stack{cfg: cfg, dir: filepath.Join(h.Dir, cfg.Name), App: "bench-" + cfg.Name}
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
	gcfg := graph.Config{Seed: 1, TimeScale: cfg.Scale, HiddenLimitFactor: cfg.Hidden,
		ScopeHeader: cfg.ScopeHeader, PercentageHeader: cfg.PercentageHeader}
	if cfg.GraphLimits != nil {
		gcfg.Limits = *cfg.GraphLimits
	}
	opts := []stack.Option{stack.ServerLog(s.devLog), stack.Graph(gcfg),
		// Notion is not what is measured: no rate limit, so it never
		// paces the pipeline.
		stack.Notion(notionemu.Config{Seed: 1, Rate: -1}),
		stack.WrapGraph(func(next http.Handler) http.Handler { s.spans = &spanWatch{next: next}; return s.spans }),
		stack.WrapNotion(func(next http.Handler) http.Handler { s.done = newDoneWatch(next); return s.done }),
		stack.SignIn(stack.SignInOptions{Dir: s.dir, App: s.App})}
	for _, u := range cfg.Users {
		opts = append(opts, stack.Notebooks(u.Name, u.Spec))
	}
	if cfg.Server != nil {
		opts = append(opts, stack.OnServer(cfg.Server))
	}
	if s.Stack, err = stack.Start(ctx, opts...); err != nil {
		return nil, err
	}
	if cfg.LimiterSpec != nil {
		if err := stack.StartLimiter(ctx, s.C, TaskQueue, s.App, *cfg.LimiterSpec); err != nil {
			return nil, err
		}
	}
	flags := stack.WorkerFlags{TemporalAddress: s.Server.HostPort(), TaskQueue: TaskQueue, App: s.App,
		StagingDir: filepath.Join(s.dir, "staging"), GraphURL: s.GraphURL, NotionURL: s.NotionURL, Limits: cfg.Profile,
		NotionRate: 100000, NotionPacing: "process", LogLevel: "warn", Tokens: s.SignIn.WorkerArgs()}
	if cfg.Baseline != "" {
		flags.Extra = []string{"-baseline", string(cfg.Baseline)}
	}
	env := append([]string{"NOTION_TOKEN=" + s.NotionToken, "NOTION_TOKEN_FILE="}, s.SignIn.WorkerEnv()...)
	if s.Worker, err = startWorker(h.WorkerBin, flags.Args(), env, filepath.Join(s.dir, "worker.log")); err != nil {
		return nil, err
	}
	alive := func() error {
		if done, err := s.Worker.Exited(); done {
			return fmt.Errorf("worker exited at start (%v); see %s", err, filepath.Join(s.dir, "worker.log"))
		}
		return nil
	}
	if err := stack.AwaitPollers(ctx, s.C, TaskQueue, time.Minute, alive); err != nil {
		return nil, fmt.Errorf("%w; see %s", err, filepath.Join(s.dir, "worker.log"))
	}
	return s, nil
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
	if s.Stack != nil {
		errs = append(errs, s.Stack.Close())
		s.Stack = nil
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

// scaledHour is how long an hour lasts at scale.
func scaledHour(scale float64) time.Duration {
	return time.Duration(float64(time.Hour) / scale)
}

// itoa is strconv.Itoa, short.
func itoa(n int) string { return strconv.Itoa(n) }

// LimiterState queries the limiter entity's state.
func (s *Stack) LimiterState(ctx context.Context) (entity.State, error) {
	return stack.LimiterState(ctx, s.C, s.App)
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
