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
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/graphload"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/limiter/shard"
)

func main() {
	var (
		users      = flag.Int("users", 10_000, "users")
		workers    = flag.Int("workers", 5, "page workers per user (asks queued at once)")
		shards     = flag.Int("shards", 128, "shards of the sharded design")
		passes     = flag.Int("passes", 300, "decision passes timed per entity")
		runEntity  = flag.Bool("entity", false, "also measure the entity on a Temporal dev server")
		entShards  = flag.Int("entity-shards", 8, "shards of the sharded design on the dev server")
		requesters = flag.Int("requesters", 40, "requester workflows per design on the dev server: one user's migration each")
		each       = flag.Int("each", 30, "Graph requests per requester")
		runModel   = flag.Bool("model", true, "measure the model")
		rounds     = flag.Int("rounds", 2, "rounds of the two designs on the dev server, in the order ABBA... (the machine's load drifts)")
		out        = flag.String("out", "", "write the report to this file too")
	)
	flag.Parse()
	var b strings.Builder
	fmt.Fprintf(&b, "Model at %d users x %d page workers (OneNote user limits, the app budget never binding, so every user holds its 5 leases: the largest state).\n\n", *users, *workers)
	b.WriteString("| design | entities | users per entity (max) | max continue-as-new input | max details | max state query answer | decision pass (mean over entities' passes) |\n|---|---|---|---|---|---|---|\n")
	for _, n := range []int{1, *shards} {
		if !*runModel {
			break
		}
		r, err := model(*users, *workers, n, *passes)
		if err != nil {
			fmt.Fprintln(os.Stderr, "limiterscale:", err)
			os.Exit(1)
		}
		name := "single entity"
		if n > 1 {
			name = "sharded"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %s | %s | %v |\n", name, n, r.maxUsers, kib(r.maxInput), kib(r.maxDetails), kib(r.maxQuery), r.pass)
		fmt.Fprintf(os.Stderr, "model %s done\n", name)
	}
	if *runEntity {
		if err := entityRun(&b, *entShards, *requesters, *each, *users, *workers, *rounds); err != nil {
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

// freeSpec is a spec whose budget never binds.
func freeSpec() limiter.Spec {
	s := limiter.OneNote()
	s.Name = "free"
	s.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000}
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000}
	return s
}

// entityRun measures both designs on one dev server.
func entityRun(b *strings.Builder, shards, requesters, each, users, workers, rounds int) error {
	ctx := context.Background()
	srv, err := devserver.Start(ctx, devserver.Options{})
	if err != nil {
		return err
	}
	defer srv.Stop()
	g := graph.NewServer(graph.Config{Limits: graph.UnlimitedLimits(), Seed: 1})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: g}
	go hs.Serve(ln)
	defer hs.Close()
	// A requester is one user's migration with its page workers; the
	// users are spread over the 10,000 (and so over the shards).
	per := 1
	tokens := map[string]string{}
	byReq := make([][]string, requesters)
	for i := range requesters {
		byReq[i] = []string{fmt.Sprintf("user%05d@contoso.example", i*max(1, users/requesters))}
	}
	// One notebook owner is enough for the emulator: every user's token
	// lists the same user's notebooks.
	g.AddNotebooks("owner", graph.Generate(graph.GenSpec{Seed: 1, Owner: "owner", Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})...)
	tok := g.IssueToken("owner", []string{"Notes.Read"}, 24*time.Hour)
	for _, us := range byReq {
		for _, u := range us {
			tokens[u] = tok
		}
	}
	c := srv.Client()
	const tq = "limiterscale"
	w := worker.New(c, tq, worker.Options{MaxConcurrentWorkflowTaskPollers: 8, MaxConcurrentActivityTaskPollers: 8})
	graphload.Register(w, c, &graphload.Activities{BaseURL: "http://" + ln.Addr().String(), Tokens: tokens, HTTP: &http.Client{Timeout: 10 * time.Second}})
	if err := w.Start(); err != nil {
		return err
	}
	defer w.Stop()
	fmt.Fprintf(b, "\nEntity on a Temporal dev server, budget free: %d requester workflows (one user's migration each, %d page workers, %d Graph requests; the users drawn from the %d). Limiter events are the history events of every limiter workflow (the entity, or every shard and the coordinator). The sharded design batches releases and asks %d permits ahead.\n\n",
		requesters, workers, each, users, workers)
	_ = per
	b.WriteString("| round | design | limiter entities | Graph requests | took | Graph requests/s | limiter events / Graph request | signals to limiters / Graph request | grant signals / Graph request |\n|---|---|---|---|---|---|---|---|---|\n")
	type design struct {
		name   string
		shards int
		batch  bool
		ahead  int
	}
	single, sharded := design{"single entity, unbatched (the default)", 1, false, 0}, design{"sharded, batched, asks ahead", shards, true, workers}
	plain := design{"sharded, unbatched", shards, false, 0}
	batched := design{"single entity, batched", 1, true, 0}
	rates := map[string][]float64{}
	for r := range rounds {
		order := []design{single, batched, plain, sharded}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, d := range order {
			app := fmt.Sprintf("scale-%d-%t-%d-r%d", d.shards, d.batch, d.ahead, r)
			start := time.Now()
			var runs []client.WorkflowRun
			for i := range requesters {
				run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: fmt.Sprintf("%s-req-%d", app, i), TaskQueue: tq}, graphload.Requester,
					graphload.Input{Resource: "bench", App: app, Users: byReq[i], N: each, Workers: workers, Spec: freeSpec(), Shards: d.shards, Batch: d.batch, AskAhead: d.ahead})
				if err != nil {
					return err
				}
				runs = append(runs, run)
			}
			done := 0
			for _, run := range runs {
				var o graphload.Output
				if err := run.Get(ctx, &o); err != nil {
					return fmt.Errorf("%s: %w", d.name, err)
				}
				done += o.Done
			}
			took := time.Since(start)
			ids := []string{entity.WorkflowID("bench", app)}
			if d.shards > 1 {
				ids = []string{entity.CoordinatorWorkflowID("bench", app)}
				for k := range d.shards {
					ids = append(ids, fmt.Sprintf("%s/shard-%d", entity.WorkflowID("bench", app), k))
				}
			}
			ev, err := events(ctx, c, ids)
			if err != nil {
				return err
			}
			rate := float64(done) / took.Seconds()
			rates[d.name] = append(rates[d.name], rate)
			n := float64(done)
			fmt.Fprintf(b, "| %d | %s | %d | %d | %v | %.1f | %.2f | %.2f | %.2f |\n", r+1, d.name, len(ids), done, took.Round(time.Millisecond), rate,
				float64(sum(ev))/n, float64(ev["WorkflowExecutionSignaled"])/n, float64(ev["SignalExternalWorkflowExecutionInitiated"])/n)
			fmt.Fprintf(os.Stderr, "round %d %s: %d requests in %v\n", r+1, d.name, done, took.Round(time.Millisecond))
		}
	}
	ms, mb, mh, mp := median(rates[single.name]), median(rates[batched.name]), median(rates[sharded.name]), median(rates[plain.name])
	fmt.Fprintf(b, "\nMedian Graph requests/s: single entity unbatched %.1f, batched %.1f (%.2fx), sharded unbatched %.1f (%.2fx), sharded batched with asks ahead %.1f (%.2fx).\n",
		ms, mb, mb/ms, mp, mp/ms, mh, mh/ms)
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

// events counts the history events of every run of the workflow IDs.
func events(ctx context.Context, c client.Client, ids []string) (map[string]int, error) {
	out := map[string]int{}
	for _, id := range ids {
		var next []byte
		var runIDs []string
		for {
			resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Query: fmt.Sprintf("WorkflowId = '%s'", id), NextPageToken: next})
			if err != nil {
				return nil, err
			}
			for _, e := range resp.GetExecutions() {
				runIDs = append(runIDs, e.GetExecution().GetRunId())
			}
			if next = resp.GetNextPageToken(); len(next) == 0 {
				break
			}
		}
		for _, run := range runIDs {
			it := c.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				e, err := it.Next()
				if err != nil {
					return nil, err
				}
				out[e.GetEventType().String()]++
			}
		}
	}
	return out, nil
}
