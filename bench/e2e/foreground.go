package e2e

import (
	"context"
	"fmt"
	"strings"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/stack"
	"github.com/notebridge/notebridge/limiter"
)

// scanUser owns one notebook with one section of 99 pages, each with 19
// resources (20 Graph requests a page, about 1,980 in all: five hours of
// one user's budget, so the migration saturates it for the whole
// scanning period). One section of fewer than 100 pages keeps a scan at
// 2 Graph requests (the notebooks with their tree, one page listing), so
// a scan every 15 minutes (8 requests an hour) fits the limiter's default
// 2.5% foreground reserve (10 of 400 requests an hour).
func scanUser() User {
	return User{Name: "scan", Spec: graph.GenSpec{Seed: 1, Owner: "scan", Notebooks: 1, SectionsPerContainer: 1,
		PagesPerSection: 99, ImagesPerPage: 10, AttachmentsPerPage: 9}}
}

// scanRun is one variant of scenario 3.
type scanRun struct {
	name      string
	latencies []time.Duration
	at        []time.Duration // when each scan started
	requests  []int           // Graph requests each scan made
	log       []Request
	done      []time.Duration
	from, to  time.Duration // the scanning period
	before    time.Duration // the scan before the migration started
}

// scanRequests counts the Graph requests of the scans that started in
// [from, to).
func (r *scanRun) scanRequests() int {
	n := 0
	for i, t := range r.at {
		if t >= r.from && t < r.to {
			n += r.requests[i]
		}
	}
	return n
}

// runScans runs one variant of scenario 3. Like a person using the
// demo, it scans first (unless firstOnly), then starts the migration, and
// scans every ScanEvery from 30 scaled minutes in for ScanHours. With
// firstOnly it makes only the scan at 30 minutes, the first foreground
// request of the run, and stops.
func (b *Bench) runScans(ctx context.Context, name string, u User, limiterSpec *limiter.Spec, firstOnly bool) (*scanRun, error) {
	profile, _ := b.profile()
	st, err := b.H.Start(ctx, StackConfig{Name: name, Profile: profile, Scale: b.scale, LimiterSpec: limiterSpec, Users: []User{u}})
	if err != nil {
		return nil, err
	}
	defer st.Stop()
	r := &scanRun{name: name}
	if !firstOnly {
		d, _, err := st.Scan(ctx, u.Name, "scan/"+u.Name+"/before")
		if err != nil {
			return nil, err
		}
		r.before = d
	}
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
	if err != nil {
		return nil, err
	}
	r.from = b.wall(30 * time.Minute)
	r.to = r.from + b.wall(time.Duration(b.Opts.ScanHours*float64(time.Hour)))
	every := b.wall(b.Opts.ScanEvery)
	if err := stack.Sleep(ctx, time.Until(m.Started.Add(r.from))); err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		at := time.Since(m.Started)
		if at >= r.to || (firstOnly && i == 1) {
			break
		}
		d, res, err := st.Scan(ctx, u.Name, fmt.Sprintf("scan/%s/%d", u.Name, i))
		if err != nil {
			return nil, err
		}
		r.latencies, r.at, r.requests = append(r.latencies, d), append(r.at, at), append(r.requests, res.Requests)
		b.Log.Info("scan", "run", name, "n", i, "latency", d.Round(time.Millisecond), "requests", res.Requests,
			"pages", len(st.PagesDone(m.Started)))
		next := r.from + time.Duration(i+1)*every
		if err := stack.Sleep(ctx, time.Until(m.Started.Add(next))); err != nil {
			return nil, err
		}
	}
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: time.Nanosecond}); err != nil {
		return nil, err
	}
	r.log, r.done = st.GraphLog(m.Started), st.PagesDone(m.Started)
	if err := st.SaveData(m.Started); err != nil {
		b.Log.Warn("raw data not saved", "error", err)
	}
	if _, err := st.Stop(); err != nil {
		b.Log.Warn("stopping the stack", "error", err)
	}
	return r, nil
}

// scenarioForeground is scenario 3: foreground scans while a background
// migration saturates the budget, with lanes and with lanes off.
func (b *Bench) scenarioForeground(ctx context.Context) error {
	_, spec := b.profile()
	u := b.users(scanUser())[0]
	lanes, err := b.runScans(ctx, "s3-lanes", u, nil, false)
	if err != nil {
		return err
	}
	off := spec
	off.Tuning.SingleLane = true
	single, err := b.runScans(ctx, "s3-one-lane", u, &off, false)
	if err != nil {
		return err
	}
	// Pages of cost-1 requests fill the hour window to the last unit (a
	// cost-10 permit can leave a few units free that a scan slips into).
	coldUser := b.users(User{Name: "cold", Spec: graph.GenSpec{Seed: 1, Owner: "cold", Notebooks: 1, SectionsPerContainer: 3,
		PagesPerSection: 99, ImagesPerPage: 1}})[0]
	cold, err := b.runScans(ctx, "s3-lanes-first-scan", coldUser, nil, true)
	if err != nil {
		return err
	}
	budget := Binding(spec.User.Windows)
	var w strings.Builder
	fmt.Fprintf(&w, "## 3. Foreground scans during a saturating migration\n\n")
	fmt.Fprintf(&w, "One user migrates a notebook of 99 pages with 19 resources each (about 1,980 Graph requests, five hours of "+
		"the user's budget, so it saturates the budget throughout). As a person would with the demo, the bench runs "+
		"`ScanNotebooks` for the user, starts the migration, and then scans every %s (scaled; %s wall-clock), one scan after "+
		"another, from 30 scaled minutes in for %g scaled hours. A scan makes 2 Graph requests in the foreground lane. Scan "+
		"latency is what the person waits: from starting the workflow to its result (wall-clock: a person's wait does not "+
		"scale). Background budget use is the migration's accepted requests in the scanning period over the 400 an hour the "+
		"user may make. \"One lane\" is the limiter with lanes switched off (`Tuning.SingleLane`: every request waits in one "+
		"queue, no reserve).\n\n", fmtDur(b.Opts.ScanEvery), b.wall(b.Opts.ScanEvery), b.Opts.ScanHours)
	fmt.Fprintf(&w, "| limiter | scans | scan p50 | scan p99 | scan max | background budget use | all requests' budget use | 429s |\n|---|---|---|---|---|---|---|---|\n")
	use := map[string]float64{}
	for _, r := range []*scanRun{lanes, single} {
		acc := Times(r.log, func(q Request) bool { return q.Status < 400 })
		all := BudgetUse(acc, r.from, r.to, budget)
		allowed := float64(budget.Limit) * float64(r.to-r.from) / float64(budget.Per.D())
		bg := (float64(CountIn(acc, r.from, r.to)) - float64(r.scanRequests())) / allowed
		use[r.name] = bg
		thr := len(Times(r.log, Request.Throttled))
		fmt.Fprintf(&w, "| %s | %d | %s | %s | %s | %.1f%% | %.1f%% | %d |\n", r.name, len(r.latencies),
			fmtDur(Percentile(r.latencies, 0.5)), fmtDur(Percentile(r.latencies, 0.99)), fmtDur(Percentile(r.latencies, 1)),
			100*bg, 100*all, thr)
	}
	coldWait, coldHeld := time.Duration(0), 0
	if len(cold.latencies) > 0 {
		coldWait = cold.latencies[0]
		at := cold.at[0]
		coldHeld = CountIn(Times(cold.log, func(q Request) bool { return q.Status < 400 }), at-b.wall(time.Hour), at)
	}
	fmt.Fprintf(&w, "\nWith %d scans the p99 is the slowest scan (nearest rank). The scans before the migration took %s (lanes) "+
		"and %s (one lane).\n\n", len(lanes.latencies), fmtDur(lanes.before), fmtDur(single.before))
	fmt.Fprintf(&w, "**A scan in a migration that never saw one is not covered by the reserve.** The limiter holds the "+
		"foreground reserve only once foreground work was seen, and for `ReserveIdle` after it (a day by default), so "+
		"that a migration nobody scans during keeps 100%% of the budget. The usual way in is a scan (it is how a person "+
		"finds the notebook to migrate), which sets the reserve for the whole migration. A migration started without one "+
		"(from the temporal CLI with a notebook ID already known) spends the whole hour window, and its first scan waits "+
		"until the window slides, in real time up to an hour. A third run shows it: a migration of pages whose requests all "+
		"cost 1 (so they fill the window to the last unit), started without a scan, and one scan at 30 scaled minutes. When "+
		"the scan was asked, %d of the user's 400 requests of the past hour had been accepted; it waited %s (%s "+
		"wall-clock). Every later scan finds the reserve held.\n\n"+
		"![scan latency, requests and pages](e2e-foreground.png)\n\n", coldHeld, fmtDur(b.scaled(coldWait)), fmtDur(coldWait))
	b.sections = append(b.sections, w.String())
	p99 := Percentile(lanes.latencies, 0.99)
	b.check("3", "with lanes: scan p99 <= 2 s", p99 <= 2*time.Second, "%s (one lane: %s)", fmtDur(p99), fmtDur(Percentile(single.latencies, 0.99)))
	b.check("3", "with lanes: the migration keeps >= 90% of its budget", use[lanes.name] >= 0.9, "%.1f%% (one lane: %.1f%%)",
		100*use[lanes.name], 100*use[single.name])
	b.check("3", "the first scan of a migration begun without one (reported, not bounded)", true, "%s wall-clock (%s scaled), the window holding %d of 400",
		fmtDur(coldWait), fmtDur(b.scaled(coldWait)), coldHeld)

	minute := b.wall(time.Minute)
	n := int(max(lanes.to, single.to)/minute) + 1
	var lat, req, done []Series
	for _, r := range []*scanRun{lanes, single} {
		s := Series{Name: r.name, Points: true}
		for i, d := range r.latencies {
			s.X = append(s.X, b.scaled(r.at[i]).Hours())
			s.Y = append(s.Y, d.Seconds())
		}
		lat = append(lat, s)
		req = append(req, Steps(r.name, PerBucket(Times(r.log, nil), minute, n), 1.0/60))
		done = append(done, Cumulative(r.name, PerBucket(r.done, minute, n), 1.0/60))
	}
	b.plot("e2e-foreground.png", []Panel{
		{Title: "scan latency (wall-clock seconds)", XLabel: "scaled hours", YLabel: "seconds", Series: lat},
		{Title: "Graph requests per scaled minute", XLabel: "scaled hours", YLabel: "requests/min", Series: req},
		{Title: "pages done", XLabel: "scaled hours", YLabel: "pages", Series: done},
	})
	return nil
}
