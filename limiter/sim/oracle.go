package sim

import (
	"slices"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Oracle is the best feasible finish of cfg's background work: a lower
// bound on the completion of any policy that keeps upstream's true limits
// (never above the published ones cfg.Spec, which our limiter may not
// exceed), and serves every scan that arrives before that finish.
//
// It is the maximum of two bounds, each found by the earliest-first
// greedy schedule of unit requests, which no schedule beats (the k-th
// request of any schedule that keeps a set of rolling windows leaves no
// sooner than the greedy's k-th: see earliest):
//
//   - each user on its own: its requests from its start, under the user
//     windows and the user's concurrency (a cap of C at once with every
//     request lasting at least LatencyMin allows at most C in any
//     LatencyMin, so it is one more rolling window; the user's page
//     workers cap it the same way);
//   - the app: every user's requests, each released no sooner than the
//     user's own greedy schedule could send it, plus the scan requests
//     that arrive before the finish, under the app windows and the app's
//     concurrency;
//   - each user with scans of its own: its requests from its start and
//     its scan requests that arrive before the finish, each from its
//     arrival, under the user windows and concurrency (full-812: the
//     user's own scans put its last requests in a fifth hour).
//
// Both sides apply the limit change at its time and send nothing during
// an outage. The last request then takes at least LatencyMin.
//
// What it relaxes, so that it stays a lower bound: each user's bound
// leaves out the others, and the app's leaves out the users' windows
// past the release (a request the app delays is not held to its user's
// windows again, so one user's delayed requests may bunch beyond its
// own limits); every request takes LatencyMin. It is the offline
// optimum where one bound binds with room in the others (full-201: the
// largest user's own bound, which a schedule reaches by having users
// that arrived minutes before it wait), and it knows every arrival: a
// limiter that cannot see a user coming may finish later (see TestOracle).
func Oracle(cfg Config) time.Duration {
	up := normalized(cfg)
	var releases []time.Time
	for _, u := range cfg.Workload.Users {
		n := u.Requests()
		if n == 0 {
			continue
		}
		b := up.bound(false, cfg.Workload.Workers)
		releases = append(releases, b.schedule(Epoch.Add(u.Start), nil, n)...)
	}
	if len(releases) == 0 {
		return 0
	}
	slices.SortFunc(releases, func(a, b time.Time) int { return a.Compare(b) })
	finish := up.bound(true, 0).last(releases)
	// Scans that arrive before the finish share the app with it, and a
	// migrating user's own scans share its user windows too; each one
	// taken in moves the finish later, and may take in more.
	for taken := 0; ; {
		scans := scanReleases(cfg, finish, up.LatencyMin)
		if len(scans) == taken {
			break
		}
		taken = len(scans)
		all := append(slices.Clone(releases), scans...)
		slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
		finish = up.bound(true, 0).last(all)
		for _, u := range cfg.Workload.Users {
			if u.Requests() > 0 {
				finish = later(finish, up.userWithScans(cfg, u, finish))
			}
		}
	}
	return finish.Sub(Epoch) + up.LatencyMin
}

// userWithScans is the greedy finish of user u's background requests,
// released at its start, together with u's own scan requests that arrive
// before end, under u's user windows and concurrency (not its page
// workers, which scans do not wait for), or its start when u has no scan
// before end. Every such scan is served by the finish, so no schedule
// sends the last of them all sooner.
func (up oracleUpstream) userWithScans(cfg Config, u UserWork, end time.Time) time.Time {
	start := Epoch.Add(u.Start)
	var own []Scan
	for _, s := range cfg.Workload.Scans {
		if s.User == u.User {
			own = append(own, s)
		}
	}
	scans := scanReleases(Config{Workload: Workload{Scans: own}, Horizon: cfg.Horizon}, end, up.LatencyMin)
	if len(scans) == 0 {
		return start
	}
	all := slices.Repeat([]time.Time{start}, u.Requests())
	all = append(all, scans...)
	slices.SortFunc(all, func(a, b time.Time) int { return a.Compare(b) })
	return up.bound(false, 0).last(all)
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// scanReleases is the earliest time each request of every scan that
// arrives before end could leave: the scan's arrival, and LatencyMin
// after the previous request of the scan. A scan repeats while
// background work is left, as in Run.
func scanReleases(cfg Config, end time.Time, latency time.Duration) []time.Time {
	var out []time.Time
	for _, s := range cfg.Workload.Scans {
		for at := s.At; Epoch.Add(at).Before(end) && at <= cfg.Horizon; at += s.Every {
			for k := range s.Requests {
				out = append(out, Epoch.Add(at+time.Duration(k)*latency))
			}
			if s.Every <= 0 || (s.Until > 0 && at+s.Every >= s.Until) {
				break
			}
		}
	}
	return out
}

// oracleUpstream is the limits the oracle holds a policy to: upstream's,
// capped by the published spec.
type oracleUpstream struct {
	UpstreamConfig
	spec limiter.Spec
}

func normalized(cfg Config) oracleUpstream {
	up := cfg.Upstream
	if up.Limits.User.Windows == nil {
		up.Limits = cfg.Spec
	}
	return oracleUpstream{UpstreamConfig: up, spec: cfg.Spec}
}

// bound is one scope's rolling windows for the oracle: each with its
// limit before and after the change, plus the instants nothing may
// leave (outages).
type bound struct {
	per           []time.Duration
	before, after []int
	change        time.Time // zero: no change
	outages       []Outage
	logs          [][]time.Time
}

// bound builds the app's (app true) or a user's bound; workers, when
// positive, caps the user's requests at once as well.
func (up oracleUpstream) bound(app bool, workers int) *bound {
	pick := func(s limiter.Spec) limiter.ScopeSpec {
		if app {
			return s.App
		}
		return s.User
	}
	capped := func(s limiter.Spec) []int {
		var out []int
		for i, w := range pick(s).Windows {
			out = append(out, min(w.Limit, pick(up.spec).Windows[i].Limit))
		}
		return append(out, min(pick(s).Concurrency, pick(up.spec).Concurrency))
	}
	b := &bound{before: capped(up.Limits), outages: up.Outages}
	for _, w := range pick(up.spec).Windows {
		b.per = append(b.per, w.Per.D())
	}
	b.per = append(b.per, max(up.LatencyMin, time.Nanosecond))
	b.after = b.before
	if up.Change != nil {
		b.after = capped(up.Change.Limits)
		b.change = Epoch.Add(up.Change.At)
	}
	if workers > 0 {
		b.per = append(b.per, max(up.LatencyMin, time.Nanosecond))
		b.before = append(slices.Clone(b.before), workers)
		b.after = append(slices.Clone(b.after), workers)
	}
	b.logs = make([][]time.Time, len(b.per))
	return b
}

// limit is window w's limit at t.
func (b *bound) limit(w int, t time.Time) int {
	if !b.change.IsZero() && !t.Before(b.change) {
		return b.after[w]
	}
	return b.before[w]
}

// earliest is the first instant at or after t at which one more request
// may leave: no outage holds it, and every window holds fewer than its
// limit then (an arrival at a counts at t iff t-per < a <= t, as
// upstream counts). Later instants only ever have fewer requests in a
// window, so moving t to the first instant a window frees, or to the
// change of limits, whichever comes first, and checking again finds it.
func (b *bound) earliest(t time.Time) time.Time {
	for {
		moved := false
		for _, o := range b.outages {
			if from, to := Epoch.Add(o.From), Epoch.Add(o.To); !t.Before(from) && t.Before(to) {
				t, moved = to, true
			}
		}
		for w, log := range b.logs {
			lim := b.limit(w, t)
			n := 0 // arrivals in (t-per, t]: the log is sorted and holds none after t
			for i := len(log) - 1; i >= 0 && log[i].After(t.Add(-b.per[w])); i-- {
				n++
			}
			if n < lim {
				continue
			}
			free := t.Add(b.per[w]) // a zero limit: nothing leaves until the change
			if lim > 0 {
				free = log[len(log)-lim].Add(b.per[w]) // the arrival that must leave
			}
			if !b.change.IsZero() && t.Before(b.change) && free.After(b.change) {
				free = b.change // the limit may rise then
			}
			t, moved = free, true
		}
		if !moved {
			return t
		}
	}
}

// send logs a request leaving at t.
func (b *bound) send(t time.Time) {
	for w := range b.logs {
		b.logs[w] = append(b.logs[w], t)
	}
}

// schedule is the greedy schedule of n requests from start, the k-th
// released no sooner than releases[k] when releases is given: each leaves
// at the earliest instant it may.
//
// No schedule that keeps the windows sends its k-th request sooner. By
// induction: if a schedule s sends its k-th at s_k, each earlier greedy
// request g_j <= s_j, and those still in a window at s_k are among the
// schedule's own in it (g_j > s_k-per implies s_j > s_k-per), so the
// windows have room for the greedy's k-th at s_k too, and it leaves no
// later.
func (b *bound) schedule(start time.Time, releases []time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	t := start
	for k := range n {
		if releases != nil && releases[k].After(t) {
			t = releases[k]
		}
		t = b.earliest(t)
		b.send(t)
		out = append(out, t)
	}
	return out
}

// last is when the greedy schedule of releases sends its last request.
func (b *bound) last(releases []time.Time) time.Time {
	s := b.schedule(releases[0], releases, len(releases))
	return s[len(s)-1]
}
