package sim

import (
	"math/rand/v2"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Outage is an interval, from the start of the run, during which upstream
// answers every request with 503.
type Outage struct {
	From, To time.Duration
}

// UpstreamConfig describes the simulated Graph OneNote service.
type UpstreamConfig struct {
	// Limits are the limits upstream really enforces (rate windows and
	// concurrency per user and per app). Hidden limits stricter than the
	// spec go here.
	Limits limiter.Spec
	// Audit is the published spec whose windows are watched for the worst
	// rolling-window usage (usually the OneNote table).
	Audit limiter.Spec
	// Headers makes upstream send x-ms-throttle-scope on throttles and
	// x-ms-throttle-limit-percentage once a limit is 80% used.
	Headers bool
	// CountRejected makes throttled and failed requests count against the
	// windows, as every received request probably does upstream.
	CountRejected bool
	Outages       []Outage
	// Change, when set, replaces Limits part-way through the run.
	Change *LimitChange
	// LatencyMin and LatencyMax bound the uniform latency of an accepted
	// request; rejections answer in a quarter of it.
	LatencyMin, LatencyMax time.Duration
}

// LimitChange is upstream changing its limits At from the start of the
// run to Limits (rate windows and concurrency of every scope).
type LimitChange struct {
	At     time.Duration
	Limits limiter.Spec
}

// Response is what upstream said.
type Response = limiter.Outcome

// scopeLimits is one scope's windows and concurrency at upstream.
type scopeLimits struct {
	windows  []*window
	audit    []*window
	conc     int
	inFlight int
}

func newScopeLimits(spec, audit limiter.ScopeSpec) *scopeLimits {
	s := &scopeLimits{conc: spec.Concurrency}
	for _, w := range spec.Windows {
		s.windows = append(s.windows, &window{limit: w.Limit, per: w.Per.D()})
	}
	for _, w := range audit.Windows {
		s.audit = append(s.audit, &window{limit: w.Limit, per: w.Per.D()})
	}
	return s
}

// set changes the enforced limits; the windows keep what they hold.
func (s *scopeLimits) set(spec limiter.ScopeSpec) {
	s.conc = spec.Concurrency
	for i, w := range spec.Windows {
		s.windows[i].limit = w.Limit
	}
}

func (s *scopeLimits) full(now time.Time) bool {
	for _, w := range s.windows {
		if w.count(now) >= w.limit {
			return true
		}
	}
	return false
}

func (s *scopeLimits) add(now time.Time) {
	for _, w := range s.windows {
		w.add(now)
	}
}

// fill is the highest count/limit ratio over the windows.
func (s *scopeLimits) fill(now time.Time) float64 {
	f := 0.0
	for _, w := range s.windows {
		f = max(f, float64(w.count(now))/float64(w.limit))
	}
	return f
}

func (s *scopeLimits) freeAt(now time.Time) time.Time {
	at := now
	for _, w := range s.windows {
		if t := w.freeAt(now); t.After(at) {
			at = t
		}
	}
	return at
}

// Upstream is the simulated service. It counts every request it receives.
type Upstream struct {
	cfg   UpstreamConfig
	rng   *rand.Rand
	app   *scopeLimits
	users map[string]*scopeLimits
	// changed is set once cfg.Change has been applied.
	changed bool

	Received, Accepted, Throttled, Concurrency, Failed int
}

// NewUpstream returns an upstream with empty windows.
func NewUpstream(cfg UpstreamConfig, seed uint64) *Upstream {
	return &Upstream{
		cfg:   cfg,
		rng:   rand.New(rand.NewPCG(seed, 0x5eed)),
		app:   newScopeLimits(cfg.Limits.App, cfg.Audit.App),
		users: map[string]*scopeLimits{},
	}
}

func (u *Upstream) user(id string) *scopeLimits {
	s := u.users[id]
	if s == nil {
		s = newScopeLimits(u.cfg.Limits.User, u.cfg.Audit.User)
		u.users[id] = s
	}
	return s
}

// Send receives one request from user at now and returns the response and
// how long until it arrives. An accepted request holds a concurrency slot
// until Done is called for it.
func (u *Upstream) Send(user string, now time.Time, since time.Duration) (Response, time.Duration) {
	u.applyChange(since)
	u.Received++
	us := u.user(user)
	for _, w := range us.audit {
		w.add(now)
	}
	for _, w := range u.app.audit {
		w.add(now)
	}
	lat := u.cfg.LatencyMin
	if d := u.cfg.LatencyMax - u.cfg.LatencyMin; d > 0 {
		lat += time.Duration(u.rng.Int64N(int64(d)))
	}
	reject := func(r Response) (Response, time.Duration) {
		if u.cfg.CountRejected {
			us.add(now)
			u.app.add(now)
		}
		return r, lat / 4
	}
	for _, o := range u.cfg.Outages {
		if since >= o.From && since < o.To {
			u.Failed++
			return reject(Response{Status: 503, Code: "10002"})
		}
	}
	scope := limiter.ScopeUnknown
	if u.cfg.Headers {
		scope = limiter.ScopeUser
	}
	if us.inFlight >= us.conc || u.app.inFlight >= u.app.conc {
		u.Concurrency++
		if u.cfg.Headers && u.app.inFlight >= u.app.conc {
			scope = limiter.ScopeApp
		}
		return reject(Response{Status: 429, Code: limiter.CodeConcurrency, Scope: scope})
	}
	if us.full(now) || u.app.full(now) {
		u.Throttled++
		if u.cfg.Headers && !us.full(now) {
			scope = limiter.ScopeApp
		}
		return reject(Response{Status: 429, Code: limiter.CodeThrottled, Scope: scope})
	}
	us.add(now)
	u.app.add(now)
	us.inFlight++
	u.app.inFlight++
	u.Accepted++
	r := Response{Status: 200}
	if u.cfg.Headers {
		uf, af := us.fill(now), u.app.fill(now)
		if f := max(uf, af); f >= 0.8 {
			r.ThrottlePercent = f
			r.Scope = limiter.ScopeUser
			if af > uf {
				r.Scope = limiter.ScopeApp
			}
		}
	}
	return r, lat
}

// applyChange applies cfg.Change once since (the time from the start of
// the run) has reached it, and reports whether it did so now. Send
// applies it before judging a request; the run applies it at its time
// too (run.limitsChanged), so that the stall watch sees the new limits
// while nobody sends.
func (u *Upstream) applyChange(since time.Duration) bool {
	c := u.cfg.Change
	if c == nil || u.changed || since < c.At {
		return false
	}
	u.changed = true
	u.cfg.Limits = c.Limits
	u.app.set(c.Limits.App)
	for _, s := range u.users {
		s.set(c.Limits.User)
	}
	return true
}

// Done ends an accepted request of user.
func (u *Upstream) Done(user string) {
	u.user(user).inFlight--
	u.app.inFlight--
}

// AppConcurrency is the app's real concurrency cap now.
func (u *Upstream) AppConcurrency() int { return u.app.conc }

// FreeAt is the earliest time at which upstream would accept one more
// request of user by its rate windows (concurrency aside).
func (u *Upstream) FreeAt(user string, now time.Time) time.Time {
	a, b := u.user(user).freeAt(now), u.app.freeAt(now)
	if b.After(a) {
		return b
	}
	return a
}

// FreeAtReserve is like FreeAt with every limit lowered by the fraction
// reserve (rounded up), the share our background lane leaves unused.
func (u *Upstream) FreeAtReserve(user string, now time.Time, reserve float64) time.Time {
	at := now
	for _, s := range []*scopeLimits{u.user(user), u.app} {
		for _, w := range s.windows {
			full := *w
			full.limit = max(1, w.limit-int(reserve*float64(w.limit)+0.999999))
			if t := full.freeAt(now); t.After(at) {
				at = t
			}
		}
	}
	return at
}

// PeakUsage is the worst rolling-window count of received requests over
// every audited window of every scope, as a fraction of its limit.
func (u *Upstream) PeakUsage() float64 {
	p := 0.0
	check := func(ws []*window) {
		for _, w := range ws {
			p = max(p, float64(w.peak)/float64(w.limit))
		}
	}
	check(u.app.audit)
	for _, s := range u.users {
		check(s.audit)
	}
	return p
}
