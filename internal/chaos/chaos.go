// Package chaos runs a migration under fire: the Graph and Notion
// emulators in-process, a real Temporal dev server on a database file, and
// the worker as a separate OS process that is killed with SIGKILL at
// random moments (some while a Graph request or a Notion write of it is in
// flight) and restarted each time, while the dev server is restarted too.
// Then it judges the result: the Notion emulator's export must equal the
// source block for block (internal/verify), the Graph emulator's referee
// must have found no window over any limit, no Graph request may have left
// without a permit, and no history in the namespace may hold a secret.
//
// cmd/chaos runs it from the command line (`make chaos`); a short run is
// part of the default tests.
package chaos

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/internal/verify"
	"github.com/notebridge/notebridge/workflows"
)

// The run's fixed names.
const (
	app       = "chaos-app"
	taskQueue = "notebridge"
	sections  = 4 // the generated notebook: 2 sections, and a group of 2
)

// Options configure a chaos run. Zero values take the defaults noted.
type Options struct {
	// Pages is each user's notebook's page count (200), spread over 4 sections
	// (two of them in a section group) and rounded up to a multiple of 4.
	Pages int
	// Users is how many users migrate a notebook of their own at once
	// (1: alice; then bob, carol, ...), each verified on its own; Workers
	// how many worker processes serve them all from the one task queue
	// (1). A kill strikes the worker that sent the request it traps, or
	// each worker in turn for kills that trap none.
	Users, Workers int
	// Kills is how many times a worker is killed (20); ServerRestarts
	// how many times the dev server is restarted (2).
	Kills, ServerRestarts int
	// RefreshKills is how many more times the worker is killed inside a
	// token refresh (0): half of them while the identity platform's
	// answer is on its way, half a few milliseconds after it arrived.
	RefreshKills int
	// TokenTTL is the lifetime of the access tokens the Graph emulator
	// issues (1 h; real Microsoft tokens live 60-90 minutes). It is not
	// time-scaled: give 45s for short-lived tokens.
	TokenTTL time.Duration
	// StrictRefreshRotation makes the Graph emulator revoke a refresh
	// token when it is redeemed. Microsoft does not (graph-reality.md
	// fact 31); with it, a kill between the identity platform's answer
	// and the worker's write of the token file loses the sign-in, and the
	// run reports each loss, signs in again and starts the migration
	// again. Without it, a lost sign-in is a failure.
	StrictRefreshRotation bool
	// Seed draws the notebook-independent chaos: the moments and kinds
	// of kills and restarts (1).
	Seed uint64
	// TimeScale shortens the Graph limits' windows, in the emulator and
	// in the worker's limiter alike (60: an hour lasts a minute).
	TimeScale float64
	// NotionRate is Notion's requests per second, in the emulator and
	// the worker's pace (30).
	NotionRate float64
	// PagesPerRun makes each section continue as new after that many
	// pages (25), so that continue-as-new happens under fire too.
	PagesPerRun int
	// MinUptime is how long a restarted worker runs before the next kill
	// (2 s).
	MinUptime time.Duration
	// Timeout bounds the migration (60 min).
	Timeout time.Duration
	// Dir is the work directory (logs, database, histories). Empty means
	// a temporary directory, removed afterwards unless Keep is set.
	Dir  string
	Keep bool
	// Root is the module root (found above the working directory if
	// empty); WorkerBin a worker binary to use instead of building
	// ./worker.
	Root, WorkerBin string
	// Log receives progress lines (discarded if nil).
	Log io.Writer
	// Server starts the Temporal server (nil: a dev server on a database
	// file; stack.OnCluster for a cluster on PostgreSQL); DatabaseRestarts
	// is how many times its database is restarted on its own (0; it needs
	// a stack.DatabaseRestarter). See server.go.
	Server           stack.StartServer
	DatabaseRestarts int
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Pages, 200)
	def(&o.Users, 1)
	def(&o.Workers, 1)
	def(&o.PagesPerRun, 25)
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.TimeScale == 0 {
		o.TimeScale = 60
	}
	if o.NotionRate == 0 {
		o.NotionRate = 30
	}
	if o.MinUptime == 0 {
		o.MinUptime = 2 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 60 * time.Minute
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o
}

// validate names the first bad option and what to do.
func (o Options) validate() error {
	switch {
	case o.Pages < 4 || o.Pages > 20000:
		return fmt.Errorf("chaos: -pages %d: give 4 to 20000 pages", o.Pages)
	case o.Users < 1 || o.Users > len(userNames):
		return fmt.Errorf("chaos: -users %d: give 1 to %d users", o.Users, len(userNames))
	case o.Workers < 1 || o.Workers > 16:
		return fmt.Errorf("chaos: -workers %d: give 1 to 16 worker processes", o.Workers)
	case o.Kills < 0 || o.ServerRestarts < 0 || o.RefreshKills < 0 || o.DatabaseRestarts < 0:
		return errors.New("chaos: -kills, -refresh-kills, -server-restarts and -database-restarts cannot be negative")
	case o.TokenTTL != 0 && o.TokenTTL < 10*time.Second:
		return fmt.Errorf("chaos: -token-ttl %s: give 10s or more (the worker needs a token to last a request)", o.TokenTTL)
	case o.TimeScale < 1:
		return fmt.Errorf("chaos: time scale %g: give 1 (real time) or more", o.TimeScale)
	case o.NotionRate <= 0:
		return fmt.Errorf("chaos: Notion rate %g: give a positive rate", o.NotionRate)
	case o.PagesPerRun < 1 || o.PagesPerRun > 5000:
		return fmt.Errorf("chaos: pages per run %d: give 1 to 5000", o.PagesPerRun)
	}
	return nil
}

// Fired is an event carried out.
type Fired struct {
	N    int  `json:"n"`
	Kind Kind `json:"kind"`
	// At is the time since the migration started; GraphRequests the
	// run's clock then.
	At            time.Duration `json:"at"`
	GraphRequests int64         `json:"graphRequests"`
	// Detail names the request in flight, or how the event went.
	Detail string `json:"detail,omitempty"`
	// Took is how long a server restart took, or how long a killed worker
	// stayed down.
	Took time.Duration `json:"took"`
	// BeforeStore is set for a kill inside a token refresh that struck
	// before the worker had stored the new tokens.
	BeforeStore bool `json:"beforeStore,omitempty"`
	// Worker numbers the worker a kill struck (from 1).
	Worker int `json:"worker,omitempty"`
}

// LostSignIn is a migration that ended because its user's sign-in was
// gone, after which the run signed in again and started it again.
type LostSignIn struct {
	N             int           `json:"n"`
	At            time.Duration `json:"at"`
	GraphRequests int64         `json:"graphRequests"`
	// Error is the migration's word for it (it names the login command).
	Error string `json:"error"`
	// AfterKill describes the last kill before it.
	AfterKill string `json:"afterKill,omitempty"`
}

// SignIns are the identity platform's figures of a run.
type SignIns struct {
	// Refreshes are the refresh-token grants the identity platform
	// answered; Reused those that redeemed a refresh token a second time
	// (a worker killed before it stored the one it got); Rejected the
	// refused ones by reason.
	Refreshes, Reused int64
	Rejected          map[string]int64
	// Lost are the sign-ins lost during the run.
	Lost []LostSignIn
}

// Result is what a chaos run did and found.
type Result struct {
	Options Options `json:"-"`
	// Pages counts the pages of all users' notebooks.
	Pages    int           `json:"pages"`
	Planned  []Event       `json:"planned"`
	Kills    []Fired       `json:"kills"`
	Restarts []Fired       `json:"restarts"`
	Duration time.Duration `json:"duration"`
	// Migrations are the users' migrations, in the order of
	// Options.Users.
	Migrations []*Migration `json:"migrations"`
	// Violations are the Graph referee's windows over a limit.
	Violations []graph.Violation `json:"violations"`
	// GraphRequests and Graph429s are the Graph emulator's counts for
	// all users; ExpectedRequests the least the migrations need;
	// PermitUnits the limiter's granted permit units (Migrations has them
	// by user).
	GraphRequests, Graph429s, ExpectedRequests int64
	PermitUnits                                int64
	NotionRequests                             int64
	// WorkerStarts counts the incarnations of all workers; SelfExits
	// those that ended without being killed.
	WorkerStarts, SelfExits int
	// SignIns are the refreshes and the lost sign-ins.
	SignIns   SignIns
	Histories HistoryExport
	// LogLeaks names secrets found in the workers' logs.
	LogLeaks []string
	// Problems are the reasons the run failed; empty means it passed.
	Problems []string
	// Dir is the work directory, if kept.
	Dir string
}

// OK reports whether the run passed.
func (r *Result) OK() bool { return len(r.Problems) == 0 }

// run is one chaos run in progress.
type run struct {
	o       Options
	res     *Result
	start   time.Time
	graph   *graph.Server
	notion  *notionemu.Server
	srv     stack.Server
	workers *workers
	trap    *trap
	// acct signs a user in again after a lost sign-in; migs are the
	// users' migrations.
	acct *stack.Accounts
	migs []*migration

	mu sync.Mutex
	c  client.Client // the dev server's client; replaced after a restart
}

func (r *run) say(format string, args ...any) {
	el := time.Duration(0)
	if !r.start.IsZero() {
		el = time.Since(r.start)
	}
	fmt.Fprintf(r.o.Log, "chaos %7.1fs  %s\n", el.Seconds(), fmt.Sprintf(format, args...))
}

func (r *run) client() client.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// graphRequests is the run's clock: the Graph requests of all users.
func (r *run) graphRequests() int64 {
	n := int64(0)
	for _, u := range r.graph.Stats().Users {
		n += u.Requests
	}
	return n
}

// Run performs a chaos run. Its error means the harness itself could not
// run (no temporal CLI, build failure, interrupted), and the Result is nil
// if the migration never started; a migration that went wrong is a Result
// with Problems.
func Run(ctx context.Context, o Options) (*Result, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	r := &run{o: o, res: &Result{Options: o}}
	if r.o.Root == "" {
		root, err := stack.ModuleRoot()
		if err != nil {
			return nil, err
		}
		r.o.Root = root
	}
	if r.o.Dir == "" {
		dir, err := os.MkdirTemp("", "notebridge-chaos-")
		if err != nil {
			return nil, fmt.Errorf("chaos: work directory: %w", err)
		}
		r.o.Dir = dir
		if !o.Keep {
			defer os.RemoveAll(dir)
		}
	} else if err := os.MkdirAll(r.o.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("chaos: work directory: %w", err)
	}
	if o.Keep || o.Dir != "" {
		r.res.Dir = r.o.Dir
	}
	if err := r.run(ctx); err != nil {
		if r.start.IsZero() {
			// Nothing ran: there is nothing to report.
			return nil, err
		}
		return r.res, err
	}
	return r.res, nil
}

func (r *run) run(ctx context.Context) error {
	o, res := r.o, r.res
	if err := r.expect(ctx); err != nil {
		return err
	}
	res.Planned = merge(Plan(o.Seed, o.Kills, o.ServerRestarts, res.ExpectedRequests),
		PlanRefreshKills(o.Seed, o.RefreshKills, res.ExpectedRequests),
		PlanDatabaseRestarts(o.Seed, o.DatabaseRestarts, res.ExpectedRequests))

	r.workers = newWorkers(o.Workers, o.Dir)
	r.trap = newTrap(r.workers)
	r.say("building the worker")
	bin := o.WorkerBin
	if bin == "" {
		if err := stack.Build(ctx, o.Root, o.Dir, "./worker"); err != nil {
			return fmt.Errorf("chaos: %w", err)
		}
		bin = filepath.Join(o.Dir, "worker")
	}

	serverLog, err := os.OpenFile(filepath.Join(o.Dir, "temporal.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("chaos: server log: %w", err)
	}
	defer serverLog.Close()
	// The stack: the Temporal server (the dev server on a database file
	// unless Options.Server starts another; it is restarted), the
	// emulators in-process, each behind its traps, and the users signed in.
	server := stack.OnServer(o.Server)
	if o.Server == nil {
		server = stack.DevServer(devserver.Options{DBFile: filepath.Join(o.Dir, "temporal.db")})
		r.say("starting the Temporal dev server on %s", filepath.Join(o.Dir, "temporal.db"))
	} else {
		r.say("starting the Temporal server")
	}
	// A cluster builds its binaries the first time: give it time.
	sctx, cancel := context.WithTimeout(ctx, 30*time.Minute)
	opts := []stack.Option{server, stack.ServerLog(serverLog),
		stack.Graph(graph.Config{Seed: 1, TimeScale: o.TimeScale, AppID: app,
			ScopeHeader: graph.ScopeHeaderSimple, PercentageHeader: true,
			TokenTTL: o.TokenTTL, StrictRefreshRotation: o.StrictRefreshRotation}),
		stack.Notion(notionemu.Config{Seed: 1, Rate: o.NotionRate, Burst: max(1, int(o.NotionRate))}),
		stack.WrapGraph(func(g http.Handler) http.Handler {
			return r.trap.wrapRefresh(r.trap.wrap(KillDuringGraph, g, graphRequest), r.tokenFiles())
		}),
		stack.WrapNotion(func(n http.Handler) http.Handler { return r.trap.wrap(KillDuringNotionWrite, n, notionWrite) }),
		stack.SignIn(stack.SignInOptions{Dir: o.Dir, App: app})}
	for _, m := range r.migs {
		opts = append(opts, stack.Notebooks(m.User, m.spec))
	}
	st, err := stack.Start(sctx, opts...)
	cancel()
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	defer func() { _ = st.Close() }()
	r.graph, r.notion, r.srv, r.c, r.acct = st.Graph, st.Notion, st.Server, st.C, st.SignIn
	key, err := st.SignIn.Key()
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	secrets := []string{key, st.NotionToken}
	limits := stack.Limits(o.TimeScale)
	// The staging directory is the worker's scratch space: each worker
	// has its own, as on machines of their own.
	for _, w := range r.workers.ws {
		staging := filepath.Join(o.Dir, "staging")
		if o.Workers > 1 {
			staging = filepath.Join(o.Dir, fmt.Sprintf("staging-%d", w.n))
		}
		w.bin = bin
		w.args = stack.WorkerFlags{TemporalAddress: st.Server.HostPort(), TaskQueue: taskQueue, App: app,
			StagingDir: staging, GraphURL: st.GraphURL, NotionURL: st.NotionURL, Limits: limits,
			NotionRate: o.NotionRate, Tokens: st.SignIn.WorkerArgs()}.Args()
		w.env = append([]string{"NOTION_TOKEN=" + st.NotionToken, "NOTION_TOKEN_FILE="}, st.SignIn.WorkerEnv()...)
	}
	if err := r.workers.start(); err != nil {
		return err
	}
	defer r.workers.stop(10 * time.Second)

	if err := r.prepare(st, limits); err != nil {
		return err
	}
	r.say("%d users, %d pages in all, at least %d Graph requests, %d worker processes; plan: %d kills, %d inside token refreshes, %d server restarts, %d database restarts (seed %d)",
		o.Users, res.Pages, res.ExpectedRequests, o.Workers, o.Kills, o.RefreshKills, o.ServerRestarts, o.DatabaseRestarts, o.Seed)
	r.start = time.Now()
	for _, m := range r.migs {
		if _, err := r.client().ExecuteWorkflow(ctx, m.startOpts, workflows.MigrateNotebookName, m.input); err != nil {
			return fmt.Errorf("chaos: start MigrateNotebook for %s: %w", m.User, err)
		}
		r.say("started %s with %s", m.WorkflowID, m.Input)
	}

	mctx, cancel := context.WithTimeout(ctx, o.Timeout)
	err = r.fire(mctx)
	cancel()
	res.Duration = time.Since(r.start)
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("chaos: interrupted: %w", ctx.Err())
	}
	if err != nil {
		res.Problems = append(res.Problems, err.Error())
	}
	// Every access and refresh token the emulator issued, refreshes
	// during the run included.
	r.judge(ctx, append(secrets, r.graph.IssuedSecrets()...))
	return nil
}

// expectedRequests is the least number of Graph requests a migration
// makes: the notebook tree, a listing per 100 pages of each section, each
// page's content (its ink comes with it) and each resource (drawings are
// files too, rendered on the worker).
func expectedRequests(exp *verify.Expected, spec graph.GenSpec) int64 {
	n := int64(1 + sections*((spec.PagesPerSection+99)/100))
	for _, p := range exp.Pages {
		n += 1 - int64(p.Drawings)
		for _, l := range p.Blocks {
			n += int64(strings.Count(l, "<file sha256:"))
		}
	}
	return n
}

// fire carries out the plan while the migration runs, and returns when
// the migration has ended (or ctx has).
func (r *run) fire(ctx context.Context) error {
	res := r.res
	events := res.Planned
	next := 0
	var armed *Event
	var armedAt time.Time
	lastCheck, lastKey, lastSaid := time.Time{}, "", time.Time{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	restartWorker := func(w *workerProc, pause time.Duration) {
		if err := stack.Sleep(ctx, pause); err != nil {
			return
		}
		if err := w.start(); err != nil {
			res.Problems = append(res.Problems, err.Error())
		}
	}
	recordKill := func(w *workerProc, k Kind, detail string, beforeStore bool, pause time.Duration) {
		f := Fired{N: len(res.Kills) + 1, Kind: k, At: time.Since(r.start), GraphRequests: r.graphRequests(), Detail: detail, Took: pause,
			BeforeStore: beforeStore, Worker: w.n}
		res.Kills = append(res.Kills, f)
		r.say("kill %d/%d: worker %d, %s (%s) at %d Graph requests; restarting it in %s", f.N, r.o.Kills+r.o.RefreshKills, w.n, k, detail, f.GraphRequests, pause)
		restartWorker(w, pause)
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("the migration did not end within %s", r.o.Timeout)
		case s := <-r.trap.sprung:
			recordKill(s.worker, s.kind, s.detail, s.beforeStore, armed.Pause)
			armed = nil
			next++
		case <-tick.C:
		}
		for _, w := range r.workers.down() {
			if armed != nil {
				break
			}
			res.SelfExits++
			if res.SelfExits > maxSelfExits {
				return fmt.Errorf("a worker exited by itself %d times; the end of worker %d's log:\n%s", res.SelfExits, w.n, tail(w.logText(), 10))
			}
			r.say("worker %d exited by itself (see %s); restarting it", w.n, filepath.Base(w.log))
			restartWorker(w, time.Second)
		}
		if time.Since(lastCheck) >= time.Second {
			lastCheck = time.Now()
			done, line, key := r.check(ctx)
			if done {
				r.trap.disarm()
				return nil
			}
			// A line when the phase or the sections change, else every
			// 15 s.
			if key != lastKey || time.Since(lastSaid) >= 15*time.Second {
				r.say("%s", line)
				lastKey, lastSaid = key, time.Now()
			}
		}
		if armed != nil {
			if time.Since(armedAt) > trapPatience && r.trap.disarm() {
				w := r.workers.nextVictim()
				w.kill()
				recordKill(w, armed.Kind, fmt.Sprintf("%s: no such request in %s; killed at once", fallback, trapPatience), false, armed.Pause)
				armed = nil
				next++
			}
			continue
		}
		if next == len(events) || r.graphRequests() < events[next].At || r.workers.upFor() < r.o.MinUptime {
			continue
		}
		e := events[next]
		switch e.Kind {
		case ServerRestart:
			r.restartServer(ctx)
			next++
		case DatabaseRestart:
			r.restartDatabase(ctx)
			next++
		case KillAnytime:
			if err := stack.Sleep(ctx, e.Delay); err != nil {
				continue
			}
			detail := fmt.Sprintf("%s after the mark", e.Delay)
			w := r.workers.nextVictim()
			if !w.kill() {
				detail += " (the worker was not running)"
			}
			recordKill(w, e.Kind, detail, false, e.Pause)
			next++
		case KillDuringRefresh, KillAfterRefresh:
			armed, armedAt = &e, time.Now()
			r.trap.armRefresh(e.Kind, e.Delay)
		default:
			armed, armedAt = &e, time.Now()
			r.trap.arm(e.Kind, e.Skip)
		}
	}
}

// restartServer restarts the Temporal server on its data (the dev
// server on its database file, a cluster's server on PostgreSQL).
func (r *run) restartServer(ctx context.Context) {
	r.restart(ctx, ServerRestart, r.o.ServerRestarts, func(ctx context.Context) (string, error) {
		if err := r.srv.Restart(ctx); err != nil {
			return "", err
		}
		r.mu.Lock()
		r.c = r.srv.Client()
		r.mu.Unlock()
		return "same port and data", nil
	})
}

// restart carries out the restart of kind (planned of it in the run) with
// do, which says how it went, and records it with the restarts; a failed
// one is a problem.
func (r *run) restart(ctx context.Context, kind Kind, planned int, do func(context.Context) (string, error)) {
	res := r.res
	f := Fired{N: countKind(res.Restarts, kind) + 1, Kind: kind, At: time.Since(r.start), GraphRequests: r.graphRequests()}
	r.say("%s %d/%d at %d Graph requests", kind, f.N, planned, f.GraphRequests)
	t0 := time.Now()
	rctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	detail, err := do(rctx)
	cancel()
	f.Took = time.Since(t0)
	if err != nil {
		f.Detail = "failed: " + err.Error()
		res.Problems = append(res.Problems, fmt.Sprintf("%s %d failed: %v", kind, f.N, err))
	} else {
		f.Detail = detail
	}
	res.Restarts = append(res.Restarts, f)
	r.say("%s %d done in %s", kind, f.N, f.Took.Round(time.Millisecond))
}

// check looks at the migrations: it reports whether all have ended
// (and then has filled their reports), and a progress line with its key
// (the line is said when the key changes).
func (r *run) check(ctx context.Context) (done bool, line, key string) {
	res := r.res
	done = true
	var lines, keys []string
	for _, m := range r.migs {
		if m.ended {
			continue
		}
		ended, l, k := r.checkOne(ctx, m)
		if ended {
			continue
		}
		done = false
		if len(r.migs) > 1 {
			l, k = m.User+": "+l, m.User+"="+k
		}
		lines, keys = append(lines, l), append(keys, k)
	}
	if done {
		return true, "", ""
	}
	line = fmt.Sprintf("%s; %d/%d Graph requests; kills %d/%d, restarts %d/%d", strings.Join(lines, "; "), r.graphRequests(),
		res.ExpectedRequests, len(res.Kills), r.o.Kills+r.o.RefreshKills, len(res.Restarts), r.o.ServerRestarts+r.o.DatabaseRestarts)
	return false, line, strings.Join(keys, " ")
}

// checkOne looks at one migration: it reports whether it has ended (and
// then fills its report), and a progress line. A notebook waiting with
// failed sections gets retry-failed once, then finish.
func (r *run) checkOne(ctx context.Context, m *migration) (ended bool, line, key string) {
	res := r.res
	c := r.client()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	desc, err := c.DescribeWorkflow(cctx, m.WorkflowID, "")
	if err != nil {
		line = "describe: " + firstLine(err.Error())
		return false, line, line
	}
	if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING {
		if err := c.GetWorkflow(cctx, m.WorkflowID, "").Get(cctx, &m.Report); err != nil {
			if len(res.SignIns.Lost) < maxLostSignIns && r.acct.Lost(ctx, m.User) != nil {
				if r.signInAgain(ctx, m, err) {
					line = fmt.Sprintf("sign-in %d lost; signed in again and started the migration again", len(res.SignIns.Lost))
					return false, line, line
				}
				m.ended = true
				return true, "", ""
			}
			res.Problems = append(res.Problems, fmt.Sprintf("%s: the migration ended %s: %v", m.User, st, err))
		} else {
			m.Completed = true
		}
		m.ended = true
		return true, "", ""
	}
	p, err := stack.NotebookProgress(cctx, c, m.WorkflowID)
	if err != nil {
		line = "progress query: " + firstLine(err.Error())
		return false, line, line
	}
	if p.Failed > 0 && p.Running == 0 && p.Pending == 0 && strings.HasPrefix(p.Phase, "waiting") {
		for _, s := range p.Sections {
			if s.Status == workflows.SectionFailed {
				m.FailedSections = append(m.FailedSections, fmt.Sprintf("%s (attempt %d): %s", s.Path, s.Attempts, s.Error))
			}
		}
		send, name := workflows.RetryFailed, workflows.UpdateRetryFailed
		if m.RetriedFailed {
			send, name = workflows.Finish, workflows.UpdateFinish
		}
		r.say("%s: %d sections failed; sending %s", m.User, p.Failed, name)
		if _, err := send(cctx, c, m.WorkflowID); err != nil {
			r.say("%s: %s: %v", m.User, name, err)
		} else if name == workflows.UpdateRetryFailed {
			m.RetriedFailed = true
		}
	}
	line = fmt.Sprintf("%s: sections %d done, %d running, %d failed", p.Phase, p.Done, p.Running, p.Failed)
	return false, line, fmt.Sprintf("%s/%d/%d/%d", p.Phase, p.Done, p.Running, p.Failed)
}

// signInAgain records a lost sign-in (m ended with ended, and the stored
// sign-in of its user no longer works), signs the user in again as a
// person would (starter login), and starts the migration again. It
// reports whether the migration runs again.
func (r *run) signInAgain(ctx context.Context, m *migration, ended error) bool {
	res := r.res
	msg := ended.Error()
	var app *temporal.ApplicationError
	if errors.As(ended, &app) {
		msg = app.Message()
	}
	lost := LostSignIn{N: len(res.SignIns.Lost) + 1, At: time.Since(r.start), GraphRequests: r.graphRequests(),
		Error: firstLine(msg)}
	if n := len(res.Kills); n > 0 {
		k := res.Kills[n-1]
		lost.AfterKill = fmt.Sprintf("kill %d, %s, at %s: %s", k.N, k.Kind, k.At.Round(100*time.Millisecond), k.Detail)
	}
	res.SignIns.Lost = append(res.SignIns.Lost, lost)
	r.say("sign-in %d lost (%s); signing %s in again and starting the migration again", lost.N, lost.Error, m.User)
	if err := r.acct.SignIn(ctx, m.User); err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("sign %s in again after lost sign-in %d: %v", m.User, lost.N, err))
		return false
	}
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := r.client().ExecuteWorkflow(sctx, m.startOpts, workflows.MigrateNotebookName, m.input); err != nil {
		res.Problems = append(res.Problems, fmt.Sprintf("start the migration of %s again after lost sign-in %d: %v", m.User, lost.N, err))
		return false
	}
	return true
}

// judge gathers the figures and the verdict once the migration ended.
func (r *run) judge(ctx context.Context, secrets []string) {
	res := r.res
	add := func(format string, args ...any) { res.Problems = append(res.Problems, fmt.Sprintf(format, args...)) }
	stats, export := r.graph.Stats(), r.notion.Export()
	for _, m := range r.migs {
		us := stats.Users[m.User]
		m.GraphRequests, m.Graph429s = us.Requests, us.Throttled
		res.GraphRequests += us.Requests
		res.Graph429s += us.Throttled
		m.Verify = verify.Compare(m.exp, export, m.parent)
	}
	res.Violations = r.graph.Violations()
	res.NotionRequests = r.notion.Stats().Requests
	res.WorkerStarts = r.workers.starts()
	ids := r.graph.IdentityStats()
	res.SignIns.Refreshes, res.SignIns.Reused, res.SignIns.Rejected = ids.Refreshes, ids.Reused, ids.Rejected

	// The limiter answers queries only while a worker runs.
	if w := r.workers.ws[0]; !w.running() {
		_ = w.start()
	}
	qctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	st, err := stack.LimiterState(qctx, r.client(), app)
	cancel()
	if err != nil {
		add("query the limiter: %v", err)
	} else {
		for _, m := range r.migs {
			m.PermitUnits = int64(st.Stats.Units[m.User])
			res.PermitUnits += m.PermitUnits
		}
	}

	hctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	hdir := ""
	if res.Dir != "" {
		hdir = filepath.Join(res.Dir, "histories")
	}
	res.Histories, err = exportHistories(hctx, r.client(), hdir, secrets)
	cancel()
	if err != nil {
		add("export the histories: %v", err)
	}
	for _, w := range r.workers.ws {
		logText := w.logText()
		for i, s := range secrets {
			if strings.Contains(logText, s) {
				res.LogLeaks = append(res.LogLeaks, fmt.Sprintf("%s holds secret %d", filepath.Base(w.log), i+1))
			}
		}
	}

	if got, want := len(res.Kills), r.o.Kills+r.o.RefreshKills; got != want {
		add("%d of %d kills happened during the migration", got, want)
	}
	if n := len(res.SignIns.Lost); n > 0 && !r.o.StrictRefreshRotation {
		add("%d sign-ins were lost on Microsoft's refresh behaviour (a redeemed refresh token stays valid), first: %s", n, res.SignIns.Lost[0].Error)
	}
	if n := len(res.SignIns.Lost); n >= maxLostSignIns {
		add("the run gave up after %d lost sign-ins", n)
	}
	r.judgeRestarts(add)
	if res.SelfExits > 0 {
		add("workers exited by themselves %d times (see their logs)", res.SelfExits)
	}
	for _, m := range r.migs {
		m.judge(add)
	}
	if n := len(res.Violations); n > 0 {
		add("the Graph referee found %d windows over a limit, first: %+v", n, res.Violations[0])
	}
	for _, m := range r.migs {
		if m.PermitUnits > 0 && m.GraphRequests > m.PermitUnits {
			add("%s: %d Graph requests reached the emulator but the limiter granted only %d permit units", m.User, m.GraphRequests, m.PermitUnits)
		}
	}
	if n := len(res.Histories.Leaks); n > 0 {
		add("%d histories hold a secret: %s", n, strings.Join(res.Histories.Leaks, "; "))
	}
	if len(res.LogLeaks) > 0 {
		add("%s", strings.Join(res.LogLeaks, "; "))
	}
	if res.Histories.Runs == 0 && err == nil {
		add("no history was exported")
	}
}

// trapPatience is how long an armed trap waits for its kind of request
// before the worker is killed anyway.
const trapPatience = 90 * time.Second

// fallback starts the detail of a kill whose trap waited in vain.
const fallback = "fallback"

// maxLostSignIns is how many lost sign-ins the run signs in again after.
const maxLostSignIns = 50

// maxSelfExits is how many times the workers may exit without a kill
// before the run gives up: they cannot start.
const maxSelfExits = 5

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
