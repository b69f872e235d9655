// Command limiterbench measures the limiter entity on a real Temporal dev
// server: Graph requests covered by permits per second from one entity,
// the permit round trip (ask to grant) when the budget is free, and the
// Temporal actions each Graph request costs, for our protocol and for the
// naive one-signal-per-permit design in the same run. With -soak it also
// pushes one entity through many permits and reports its runs' history
// lengths.
//
//	cd bench && go run ./cmd/limiterbench -out results
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/graphload"
	"github.com/notebridge/notebridge/limiter/entity"
)

func main() {
	var (
		requesters = flag.Int("requesters", 20, "requester workflows per design")
		each       = flag.Int("each", 25, "Graph requests per requester")
		users      = flag.Int("users", 4, "users the requesters are spread over")
		soak       = flag.Int("soak", 0, "also grant this many permits from one entity and report its runs (e.g. 100000)")
		naive      = flag.Bool("naive", true, "also measure the naive design")
		pollers    = flag.Int("pollers", 8, "workflow and activity task pollers of the worker")
		out        = flag.String("out", "", "directory for limiter.md (stdout only if empty)")
		dbFile     = flag.String("db", "", "keep the dev server's state in this SQLite file (default: in memory)")
		dynamic    multiFlag
	)
	flag.Var(&dynamic, "dynamic-config", "a dev server dynamic config value KEY=JSON (repeatable)")
	flag.Parse()
	srvOpts := devserver.Options{DBFile: *dbFile, DynamicConfig: dynamic}
	if err := run(srvOpts, *requesters, *each, *users, *soak, *pollers, *naive, *out); err != nil {
		fmt.Fprintln(os.Stderr, "limiterbench:", err)
		os.Exit(1)
	}
}

type result struct {
	name        string
	load        string
	requests    int
	wall        time.Duration
	waits       []time.Duration
	events      map[string]int
	limiterRuns int
	maxHistory  int
}

// multiFlag collects a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func run(srvOpts devserver.Options, requesters, each, users, soak, pollers int, naive bool, outDir string) error {
	ctx := context.Background()
	srv, err := devserver.Start(ctx, srvOpts)
	if err != nil {
		return err
	}
	defer srv.Stop()
	var names []string
	for i := range users {
		names = append(names, fmt.Sprintf("user%d", i))
	}
	acts, stop, err := graphload.ServeGraph(names, names)
	if err != nil {
		return err
	}
	defer stop()
	c := srv.Client()
	const tq = "limiterbench"
	w := worker.New(c, tq, worker.Options{MaxConcurrentWorkflowTaskPollers: pollers, MaxConcurrentActivityTaskPollers: pollers})
	graphload.Register(w, c, acts)
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()

	var results []result
	type design struct {
		name, app string
		workflow  any
		limiter   func(app string) string
	}
	designs := []design{{"ours", "ours", graphload.Requester, func(app string) string { return entity.WorkflowID("bench", app) }}}
	if naive {
		designs = append(designs, design{"naive", "naive", graphload.NaiveRequester, graphload.NaiveWorkflowID})
	}
	if requesters == 0 {
		designs = nil
	}
	// Each design twice: one requester alone measures the protocol's
	// round trip on an idle entity; then many at once measure throughput,
	// where the round trip includes queueing behind the others.
	loads := []struct {
		name             string
		requesters, each int
	}{{"idle", 1, 40}, {"loaded", requesters, each}}
	for _, d := range designs {
		for _, l := range loads {
			app := d.app + "-" + l.name
			start := time.Now()
			var runs []client.WorkflowRun
			for i := range l.requesters {
				r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("bench-%s-%d", app, i), TaskQueue: tq},
					d.workflow, graphload.Input{Resource: "bench", App: app, User: fmt.Sprintf("user%d", i%users), N: l.each, Spec: graphload.FreeSpec()})
				if err != nil {
					return err
				}
				runs = append(runs, r)
			}
			res := result{name: d.name, load: fmt.Sprintf("%s (%d x %d)", l.name, l.requesters, l.each), events: map[string]int{}}
			for _, r := range runs {
				var o graphload.Output
				if err := r.Get(ctx, &o); err != nil {
					return fmt.Errorf("%s: %w", d.name, err)
				}
				res.requests += o.Done
				res.waits = append(res.waits, o.Waits...)
			}
			res.wall = time.Since(start)
			ids := []string{d.limiter(app)}
			for i := range l.requesters {
				ids = append(ids, fmt.Sprintf("bench-%s-%d", app, i))
			}
			if err := countEvents(ctx, c, ids, &res); err != nil {
				return err
			}
			results = append(results, res)
			fmt.Fprintf(os.Stderr, "%s %s: %d requests in %v\n", d.name, res.load, res.requests, res.wall.Round(time.Millisecond))
		}
	}

	var soakLine string
	if soak > 0 {
		start := time.Now()
		r, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "bench-soak", TaskQueue: tq}, graphload.SoakRequester,
			graphload.SoakInput{Resource: "bench", App: "soak", User: "user0", Permits: soak, Batch: 100, Spec: graphload.FreeSpec()})
		if err != nil {
			return err
		}
		var done int
		if err := r.Get(ctx, &done); err != nil {
			return fmt.Errorf("soak: %w", err)
		}
		elapsed := time.Since(start)
		runs, longest, err := runLengths(ctx, c, entity.WorkflowID("bench", "soak"))
		if err != nil {
			return fmt.Errorf("soak: history lengths: %w", err)
		}
		qctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		v, err := c.QueryWorkflow(qctx, entity.WorkflowID("bench", "soak"), "", entity.QueryState)
		if err != nil {
			return fmt.Errorf("soak: query the limiter: %w", err)
		}
		var st entity.State
		if err := v.Get(&st); err != nil {
			return err
		}
		soakLine = fmt.Sprintf("Soak: one entity granted %d permits in %v (%.0f permits/s in batches of 100) over %d runs; the longest run had %d events (limit 10,000).\n",
			st.Stats.Units["user0"], elapsed.Round(time.Second), float64(st.Stats.Units["user0"])/elapsed.Seconds(), runs, longest)
	}
	return report(results, soakLine, requesters, each, outDir)
}

// countEvents adds up the history events of every run of the given
// workflow IDs (the limiter may have continued as new).
func countEvents(ctx context.Context, c client.Client, ids []string, res *result) error {
	for i, id := range ids {
		lengths := map[int]int{}
		err := graphload.EachEvent(ctx, c, id, func(run int, e *historypb.HistoryEvent) {
			res.events[e.GetEventType().String()]++
			lengths[run]++
		})
		if err != nil {
			return err
		}
		if i == 0 {
			res.limiterRuns += len(lengths)
			for _, n := range lengths {
				res.maxHistory = max(res.maxHistory, n)
			}
		}
	}
	return nil
}

// runLengths counts the runs of a workflow ID and the longest run's
// events, from visibility (closed runs) and a describe (the open one).
func runLengths(ctx context.Context, c client.Client, id string) (runs, longest int, err error) {
	var next []byte
	for {
		resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = '%s'", id), NextPageToken: next})
		if err != nil {
			return 0, 0, err
		}
		for _, e := range resp.GetExecutions() {
			runs++
			longest = max(longest, int(e.GetHistoryLength()))
		}
		if next = resp.GetNextPageToken(); len(next) == 0 {
			break
		}
	}
	d, err := c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return 0, 0, err
	}
	return runs, max(longest, int(d.RawResponse.GetWorkflowExecutionInfo().GetHistoryLength())), nil
}

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func report(rs []result, soakLine string, requesters, each int, outDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Limiter entity on a Temporal dev server, budget free: one requester workflow alone (idle: the protocol's round trip), then %d requester workflows x %d Graph requests each (loaded: throughput; the round trip includes queueing behind the others).\n\n", requesters, each)
	fmt.Fprintln(&b, "| design | load | Graph requests/s | permit round trip p50 | p99 | workflow tasks / req | signals / req | activities / req | local activities / req | timers / req | actions / req | limiter runs | longest limiter run (events) |")
	fmt.Fprintln(&b, "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rs {
		n := float64(r.requests)
		per := func(keys ...string) float64 {
			t := 0
			for _, k := range keys {
				t += r.events[k]
			}
			return float64(t) / n
		}
		wft := per("WorkflowTaskCompleted")
		sig := per("WorkflowExecutionSignaled")
		act := per("ActivityTaskScheduled")
		la := per("MarkerRecorded")
		tim := per("TimerStarted")
		// Actions as Temporal counts them: signals received, activities and
		// local activities started, timers and workflows started.
		actions := sig + act + la + tim + per("WorkflowExecutionStarted")
		fmt.Fprintf(&b, "| %s | %s | %.1f | %v | %v | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %d | %d |\n",
			r.name, r.load, n/r.wall.Seconds(), pct(r.waits, 0.5).Round(time.Millisecond), pct(r.waits, 0.99).Round(time.Millisecond),
			wft, sig, act, la, tim, actions, r.limiterRuns, r.maxHistory)
	}
	if soakLine != "" {
		fmt.Fprintln(&b)
		b.WriteString(soakLine)
	}
	fmt.Print(b.String())
	if outDir == "" || len(rs) == 0 {
		return nil
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(outDir, "limiter.md"), []byte(b.String()), 0o644)
}
