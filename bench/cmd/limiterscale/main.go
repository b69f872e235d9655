// Command limiterscale measures the Graph limiter at 10,000 users, for
// the single entity and for the sharded design in the same run:
//
//   - the model: every user with its page workers' asks queued and
//     granted, then the largest continue-as-new input of any entity, the
//     details string, the state query's answer and the time of one
//     decision pass (release one lease, queue one ask, grant);
//
//   - the entity on a Temporal dev server (with -entity): requester
//     workflows standing for the users' page workers make Graph requests
//     under permits; Graph requests per second and limiter history
//     events (every shard and the coordinator) per Graph request.
//
//     cd bench && go run ./cmd/limiterscale -entity -out results/limiter-scale.md
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/graphload"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/limiter/shard"
)

func main() {
	var (
		userList   = flag.String("users", "1000,10000", "user counts the model measures, comma-separated (the dev server's requesters are drawn from the last)")
		workers    = flag.Int("workers", 5, "page workers per user (asks queued at once)")
		shards     = flag.Int("shards", 128, "shards of the fixed-count sharded design the model measures beside shard.Count's")
		passes     = flag.Int("passes", 300, "decision passes timed per entity")
		runEntity  = flag.Bool("entity", false, "also measure the entity on a Temporal dev server")
		entShards  = flag.Int("entity-shards", 8, "shards of the sharded design on the dev server")
		requesters = flag.Int("requesters", 40, "requester workflows per design on the dev server: one user's migration each")
		each       = flag.Int("each", 30, "Graph requests per requester")
		userConc   = flag.Int("user-concurrency", 0, "each user's concurrency on the dev server (0: the spec's; the free spec's is 1,000, OneNote's 5)")
		limits     = flag.String("limits", "", "the limits profile on the dev server (onenote, onenote-x<factor>; empty: a free budget)")
		runModel   = flag.Bool("model", true, "measure the model")
		rounds     = flag.Int("rounds", 2, "rounds of the two designs on the dev server, in the order ABBA... (the machine's load drifts)")
		out        = flag.String("out", "", "write the report to this file too")
		designs    = flag.String("designs", "single,batched,ahead,sharded-plain,sharded,sharded-ahead", "designs measured on the dev server, of single, batched, ahead, sharded-plain, sharded, sharded-ahead, product")
		verbose    = flag.Bool("v", false, "print each design's limiter history events by type")
		load       = flag.String("load", "graph", "what a requester does under each permit: graph (one Graph request, an activity) or permits (nothing: ask, grant, release; the limiter's own throughput)")
	)
	flag.Parse()
	var counts []int
	for _, f := range strings.Split(*userList, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "limiterscale: -users %q: want positive counts, comma-separated\n", *userList)
			os.Exit(2)
		}
		counts = append(counts, n)
	}
	users := &counts[len(counts)-1]
	var b strings.Builder
	fmt.Fprintf(&b, "Model at %v users x %d page workers (OneNote user limits, the app budget never binding, so every user holds its 5 leases: the largest state).\n\n", counts, *workers)
	b.WriteString("| users | design | entities | users per entity (max) | max continue-as-new input | max details | max state query answer | decision pass (mean over entities' passes) |\n|---|---|---|---|---|---|---|---|\n")
	for _, nu := range counts {
		if !*runModel {
			break
		}
		for _, n := range []int{1, *shards, shard.Count(nu)} {
			name := "single entity"
			switch {
			case n == shard.Count(nu) && n > 1:
				name = "shards by shard.Count"
			case n == *shards && n > 1:
				name = fmt.Sprintf("%d shards (fixed)", n)
			case n > 1:
				continue
			}
			r, err := model(nu, *workers, n, *passes)
			if err != nil {
				fmt.Fprintln(os.Stderr, "limiterscale:", err)
				os.Exit(1)
			}
			fmt.Fprintf(&b, "| %d | %s | %d | %d | %s | %s | %s | %v |\n", nu, name, n, r.maxUsers, kib(r.maxInput), kib(r.maxDetails), kib(r.maxQuery), r.pass)
			fmt.Fprintf(os.Stderr, "model %d users, %s done\n", nu, name)
		}
	}
	if *runEntity {
		if *load != "graph" && *load != "permits" {
			fmt.Fprintf(os.Stderr, "limiterscale: -load %q: want graph or permits\n", *load)
			os.Exit(2)
		}
		if err := entityRun(&b, *entShards, *requesters, *each, *users, *workers, *rounds, *userConc, *limits, strings.Split(*designs, ","), *load == "permits", *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "limiterscale:", err)
			os.Exit(1)
		}
	}
	fmt.Print(b.String())
	if *out != "" {
		if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "limiterscale:", err)
			os.Exit(1)
		}
	}
}

func kib(n int) string { return fmt.Sprintf("%.1f KiB", float64(n)/1024) }

// modelSpec is the OneNote table with an app budget that never binds.
func modelSpec() limiter.Spec {
	s := limiter.OneNote()
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}, {Limit: 10_000_000, Per: limiter.Duration(time.Hour)}}, Concurrency: 1_000_000}
	return s
}

type modelResult struct {
	maxUsers, maxInput, maxDetails, maxQuery int
	pass                                     time.Duration
}

// model fills n entities (shards) with users' asks as the entity would
// hold them, and measures what each would carry and show.
func model(users, workers, n, passes int) (modelResult, error) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	type ent struct {
		m     *limiter.Limiter
		req   map[string]entity.Address
		stats entity.Stats
		users []string
	}
	ents := make([]*ent, n)
	for i := range ents {
		m, err := limiter.New(modelSpec(), now)
		if err != nil {
			return modelResult{}, err
		}
		ents[i] = &ent{m: m, req: map[string]entity.Address{}, stats: entity.Stats{Granted: map[string]int{}, Units: map[string]int{}}}
	}
	for u := range users {
		user := fmt.Sprintf("user%05d@contoso.example", u)
		e := ents[shard.Of(user, n)]
		e.users = append(e.users, user)
		for w := range workers {
			id := fmt.Sprintf("%s-page-%d/run-0123456789abcdef/%d", user, w, 1)
			if err := e.m.Enqueue(limiter.Request{ID: id, User: user, Lane: limiter.Background, Cost: 1}, now); err != nil {
				return modelResult{}, err
			}
			e.req[id] = entity.Address{WorkflowID: "migrate-section/" + user + fmt.Sprintf("/%d", w), RunID: "0123456789abcdef0123456789abcdef"}
		}
	}
	var res modelResult
	var passTime time.Duration
	var passN int
	for _, e := range ents {
		res.maxUsers = max(res.maxUsers, len(e.users))
		for _, g := range e.m.Grant(now) {
			e.stats.Granted[g.User]++
			e.stats.Units[g.User] += g.Cost
		}
		// Each pass: one lease comes back, its worker asks again, grant.
		t := now.Add(time.Second)
		seq := 2
		np := passes
		if n == 1 {
			np = min(passes, 3) // seconds each at 10,000 users
		}
		for p := range np {
			if len(e.users) == 0 {
				break
			}
			user := e.users[p%len(e.users)]
			st := e.m.State(t)
			var lease limiter.Grant
			for _, l := range st.Leases {
				if l.User == user {
					lease = l
					break
				}
			}
			start := time.Now()
			e.m.Release(lease.LeaseID, limiter.Outcome{Status: 200}, t)
			seq++
			_ = e.m.Enqueue(limiter.Request{ID: fmt.Sprintf("%s-again-%d", user, seq), User: user, Lane: limiter.Background, Cost: 1}, t)
			e.m.Grant(t)
			passTime += time.Since(start)
			passN++
			t = t.Add(10 * time.Millisecond)
		}
		state, err := e.m.MarshalJSON()
		if err != nil {
			return modelResult{}, err
		}
		in := entity.Input{Resource: "graph-onenote", App: "app", State: state, Requesters: e.req, Stats: e.stats}
		if n > 1 {
			in.Shard = &entity.ShardConfig{Index: 0, Count: n}
			sp := modelSpec()
			in.Spec = &sp
		}
		raw, err := json.Marshal(in)
		if err != nil {
			return modelResult{}, err
		}
		res.maxInput = max(res.maxInput, len(raw))
		snap := e.m.State(now.Add(2 * time.Second))
		res.maxDetails = max(res.maxDetails, len(entity.Details(in, e.stats, snap)))
		q, err := json.Marshal(entity.Bounded(entity.State{Model: snap, Stats: e.stats, Waiting: len(e.req)}))
		if err != nil {
			return modelResult{}, err
		}
		res.maxQuery = max(res.maxQuery, len(q))
	}
	if passN > 0 {
		res.pass = (passTime / time.Duration(passN)).Round(time.Microsecond)
	}
	return res, nil
}

// entityRun measures both designs on one dev server.
// stack is a dev server and a worker serving the requesters and the
// limiter; each design runs on a fresh one, so that none inherits the
// histories (and the slower server) of those before it.
type stack struct {
	srv   *devserver.Server
	c     client.Client
	w     worker.Worker
	meter cpuMeter
}

const benchQueue = "limiterscale"

func startStack(ctx context.Context, acts *graphload.Activities) (*stack, error) {
	srv, err := devserver.Start(ctx, devserver.Options{})
	if err != nil {
		return nil, err
	}
	c := srv.Client()
	_, port, _ := net.SplitHostPort(srv.HostPort())
	w := worker.New(c, benchQueue, worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8})
	graphload.Register(w, c, acts)
	if err := w.Start(); err != nil {
		srv.Stop()
		return nil, err
	}
	return &stack{srv: srv, c: c, w: w, meter: cpuMeter{port: port}}, nil
}

func (s *stack) stop() {
	s.w.Stop()
	s.srv.Stop()
}

// pageResources are the resources of successive pages in the designs that
// migrate pages: 0 to 4, 2 on average, so a page costs 3 Graph requests,
// the planning figure of ../shared/reference/peers.md (1 content call and
// 1 per image or attachment, about 3 a page).
var pageResources = []int{2, 0, 3, 1, 4}

// entityRun measures the designs on dev servers, a fresh one for each
// design in each round.
func entityRun(b *strings.Builder, shards, requesters, each, users, workers, rounds, userConc int, limits string, names []string, permitsOnly, verbose bool) error {
	spec := graphload.FreeSpec()
	if limits != "" {
		var err error
		if spec, err = limiter.Profile(limits); err != nil {
			return err
		}
	}
	if userConc > 0 {
		spec.User.Concurrency = userConc
	}
	ctx := context.Background()
	// A requester is one user's migration with its page workers; the
	// users are spread over the 10,000 (and so over the shards). One
	// notebook owner is enough for the emulator: every user's token lists
	// the same owner's notebooks.
	byReq := make([][]string, requesters)
	var everyone []string
	for i := range requesters {
		byReq[i] = []string{fmt.Sprintf("user%05d@contoso.example", i*max(1, users/requesters))}
		everyone = append(everyone, byReq[i]...)
	}
	acts, stopGraph, err := graphload.ServeGraph([]string{"owner"}, everyone)
	if err != nil {
		return err
	}
	defer stopGraph()
	load := "each permit covers one Graph request, an activity"
	if permitsOnly {
		load = "each permit is given back as soon as it is granted, with no Graph call: the load is the limiter's protocol alone, so Graph requests here are permits"
	}
	budget := "budget free"
	if limits != "" {
		budget = "limits " + spec.Name
	}
	fmt.Fprintf(b, "\nEntity on a Temporal dev server (a fresh one for each design in each round), %s (user concurrency %d): %d requester workflows (one user's migration each, %d page workers, %d Graph requests; the users drawn from the %d); %s. Limiter events are the history events of every limiter workflow (the entity, or every shard and the coordinator). Designs that ask ahead ask %d permits at once (the product design: the section's rule, at most half the user's concurrency).\n\n",
		budget, spec.User.Concurrency, requesters, workers, each, users, load, workers-1)
	// The dev server's and worker's own CPU when nothing runs, for 10 s.
	idleStack, err := startStack(ctx, acts)
	if err != nil {
		return err
	}
	idle0 := idleStack.meter.total()
	time.Sleep(10 * time.Second)
	idle := (idleStack.meter.total() - idle0) / 10
	idleStack.stop()
	fmt.Fprintf(b, "The worker and dev server use %v of CPU a second when idle.\n\n", idle.Round(time.Millisecond))
	b.WriteString("| round | design | limiter entities | Graph requests | took | Graph requests/s | CPU ms / Graph request (worker + dev server) | Graph requests / CPU-second | busiest limiter workflow busy | its capacity (Graph requests / busy second) | limiter events / Graph request | signals to limiters / Graph request | grant signals / Graph request | permit wait p50 | permit wait p99 |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	type design struct {
		key    string
		name   string
		shards int
		perAsk bool
		ahead  int
		// pages: the requesters migrate pages as the section workflow
		// does (graphload.Input.Resources), not one request a permit.
		pages []int
	}
	all := map[string]design{
		"single":        {"single", "single entity, a signal per ask (the first design)", 1, true, 0, nil},
		"batched":       {"batched", "single entity, batched (the default)", 1, false, 0, nil},
		"ahead":         {"ahead", "single entity, batched, asks ahead", 1, false, workers - 1, nil},
		"sharded-plain": {"sharded-plain", "sharded, a signal per ask", shards, true, 0, nil},
		"sharded":       {"sharded", "sharded, batched", shards, false, 0, nil},
		"sharded-ahead": {"sharded-ahead", "sharded, batched, asks ahead", shards, false, workers - 1, nil},
		"product":       {"product", "sharded, pages, asks ahead (the product's section)", shards, false, workers, pageResources},
	}
	var chosen []design
	for _, n := range names {
		d, ok := all[strings.TrimSpace(n)]
		if !ok {
			return fmt.Errorf("-designs: no design %q (want single, batched, ahead, sharded-plain, sharded, sharded-ahead or product)", n)
		}
		chosen = append(chosen, d)
	}
	rates, cpuRates, capRates := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for r := range rounds {
		order := slices.Clone(chosen)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, d := range order {
			st, err := startStack(ctx, acts)
			if err != nil {
				return err
			}
			c, meter, tq := st.c, st.meter, benchQueue
			app := fmt.Sprintf("scale-%s-r%d", d.key, r)
			start, cpu0, srv0 := time.Now(), meter.total(), meter.server()
			var runs []client.WorkflowRun
			for i := range requesters {
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-req-%d", app, i), TaskQueue: tq}, graphload.Requester,
					graphload.Input{Resource: "bench", App: app, Users: byReq[i], N: each, Workers: workers, Spec: spec, Shards: d.shards, SignalPerAsk: d.perAsk, AskAhead: d.ahead, PermitsOnly: permitsOnly, Resources: d.pages})
				if err != nil {
					return err
				}
				runs = append(runs, run)
			}
			done := 0
			var waits []time.Duration
			for _, run := range runs {
				var o graphload.Output
				if err := run.Get(ctx, &o); err != nil {
					return fmt.Errorf("%s: %w", d.name, err)
				}
				done += o.Done
				waits = append(waits, o.Waits...)
			}
			slices.Sort(waits)
			took, cpu, srvCPU := time.Since(start), meter.total()-cpu0, meter.server()-srv0
			ids := []string{entity.WorkflowID("bench", app)}
			if d.shards > 1 {
				ids = []string{entity.CoordinatorWorkflowID("bench", app)}
				for k := range d.shards {
					ids = append(ids, entity.ShardID("bench", app, k, d.shards))
				}
			}
			ev, busiest, err := events(ctx, c, ids)
			if err != nil {
				return err
			}
			rate := float64(done) / took.Seconds()
			rates[d.name] = append(rates[d.name], rate)
			perCPU := float64(done) / cpu.Seconds()
			cpuRates[d.name] = append(cpuRates[d.name], perCPU)
			n := float64(done)
			capacity := n / busiest.Seconds()
			capRates[d.name] = append(capRates[d.name], capacity)
			fmt.Fprintf(b, "| %d | %s | %d | %d | %v | %.1f | %.1f | %.1f | %.0f%% | %.0f | %.2f | %.2f | %.2f | %v | %v |\n", r+1, d.name, len(ids), done, took.Round(time.Millisecond), rate,
				float64(cpu.Milliseconds())/n, perCPU, 100*busiest.Seconds()/took.Seconds(), capacity,
				float64(sum(ev))/n, float64(ev["WorkflowExecutionSignaled"])/n, float64(ev["SignalExternalWorkflowExecutionInitiated"])/n,
				waits[len(waits)/2].Round(time.Millisecond), waits[len(waits)*99/100].Round(time.Millisecond))
			fmt.Fprintf(os.Stderr, "round %d %s: %d requests in %v, CPU %v (dev server %v)\n", r+1, d.name, done, took.Round(time.Millisecond), cpu, srvCPU)
			if verbose {
				fmt.Fprintf(os.Stderr, "  waits p50 %v p90 %v p99 %v\n  limiter events: %v\n", waits[len(waits)/2], waits[len(waits)*9/10], waits[len(waits)*99/100], ev)
				var reqIDs []string
				for i := range requesters {
					reqIDs = append(reqIDs, fmt.Sprintf("%s-req-%d", app, i))
				}
				rev, _, err := events(ctx, c, reqIDs)
				if err != nil {
					return err
				}
				fmt.Fprintf(os.Stderr, "  requester events (%.2f a Graph request): %v\n", float64(sum(rev))/float64(done), rev)
				if err := breakdown(ctx, c, ids, done); err != nil {
					return err
				}
				if trace := os.Getenv("LIMITERSCALE_TRACE"); trace != "" {
					for _, id := range ids {
						if strings.Contains(id, trace) {
							traceHistory(ctx, c, id)
						}
					}
				}
			}
			st.stop()
		}
	}
	base := median(rates[chosen[0].name])
	b.WriteString("\nMedian Graph requests/s:")
	for i, d := range chosen {
		m := median(rates[d.name])
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(b, "%s %s %.1f (%.2fx the %s)", sep, d.name, m, m/base, chosen[0].name)
	}
	b.WriteString(".\n")
	for _, m := range []struct {
		what  string
		rates map[string][]float64
	}{{"Graph requests per CPU-second (worker and dev server)", cpuRates}, {"limiter capacity (Graph requests per busy second of the busiest limiter workflow)", capRates}} {
		base := median(m.rates[chosen[0].name])
		fmt.Fprintf(b, "\nMedian %s:", m.what)
		for i, d := range chosen {
			v := median(m.rates[d.name])
			sep := ","
			if i == 0 {
				sep = ""
			}
			fmt.Fprintf(b, "%s %s %.1f (%.2fx)", sep, d.name, v, v/base)
		}
		b.WriteString(".\n")
	}
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func sum(m map[string]int) int {
	t := 0
	for _, v := range m {
		t += v
	}
	return t
}

// events counts the history events of every run of the workflow IDs, and
// returns the busiest workflow's busy time: the sum, over its workflow
// tasks, of the time from a task's scheduling to its completion (a
// workflow runs one task at a time, so this is how long it was working or
// waiting for a worker).
func events(ctx context.Context, c client.Client, ids []string) (map[string]int, time.Duration, error) {
	out := map[string]int{}
	var busiest time.Duration
	for _, id := range ids {
		var busy time.Duration
		var scheduled time.Time
		err := graphload.EachEvent(ctx, c, id, func(_ int, e *historypb.HistoryEvent) {
			out[e.GetEventType().String()]++
			switch e.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED:
				scheduled = e.GetEventTime().AsTime()
			case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED, enumspb.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT:
				if !scheduled.IsZero() {
					busy += e.GetEventTime().AsTime().Sub(scheduled)
					scheduled = time.Time{}
				}
			}
		})
		if err != nil {
			return nil, 0, err
		}
		busiest = max(busiest, busy)
	}
	return out, busiest, nil
}

// breakdown prints, on stderr, the limiter's history events per Graph
// request by workflow (the coordinator, the shards together) and kind:
// the event type, with a signal's name, and the runs (continue-as-new);
// then the events and grant markers of every limiter workflow by minute
// of the run (where a budget binds, which phase the events belong to).
func breakdown(ctx context.Context, c client.Client, ids []string, done int) error {
	type key struct{ who, what string }
	counts := map[key]int{}
	var order []key
	var start time.Time
	type stamp struct {
		at    time.Time
		grant bool
	}
	var stamps []stamp
	for i, id := range ids {
		who := "shards"
		if len(ids) == 1 {
			who = "entity"
		} else if i == 0 {
			who = "coordinator"
		}
		active := false
		err := graphload.EachEvent(ctx, c, id, func(run int, e *historypb.HistoryEvent) {
			what := e.GetEventType().String()
			switch e.GetEventType() {
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
				what += ":" + e.GetWorkflowExecutionSignaledEventAttributes().GetSignalName()
			case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
				what += ":" + e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes().GetSignalName()
			case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
				if run > 0 {
					what = "run continued as new"
				}
			}
			at := e.GetEventTime().AsTime()
			if start.IsZero() || at.Before(start) {
				start = at
			}
			stamps = append(stamps, stamp{at, e.GetEventType() == enumspb.EVENT_TYPE_MARKER_RECORDED})
			k := key{who, what}
			if counts[k] == 0 {
				order = append(order, k)
			}
			counts[k]++
			active = true
		})
		if err != nil {
			return err
		}
		if active && who == "shards" {
			counts[key{who, "(shard workflows with any event)"}]++
		}
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if a.who != b.who {
			return strings.Compare(a.who, b.who)
		}
		return counts[b] - counts[a]
	})
	n := float64(done)
	fmt.Fprintf(os.Stderr, "  limiter events a Graph request, by workflow and kind (%d Graph requests):\n", done)
	for _, k := range order {
		fmt.Fprintf(os.Stderr, "    %-12s %-70s %6d  %.3f\n", k.who, k.what, counts[k], float64(counts[k])/n)
	}
	if k := (key{"shards", "(shard workflows with any event)"}); counts[k] > 0 {
		fmt.Fprintf(os.Stderr, "    shards: %d workflows with any event\n", counts[k])
	}
	byMinute, grantsByMinute := map[int]int{}, map[int]int{}
	for _, st := range stamps {
		m := int(st.at.Sub(start) / time.Minute)
		byMinute[m]++
		if st.grant {
			grantsByMinute[m]++
		}
	}
	fmt.Fprintf(os.Stderr, "  limiter events and grant markers by minute of the run (minutes with any):\n")
	for _, m := range slices.Sorted(maps.Keys(byMinute)) {
		fmt.Fprintf(os.Stderr, "    minute %3d: %6d events, %5d grant markers\n", m, byMinute[m], grantsByMinute[m])
	}
	return nil
}

// traceHistory prints a workflow's history on stderr, an event a line:
// the time since its start, the type and a signal's name (debugging aid,
// LIMITERSCALE_TRACE=<part of a workflow ID>).
func traceHistory(ctx context.Context, c client.Client, id string) {
	var t0 time.Time
	_ = graphload.EachEvent(ctx, c, id, func(run int, e *historypb.HistoryEvent) {
		if t0.IsZero() {
			t0 = e.GetEventTime().AsTime()
		}
		what := e.GetEventType().String()
		if a := e.GetWorkflowExecutionSignaledEventAttributes(); a != nil {
			what += " " + a.GetSignalName()
		}
		if a := e.GetSignalExternalWorkflowExecutionInitiatedEventAttributes(); a != nil {
			what += " " + a.GetSignalName() + " " + a.GetWorkflowExecution().GetWorkflowId()
		}
		if a := e.GetTimerStartedEventAttributes(); a != nil {
			what += " " + a.GetStartToFireTimeout().AsDuration().String()
		}
		fmt.Fprintf(os.Stderr, "    %s %d %8.3fs %s\n", id, run, e.GetEventTime().AsTime().Sub(t0).Seconds(), what)
	})
}
