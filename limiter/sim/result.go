package sim

import (
	"slices"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Result is what one run measured.
type Result struct {
	Scenario, Policy string

	Pages, PagesDone int
	Logical          int // requests the work needs (each succeeding once)
	Sent             int // requests upstream received
	Accepted         int
	Throttled        int // 429 with 20166
	Concurrency      int // 429 with 10003
	Failed           int // 5xx
	Retries          int // sends that repeat a request already sent
	Abandoned        int // jobs given back to the queue

	Finished   bool
	Completion time.Duration // when the last page was done (Horizon if not)
	LowerBound time.Duration // shortest possible completion under the true limits
	// BestFeasible is the finish of the best schedule found that keeps
	// every true limit (BestFeasible); LowerBound <= BestFeasible.
	BestFeasible time.Duration

	PeakUsage float64 // worst rolling-window count / published limit

	LongestNoPage     time.Duration // longest interval without a page done while work remained
	MaxStall          time.Duration // longest idle time beyond what the true limits force
	FirstThrottlePage int           // pages done when the first throttle came back

	FGWaits []time.Duration // per foreground request: asked to sent

	// ThrottledAfterAdapt is the fraction of requests sent after the
	// first throttle came back that were throttled.
	ThrottledAfterAdapt float64
	// Budget is accepted requests in the measure interval divided by what
	// the binding true limits allow in it.
	Budget float64
	// Jain is Jain's fairness index over users' accepted requests while
	// every user still had work.
	Jain float64
	// JainEqual is the lowest Jain's index within a group of users with
	// equal demand (the same requests, starting together), each group
	// measured until its first user finished; 0 when no group has two
	// users.
	JainEqual float64

	// Per simulated minute.
	SentPerMin, ThrottledPerMin, PagesPerMin []int

	lastPage     time.Time
	userAccepted map[string][]time.Time
	sentAfter    int
	thrAfter     int
	measured     int
}

func newResult(cfg Config, policy string) *Result {
	mins := int(cfg.Horizon/time.Minute) + 1
	return &Result{
		Scenario:        cfg.Scenario,
		Policy:          policy,
		SentPerMin:      make([]int, mins),
		ThrottledPerMin: make([]int, mins),
		PagesPerMin:     make([]int, mins),
		lastPage:        Epoch,
		userAccepted:    map[string][]time.Time{},
	}
}

func (res *Result) minute(r *run) int {
	return min(int(r.since()/time.Minute), len(res.SentPerMin)-1)
}

// record counts one send and its response.
func (res *Result) record(r *run, j *job, attempt int, resp Response) {
	res.Sent++
	m := res.minute(r)
	res.SentPerMin[m]++
	if j.tries > 1 {
		res.Retries++
	}
	if !r.adapt.IsZero() {
		res.sentAfter++
	}
	switch {
	case resp.Status == 200:
		res.Accepted++
		if j.page {
			res.userAccepted[j.user] = append(res.userAccepted[j.user], r.now)
		}
		s := r.since()
		if s >= r.cfg.MeasureFrom && (r.cfg.MeasureTo == 0 || s < r.cfg.MeasureTo) {
			res.measured++
		}
	case resp.Code == limiter.CodeConcurrency:
		res.Concurrency++
		res.ThrottledPerMin[m]++
	case resp.Status == 429:
		res.Throttled++
		res.ThrottledPerMin[m]++
	default:
		res.Failed++
	}
	if resp.Status == 429 && !r.adapt.IsZero() {
		res.thrAfter++
	}
}

func (res *Result) pageDone(r *run) {
	res.PagesDone++
	res.PagesPerMin[res.minute(r)]++
	res.LongestNoPage = max(res.LongestNoPage, r.now.Sub(res.lastPage))
	res.lastPage = r.now
}

// finish computes the summary figures at the end of the run.
func (r *run) finish(end time.Time) {
	res, cfg := r.res, r.cfg
	res.Finished = r.left == 0
	res.Completion = res.lastPage.Sub(Epoch)
	if !res.Finished {
		res.Completion = cfg.Horizon
		res.LongestNoPage = max(res.LongestNoPage, end.Sub(res.lastPage))
	}
	res.LowerBound = LowerBound(cfg.Upstream.Limits, cfg.Workload, cfg.Upstream.LatencyMin)
	res.PeakUsage = r.up.PeakUsage()
	if res.sentAfter > 0 {
		res.ThrottledAfterAdapt = float64(res.thrAfter) / float64(res.sentAfter)
	}
	res.Budget = float64(res.measured) / float64(allowed(r.up.cfg.Limits, len(cfg.Workload.Users), cfg.MeasureFrom, cfg.MeasureTo, cfg.Horizon))
	res.Jain = r.jain(r.order)
	res.BestFeasible = BestFeasible(cfg.Upstream, cfg.Workload)
	res.JainEqual = r.jainEqual()
}

// allowed is the most requests the limits let through in [from, to) for
// users busy users: the minimum over the user windows (times users) and
// the app windows of limit × ceil(length/per).
func allowed(l limiter.Spec, users int, from, to, horizon time.Duration) int {
	if to == 0 {
		to = horizon
	}
	length := to - from
	best := -1
	for _, sc := range []struct {
		s limiter.ScopeSpec
		k int
	}{{l.User, users}, {l.App, 1}} {
		for _, w := range sc.s.Windows {
			per := w.Per.D()
			n := sc.k * w.Limit * int((length+per-1)/per)
			if best < 0 || n < best {
				best = n
			}
		}
	}
	return max(1, best)
}

// jainEqual is JainEqual: the lowest jain over groups of users with equal
// demand.
func (r *run) jainEqual() float64 {
	type demand struct {
		requests int
		start    time.Duration
	}
	groups := map[demand][]string{}
	var keys []demand
	for _, u := range r.cfg.Workload.Users {
		k := demand{u.Requests(), u.Start}
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], u.User)
	}
	worst := 0.0
	for _, k := range keys {
		if g := groups[k]; len(g) >= 2 {
			if j := r.jain(g); worst == 0 || j < worst {
				worst = j
			}
		}
	}
	return worst
}

// jain is Jain's index over users' accepted requests up to the time the
// first of them finished.
func (r *run) jain(users []string) float64 {
	if len(users) < 2 {
		return 1
	}
	cut := r.now
	for _, u := range users {
		if q := r.users[u]; q.pagesLeft == 0 {
			ts := r.res.userAccepted[u]
			if len(ts) > 0 && ts[len(ts)-1].Before(cut) {
				cut = ts[len(ts)-1]
			}
		}
	}
	var sum, sq float64
	for _, u := range users {
		ts := r.res.userAccepted[u]
		n := float64(len(ts))
		if i, found := slices.BinarySearchFunc(ts, cut, func(a, b time.Time) int { return a.Compare(b) }); true {
			if found {
				i++
			}
			n = float64(i)
		}
		sum += n
		sq += n * n
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(users)) * sq)
}

// Percentile returns the p-th percentile (0 < p <= 1, nearest rank) of
// ds, or 0 if empty.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(float64(len(s))*p+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}
