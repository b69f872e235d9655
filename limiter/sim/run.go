package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Config is one simulation run.
type Config struct {
	Scenario string
	Workload Workload
	Upstream UpstreamConfig
	// Spec is what our limiter believes (the published table).
	Spec    limiter.Spec
	Horizon time.Duration
	Seed    uint64
	// MeasureFrom and MeasureTo bound the interval over which budget use
	// is measured (zero: the whole run).
	MeasureFrom, MeasureTo time.Duration
	// Trace, when set, is told of every throttle, every change of the
	// limiter's effective limits and every stall over two cooldowns, with
	// upstream's true counts (see trace.go): a debugging aid.
	Trace func(format string, args ...any)
}

// job is a page migration or a foreground scan: a sequence of requests.
type job struct {
	user    string
	lane    limiter.Lane
	total   int // requests in the job
	done    int // requests completed
	page    bool
	visible time.Time
	arrived time.Time // for scans: when the person asked
	reqAt   time.Time // when the current request was asked for
	sentAt  time.Time // when its latest attempt was sent
	tries   int       // attempts of the current request so far
}

// userQueue is one user's page jobs and workers.
type userQueue struct {
	id        string
	jobs      []*job
	idle      int // workers without a job
	pagesLeft int
	// requestsLeft counts the requests of its pages not yet done.
	requestsLeft int
	wake         time.Time // pending dispatch wake-up
	inFlight     int       // requests at upstream
	// Stall watch (see run.rewatch): watching while the user has pages
	// left and nothing at upstream; idleFrom is when upstream would take
	// its next request, zero while waitRoom (the app's concurrency is
	// full).
	watching bool
	waitRoom bool
	idleFrom time.Time
	// start is when the user's migration begins: no stall before it (a
	// scan by the user may come back earlier).
	start time.Time
}

// run is the state shared by every policy during one simulation.
type run struct {
	clock
	cfg   Config
	up    *Upstream
	rng   *rand.Rand
	pol   policy
	users map[string]*userQueue
	order []string
	res   *Result
	left  int // pages left
	adapt time.Time
	// wire counts requests sent and not yet answered.
	wire int
}

// busy reports whether the requests on the wire fill the app's real
// concurrency cap less the background reserve: no policy could send
// another background request now, whatever the rate windows hold.
func (r *run) busy() bool {
	c := r.up.AppConcurrency()
	return r.wire >= max(1, c-int(r.cfg.Spec.Tuning.Reserve*float64(c)+0.999999))
}

// endStall records the stall of q that ends now, if one is running.
func (r *run) endStall(q *userQueue) {
	if q.idleFrom.IsZero() || r.left == 0 {
		return
	}
	if stall := r.outsideOutages(q.idleFrom, r.now); stall > 0 {
		r.res.MaxStall = max(r.res.MaxStall, stall)
		r.traceStall(q, stall)
	}
}

// outsideOutages is the longest part of [from, to) outside every outage
// and the breaker's recovery after it (MaxCooldown: the app breaker that
// the outage's server errors opened probes again by then). Upstream
// takes nothing during an outage, and waiting out a breaker after one is
// the breaker's job, not a stall.
func (r *run) outsideOutages(from, to time.Time) time.Duration {
	recovery := r.cfg.Spec.Tuning.MaxCooldown.D()
	if recovery == 0 {
		recovery = limiter.DefaultTuning().MaxCooldown.D()
	}
	longest := time.Duration(0)
	for from.Before(to) {
		end := to
		for _, o := range r.cfg.Upstream.Outages {
			a, b := Epoch.Add(o.From), Epoch.Add(o.To+recovery)
			switch {
			case !from.Before(a) && from.Before(b):
				from = b // inside: skip to its end and look again
				end = time.Time{}
			case a.After(from) && a.Before(end):
				end = a
			}
			if end.IsZero() {
				break
			}
		}
		if end.IsZero() {
			continue
		}
		longest = max(longest, end.Sub(from))
		from = end
	}
	return longest
}

// rewatch moves the stall watch of every idle user after a send filled
// upstream further: a user whose next request upstream would no longer
// take now is not stalled while others use the room (its stall so far
// ends), and waits from when upstream would take it again.
func (r *run) rewatch() {
	busy := r.busy()
	for _, id := range r.order {
		q := r.users[id]
		if !q.watching || q.waitRoom {
			continue
		}
		f := r.up.FreeAtReserve(id, r.now, r.cfg.Spec.Tuning.Reserve)
		if !busy && !f.After(q.idleFrom) {
			continue
		}
		r.endStall(q)
		q.idleFrom, q.waitRoom = f, busy
		if busy {
			q.idleFrom = time.Time{}
		}
	}
}

// unwatch restarts the stall watch of users waiting for the app's
// concurrency once a request left the wire.
func (r *run) unwatch() {
	if r.busy() {
		return
	}
	for _, id := range r.order {
		if q := r.users[id]; q.watching && q.waitRoom {
			q.idleFrom, q.waitRoom = r.up.FreeAtReserve(id, r.now, r.cfg.Spec.Tuning.Reserve), false
		}
	}
}

// limitsChanged applies upstream's limit change at its time and moves
// every watching user's stall watch to the new limits: a stall running
// under the old ones ends now, and the user waits from when upstream
// would take its next request under the new ones. Upstream applies a
// change only when a request reaches it, and the watch keeps the time it
// computed when the user went idle, so without this a user idle when the
// limits rose was watched from the old limits' free time: the idle after
// the rise went uncounted (full-788 idled 56 minutes after a rise and
// counted 36 ms).
func (r *run) limitsChanged() {
	if !r.up.applyChange(r.since()) {
		return
	}
	busy := r.busy()
	for _, id := range r.order {
		q := r.users[id]
		if !q.watching {
			continue
		}
		r.endStall(q)
		q.idleFrom, q.waitRoom = r.up.FreeAtReserve(id, r.now, r.cfg.Spec.Tuning.Reserve), busy
		if busy {
			q.idleFrom = time.Time{}
		}
	}
}

// policy decides how one request of a job is sent and retried.
type policy interface {
	name() string
	start(r *run) error
	// send asks for the job's next request. The policy calls r.complete
	// when it succeeded, or r.requeue to give the job back.
	send(r *run, j *job, attempt int)
}

// Run simulates cfg under the named policy: "ours" (the limiter, told
// each user's remaining work), "max-min" (the limiter told nothing of
// it), "backoff" or "queue-retry".
func Run(cfg Config, policyName string) (*Result, error) {
	r, err := newRun(cfg, policyName)
	if err != nil {
		return nil, err
	}
	return r.simulate(), nil
}

// newRun sets up a run of cfg under the named policy (see Run), its
// scans and users' first dispatches scheduled.
func newRun(cfg Config, policyName string) (*run, error) {
	var p policy
	switch policyName {
	case "ours":
		p = &ours{}
	case "max-min":
		p = &ours{maxMin: true}
	case "backoff":
		p = &backoff{}
	case "queue-retry":
		p = &queueRetry{}
	default:
		return nil, fmt.Errorf("sim: unknown policy %q", policyName)
	}
	return newRunPolicy(cfg, p)
}

// newRunPolicy is newRun with the policy given.
func newRunPolicy(cfg Config, p policy) (*run, error) {
	if cfg.Upstream.Limits.User.Windows == nil {
		cfg.Upstream.Limits = cfg.Spec
	}
	if cfg.Upstream.Audit.User.Windows == nil {
		cfg.Upstream.Audit = cfg.Spec
	}
	r := &run{
		clock: clock{now: Epoch},
		cfg:   cfg,
		up:    NewUpstream(cfg.Upstream, cfg.Seed),
		rng:   rand.New(rand.NewPCG(cfg.Seed, 0xbac0ff)),
		pol:   p,
		users: map[string]*userQueue{},
	}
	r.res = newResult(cfg, p.name())
	for _, u := range cfg.Workload.Users {
		q := &userQueue{id: u.User, idle: max(1, cfg.Workload.Workers), pagesLeft: len(u.Pages), requestsLeft: u.Requests(), start: Epoch.Add(u.Start)}
		for _, res := range u.Pages {
			q.jobs = append(q.jobs, &job{user: u.User, lane: limiter.Background, total: 1 + res, page: true, visible: Epoch})
		}
		r.users[u.User] = q
		r.order = append(r.order, u.User)
		r.left += len(u.Pages)
		r.res.Pages += len(u.Pages)
		r.res.Logical += u.Requests()
	}
	if err := p.start(r); err != nil {
		return nil, err
	}
	if c := cfg.Upstream.Change; c != nil {
		r.at(Epoch.Add(c.At), r.limitsChanged)
	}
	for _, s := range cfg.Workload.Scans {
		r.scheduleScan(s, s.At)
	}
	for _, u := range cfg.Workload.Users {
		if u.Start > 0 {
			r.at(Epoch.Add(u.Start), func() { r.dispatch(u.User) })
			continue
		}
		r.dispatch(u.User)
	}
	return r, nil
}

// simulate runs the events to the horizon or until the work is done.
func (r *run) simulate() *Result {
	end := Epoch.Add(r.cfg.Horizon)
	r.run(end, func() bool { return r.left == 0 && len(r.cfg.Workload.Scans) == 0 })
	r.finish(end)
	return r.res
}

func (r *run) scheduleScan(s Scan, at time.Duration) {
	if at > r.cfg.Horizon {
		return
	}
	r.at(Epoch.Add(at), func() {
		j := &job{user: s.User, lane: limiter.Foreground, total: s.Requests, arrived: r.now}
		r.startRequest(j)
		if s.Every > 0 && r.left > 0 && (s.Until == 0 || at+s.Every < s.Until) {
			r.scheduleScan(s, at+s.Every)
		}
	})
}

// dispatch hands visible jobs of user to idle workers.
func (r *run) dispatch(user string) {
	q := r.users[user]
	for q.idle > 0 {
		j := r.takeVisible(q)
		if j == nil {
			return
		}
		q.idle--
		r.startRequest(j)
	}
}

// takeVisible removes and returns the first job visible now (the queue is
// kept in order of visibility); if none is, it schedules a wake-up for
// the earliest one.
func (r *run) takeVisible(q *userQueue) *job {
	if len(q.jobs) == 0 {
		return nil
	}
	j := q.jobs[0]
	if j.visible.After(r.now) {
		if !q.wake.Equal(j.visible) {
			q.wake = j.visible
			r.at(j.visible, func() { r.dispatch(q.id) })
		}
		return nil
	}
	q.jobs[0] = nil
	q.jobs = q.jobs[1:]
	return j
}

// push adds j to q in order of visibility, after jobs visible at the same
// time.
func (q *userQueue) push(j *job) {
	i := len(q.jobs)
	for i > 0 && q.jobs[i-1].visible.After(j.visible) {
		i--
	}
	q.jobs = slices.Insert(q.jobs, i, j)
}

func (r *run) startRequest(j *job) {
	j.reqAt = r.now
	r.pol.send(r, j, 0)
}

// sendUpstream sends one request of j now and calls back with the
// response when it arrives.
func (r *run) sendUpstream(j *job, attempt int, back func(Response)) {
	q := r.users[j.user]
	if q != nil {
		if q.watching {
			r.endStall(q)
			q.watching, q.waitRoom, q.idleFrom = false, false, time.Time{}
		}
		q.inFlight++
	}
	j.sentAt = r.now
	j.tries++
	resp, lat := r.up.Send(j.user, r.now, r.since())
	r.res.record(r, j, attempt, resp)
	r.wire++
	r.rewatch()
	r.after(lat, func() {
		r.wire--
		r.unwatch()
		if resp.Status == 200 {
			r.up.Done(j.user)
		}
		if resp.Status == 429 && r.adapt.IsZero() {
			r.adapt = r.now
			r.res.FirstThrottlePage = r.res.PagesDone
		}
		if q != nil {
			q.inFlight--
		}
		back(resp)
		if q != nil && q.inFlight == 0 && q.pagesLeft > 0 && !r.now.Before(q.start) {
			// Stall watch: from when upstream would take the next request
			// (leaving our background reserve) until we send one, or
			// until others' requests fill what upstream would take
			// (rewatch).
			q.watching = true
			q.idleFrom, q.waitRoom = r.up.FreeAtReserve(j.user, r.now, r.cfg.Spec.Tuning.Reserve), r.busy()
			if q.waitRoom {
				q.idleFrom = time.Time{}
			}
		}
	})
}

// complete records a successful request of j and moves the job on.
func (r *run) complete(j *job) {
	if j.lane == limiter.Foreground {
		r.res.FGWaits = append(r.res.FGWaits, j.sentAt.Sub(j.reqAt))
	}
	j.done++
	j.tries = 0
	if j.page {
		r.users[j.user].requestsLeft--
	}
	if j.done < j.total {
		r.startRequest(j)
		return
	}
	if !j.page {
		return
	}
	q := r.users[j.user]
	q.pagesLeft--
	r.left--
	r.res.pageDone(r)
	q.idle++
	r.dispatch(j.user)
}

// requeue gives j back to its user's queue, visible after delay, and frees
// the worker.
func (r *run) requeue(j *job, delay time.Duration) {
	if !j.page {
		r.after(delay, func() { r.startRequest(j) })
		return
	}
	r.res.Abandoned++
	j.visible = r.now.Add(delay)
	q := r.users[j.user]
	q.push(j)
	q.idle++
	r.dispatch(j.user)
}
