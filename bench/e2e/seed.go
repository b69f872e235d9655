package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notebridge/notebridge/bench/baseline"
	graph "github.com/notebridge/notebridge/emulator/graph"
)

// seedUser owns the seed design's incident notebook: 1,300 pages in 13
// sections, each page with one image and one attachment (3 Graph requests
// a page, about 3,930 in all).
func seedUser() User {
	return User{Name: "seed", Spec: graph.GenSpec{Seed: 1, Owner: "seed", Notebooks: 1, SectionsPerContainer: 13,
		PagesPerSection: 100, ImagesPerPage: 1, AttachmentsPerPage: 1}}
}

// seedRun is one migration of the seed notebook under one policy.
type seedRun struct {
	policy     string
	pages      int
	done       []time.Duration
	log        []Request
	spans      []Span
	completion time.Duration // 0 if it did not complete
	horizon    time.Duration // wall-clock time it was allowed
	failed     int           // pages failed (abandoned) over all rounds
	requeues   int
	violations int
	hist       *Histories
	usage      Usage
}

func (r *seedRun) accepted() []time.Duration {
	return Times(r.log, func(q Request) bool { return q.Status < 400 })
}

func (r *seedRun) throttled() int {
	n := 0
	for _, q := range r.log {
		if q.Throttled() {
			n++
		}
	}
	return n
}

// end is when the run ended: completion, or the horizon.
func (r *seedRun) end() time.Duration {
	if r.completion > 0 {
		return r.completion
	}
	return r.horizon
}

// runSeed migrates the seed notebook under the given baseline ("" for
// ours, the limiter),
// stopping it at horizon (wall-clock) if it has not finished.
func (b *Bench) runSeed(ctx context.Context, name string, policy baseline.Policy, horizon time.Duration, histories bool) (*seedRun, error) {
	profile, _ := b.profile()
	u := b.users(seedUser())[0]
	st, err := b.H.Start(ctx, StackConfig{Name: name, Profile: profile, Scale: b.scale, Baseline: policy, Users: []User{u}})
	if err != nil {
		return nil, err
	}
	defer st.Stop()
	r := &seedRun{policy: string(policy), pages: pages(u), horizon: horizon}
	if policy == "" {
		r.policy = "ours"
	}
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
	if err != nil {
		return nil, err
	}
	err = st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: horizon, Requeue: r.policy != "ours",
		Progress: b.progress(st, m, r.pages)})
	if err != nil {
		return nil, err
	}
	r.log, r.done, r.spans = st.GraphLog(m.Started), st.PagesDone(m.Started), st.GraphSpans(m.Started)
	if err := st.SaveData(m.Started); err != nil {
		b.Log.Warn("raw data not saved", "error", err)
	}
	if m.Completed {
		r.completion = m.Ended.Sub(m.Started)
	}
	r.failed, r.requeues = m.Failed+m.Report.FailedPages, m.Requeues
	r.violations = len(st.Graph.Violations())
	if histories {
		h, err := st.ReadHistories(ctx)
		if err != nil {
			return nil, err
		}
		r.hist = &h
	}
	if r.usage, err = st.Stop(); err != nil {
		b.Log.Warn("stopping the stack", "error", err)
	}
	return r, nil
}

// progress logs a migration's progress every 30 s of wall-clock time.
func (b *Bench) progress(st *Stack, m *Migration, pages int) func() {
	last := time.Now()
	return func() {
		if time.Since(last) < 30*time.Second {
			return
		}
		last = time.Now()
		gs := st.Graph.Stats()
		b.Log.Info("progress", "workflow", m.ID, "wall", time.Since(m.Started).Round(time.Second),
			"scaled", b.scaled(time.Since(m.Started)).Round(time.Minute),
			"pages", fmt.Sprintf("%d/%d", len(st.PagesDone(m.Started)), pages),
			"graphRequests", gs.Requests, "throttled", gs.Throttled, "limiter", st.LimiterWindows(m.User))
	}
}

// scenarioSeed is scenario 1: the seed design's incident under the
// limiter at exact limits.
func (b *Bench) scenarioSeed(ctx context.Context) error {
	_, spec := b.profile()
	// Generous: the lower bound is about 9 scaled hours.
	horizon := b.wall(30 * time.Hour)
	r, err := b.runSeed(ctx, "s1-ours", "", horizon, true)
	if err != nil {
		return err
	}
	b.seed = r
	acc := r.accepted()
	lb := LowerBound(spec.User.Windows, len(acc))
	rb := RateBound(spec.User.Windows, len(acc))
	var w strings.Builder
	fmt.Fprintf(&w, "## 1. One user, 1,300 pages, exact limits\n\n")
	fmt.Fprintf(&w, "The seed design's incident: one user's notebook of 1,300 pages in 13 sections, each page one image and one attachment "+
		"(3 Graph requests a page), migrated with the default options (3 sections and 3 pages at a time) under the limiter. "+
		"The emulator enforces the published limits exactly, counts every request that reaches it (throttled ones too) and "+
		"sends no throttle headers.\n\n")
	fmt.Fprintf(&w, "| pages done | completion | lower bound | × bound | rate bound | Graph requests | accepted | 429s | window violations | longest without a page |\n")
	fmt.Fprintf(&w, "|---|---|---|---|---|---|---|---|---|---|\n")
	ratio := 0.0
	comp := "not done"
	if r.completion > 0 && lb > 0 {
		ratio = float64(r.completion) / float64(lb)
		comp = b.fmtScaled(r.completion)
	}
	gap := LongestGap(r.done, 0, r.end())
	fmt.Fprintf(&w, "| %d/%d | %s | %s | %.3f | %s | %d | %d | %d | %d | %s |\n\n",
		len(r.done), r.pages, comp, b.fmtScaled(lb), ratio, b.fmtScaled(rb), len(r.log), len(acc), r.throttled(), r.violations, b.fmtScaled(gap))
	fmt.Fprintf(&w, "The lower bound is `sim.GreedyFinish`: the earliest the %d-th request can leave from empty windows, every request leaving "+
		"the instant every window has room (the initial burst included). The rate bound (requests divided by 400 an hour) is %s. "+
		"The longest stretch without a page is the hour window itself: each hour's 400 requests leave as fast as the pipeline "+
		"runs, then nothing may leave until the window slides.\n\n", len(acc), b.fmtScaled(rb))
	bursts := hourBursts(acc, b.wall(time.Hour), 380)
	if len(bursts) > 0 {
		fmt.Fprintf(&w, "Pipeline speed: within a full hour the pipeline needed a median %s and at most %s (wall-clock) to spend 380 of the "+
			"hour's 400 requests, which the windows would allow in %s; it is not the bottleneck except for the last hour's tail.\n\n",
			Percentile(bursts, 0.5).Round(100*time.Millisecond), slices.Max(bursts).Round(100*time.Millisecond),
			LowerBound(spec.User.Windows, 380).Round(100*time.Millisecond))
	}
	steady := time.Duration(0)
	if len(r.done) > 0 {
		steady = slices.Min(r.done)
	}
	stall, stallAt := Stalls(r.spans, spec.User.Windows, steady, r.end())
	fmt.Fprintf(&w, "Longest time, once the first page was done, that the windows had room, no Graph request was in flight and none "+
		"arrived: %s, from %s on (see scenario 5).\n\n", b.fmtScaled(stall), b.fmtScaled(stallAt))
	if r.hist != nil {
		writeActions(&w, "this run", *r.hist, len(r.done))
	}
	fmt.Fprintf(&w, "![requests, 429s and pages done](e2e-seed.png)\n\n")
	b.sections = append(b.sections, w.String())
	b.check("1", "ours: completion <= 1.05x the lower bound", r.completion > 0 && ratio <= 1.05, "%.3fx (%s for %s)", ratio, comp, b.fmtScaled(lb))
	b.check("1", "ours: 0 upstream 429s at exact spec limits", r.throttled() == 0, "%d", r.throttled())
	b.check("1", "ours: the emulator's referee finds no window over a limit", r.violations == 0, "%d violations", r.violations)
	b.check("1", "ours: every page migrated", len(r.done) == r.pages, "%d/%d", len(r.done), r.pages)
	return b.plotSeed([]*seedRun{r})
}

// scenarioBaselines is scenario 2: the same notebook through the
// baselines wired into the pipeline in place of the limiter.
func (b *Bench) scenarioBaselines(ctx context.Context) error {
	horizon := b.wall(time.Duration(b.Opts.BaselineHours * float64(time.Hour)))
	ours := b.seed
	if ours == nil {
		// Scenario 1 was not run: run ours to the same horizon.
		var err error
		if ours, err = b.runSeed(ctx, "s2-ours", "", horizon, false); err != nil {
			return err
		}
	}
	runs := []*seedRun{ours}
	for _, p := range []baseline.Policy{baseline.Backoff, baseline.QueueRetry} {
		r, err := b.runSeed(ctx, "s2-"+string(p), p, horizon, false)
		if err != nil {
			return err
		}
		runs = append(runs, r)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "## 2. The baselines on the same notebook\n\n")
	fmt.Fprintf(&w, "The same notebook, stack and machine, with the bench worker's `-baseline` set instead of the limiter "+
		"(`bench/baseline`): **backoff** is the Graph SDK's default retry handler (429, 503, 504 retried after 3, 6, 12 s "+
		"plus up to 1 s of jitter, then the call is abandoned and its page fails; the bench answers a notebook waiting with failed "+
		"sections with `retry-failed`, so abandoned pages go back to the queue as in the simulator); **queue-retry** is the seed "+
		"design: a throttled call waits 30 s and goes again, forever. Their delays are divided by the time scale like the windows. "+
		"Each baseline ran for %g scaled hours (%s wall-clock); ours is shown at the same moment.\n\n", b.Opts.BaselineHours, horizon)
	fmt.Fprintf(&w, "| policy | pages done by %gh | requests sent | accepted | 429s (wasted) | wasted share | pages abandoned | retry-failed rounds | longest without a page |\n", b.Opts.BaselineHours)
	fmt.Fprintf(&w, "|---|---|---|---|---|---|---|---|---|\n")
	type row struct {
		done, sent, acc, thr, abandoned int
		gap                             time.Duration
	}
	rows := map[string]row{}
	for _, r := range runs {
		sent := CountIn(Times(r.log, nil), 0, horizon)
		acc := CountIn(r.accepted(), 0, horizon)
		thr := CountIn(Times(r.log, Request.Throttled), 0, horizon)
		done := CountIn(r.done, 0, horizon+1)
		end := min(horizon, r.end())
		gap := LongestGap(r.done, 0, end)
		share := 0.0
		if sent > 0 {
			share = float64(thr) / float64(sent)
		}
		rows[r.policy] = row{done, sent, acc, thr, r.failed, gap}
		fmt.Fprintf(&w, "| %s | %d/%d | %d | %d | %d | %.1f%% | %d | %d | %s |\n", r.policy, done, r.pages, sent, acc, thr, 100*share,
			r.failed, r.requeues, b.fmtScaled(gap))
	}
	fmt.Fprintf(&w, "\n![requests, 429s and pages done per policy](e2e-seed.png)\n\n")
	b.sections = append(b.sections, w.String())
	qr, bo, us := rows[string(baseline.QueueRetry)], rows[string(baseline.Backoff)], rows["ours"]
	b.check("2", "queue-retry: death spiral (>= 30 scaled min without a page done)", b.scaled(qr.gap) >= 30*time.Minute,
		"%s without a page; %d of %d requests throttled", fmtDur(b.scaled(qr.gap)), qr.thr, qr.sent)
	b.check("2", "backoff: wastes requests and abandons pages where ours wastes none", bo.thr > 0 && bo.abandoned > 0 && us.thr == 0,
		"backoff %d of %d requests wasted, %d pages abandoned; ours %d wasted", bo.thr, bo.sent, bo.abandoned, us.thr)
	return b.plotSeed(runs)
}

// hourBursts returns, for every full (wall-clock) hour after the first
// in which at least n requests were accepted, how long the pipeline took
// from the hour's first accepted request to its n-th.
func hourBursts(accepted []time.Duration, hour time.Duration, n int) []time.Duration {
	ts := slices.Clone(accepted)
	slices.Sort(ts)
	var out []time.Duration
	for k := 1; ; k++ {
		from, to := time.Duration(k)*hour, time.Duration(k+1)*hour
		i, _ := slices.BinarySearch(ts, from)
		j, _ := slices.BinarySearch(ts, to)
		if i >= len(ts) {
			return out
		}
		if j-i >= n {
			out = append(out, ts[i+n-1]-ts[i])
		}
	}
}

// plotSeed writes e2e-seed.png: requests and 429s per scaled minute and
// pages done, one line per policy.
func (b *Bench) plotSeed(runs []*seedRun) error {
	minute := b.wall(time.Minute)
	var horizon time.Duration
	for _, r := range runs {
		horizon = max(horizon, r.end())
	}
	n := int(horizon/minute) + 1
	unit := 1.0 / 60 // scaled hours per bucket
	var sent, thr, done []Series
	for _, r := range runs {
		sent = append(sent, Steps(r.policy, PerBucket(Times(r.log, nil), minute, n), unit))
		thr = append(thr, Steps(r.policy, PerBucket(Times(r.log, Request.Throttled), minute, n), unit))
		done = append(done, Cumulative(r.policy, PerBucket(r.done, minute, n), unit))
	}
	b.plot("e2e-seed.png", []Panel{
		{Title: "one user, 1,300 pages: Graph requests per scaled minute (log scale)", XLabel: "scaled hours", YLabel: "1 + requests/min", LogY: true, Series: sent},
		{Title: "throttled (429) per scaled minute (log scale)", XLabel: "scaled hours", YLabel: "1 + 429s/min", LogY: true, Series: thr},
		{Title: "pages done", XLabel: "scaled hours", YLabel: "pages", Series: done},
	})
	return nil
}

// writeActions writes what the run cost Temporal, per page.
func writeActions(w *strings.Builder, what string, h Histories, pages int) {
	if pages == 0 {
		return
	}
	a := h.Actions()
	per := func(n int) float64 { return float64(n) / float64(pages) }
	fmt.Fprintf(w, "Temporal cost of %s, from every history (all runs of every workflow): per page %.2f actions "+
		"(%.2f signals, %.2f activities, %.2f timers, %.2f workflow starts, %.2f search-attribute upserts, %.2f markers) "+
		"and %.2f workflow tasks. Longest history per workflow type: %s.\n\n",
		what, per(a.Billed()), per(a.Signals), per(a.Activities), per(a.Timers), per(a.Starts), per(a.Upserts), per(a.Markers),
		per(a.WorkflowTasks), longestText(h))
}

func longestText(h Histories) string {
	types := make([]string, 0, len(h.Longest))
	for t := range h.Longest {
		types = append(types, t)
	}
	slices.Sort(types)
	parts := make([]string, len(types))
	for i, t := range types {
		parts[i] = fmt.Sprintf("%s %d events (%d runs)", t, h.Longest[t], h.Runs[t])
	}
	return strings.Join(parts, ", ")
}
