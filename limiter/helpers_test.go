package limiter

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// testSpec is small enough to reason about by hand: user 3/10s, 5/60s,
// 2 at once; app 4/10s, 8/60s, 3 at once; no reserve.
func testSpec() Spec {
	s := Spec{
		Name: "test",
		User: ScopeSpec{Windows: []Window{{3, Duration(10 * time.Second)}, {5, Duration(time.Minute)}}, Concurrency: 2},
		App:  ScopeSpec{Windows: []Window{{4, Duration(10 * time.Second)}, {8, Duration(time.Minute)}}, Concurrency: 3},
	}
	s.Tuning.LeaseTTL = Duration(30 * time.Second)
	return s
}

// noReserve returns s with no foreground reserve and the default tuning
// otherwise.
func noReserve(s Spec) Spec {
	s.Tuning = s.Tuning.withDefaults()
	s.Tuning.Reserve = 0
	s.Tuning.AdaptFloor = DefaultTuning().AdaptFloor
	return s
}

// rateBound is testSpec with no reserve and concurrency caps of 10, so
// only the rate windows bind.
func rateBound() Spec {
	sp := noReserve(testSpec())
	sp.User.Concurrency, sp.App.Concurrency = 10, 10
	return sp
}

// relTo is now+d, or 0 (never) for a d of 0: a test table's relative
// instant.
func relTo(now, d int64) int64 {
	if d == 0 {
		return 0
	}
	return now + d
}

// left is a background request of one unit for user that reports left
// requests remaining (Request.Remaining).
func (s *seq) left(user string, left int) Request {
	r := s.req(user, Background, 1)
	r.Remaining = left
	return r
}

// grantedByUser grants what it can of reqs at now and counts the grants
// by the first letter of their user.
func grantedByUser(t testing.TB, l *Limiter, now time.Time, reqs ...Request) map[byte]int {
	t.Helper()
	got := map[byte]int{}
	for _, id := range grantAll(t, l, now, reqs...) {
		for _, r := range reqs {
			if r.ID == id {
				got[r.User[0]]++
			}
		}
	}
	return got
}

func mustNew(t testing.TB, s Spec) *Limiter {
	t.Helper()
	l, err := New(s, t0)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

type seq struct{ n int }

func (s *seq) req(user string, lane Lane, cost int) Request {
	s.n++
	return Request{ID: fmt.Sprintf("r%d", s.n), User: user, Lane: lane, Cost: cost}
}

// grantAll enqueues reqs at now and returns the IDs granted at now.
func grantAll(t testing.TB, l *Limiter, now time.Time, reqs ...Request) []string {
	t.Helper()
	for _, r := range reqs {
		if err := l.Enqueue(r, now); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	for _, g := range l.Grant(now) {
		ids = append(ids, g.RequestID)
	}
	return ids
}

// releaseAll releases every live lease with outcome at now.
func releaseAll(l *Limiter, o Outcome, now time.Time) {
	for _, g := range l.State(now).Leases {
		l.Release(g.LeaseID, o, now)
	}
}

var ok200 = Outcome{Status: 200}

// drain enqueues reqs at now and grants and releases (200) until nothing
// more is granted at now. It returns the IDs granted.
func drain(t testing.TB, l *Limiter, now time.Time, reqs ...Request) []string {
	t.Helper()
	var ids []string
	for _, g := range drainGrants(t, l, now, reqs...) {
		ids = append(ids, g.RequestID)
	}
	return ids
}

// drainGrants is drain's grants.
func drainGrants(t testing.TB, l *Limiter, now time.Time, reqs ...Request) []Grant {
	t.Helper()
	for _, r := range reqs {
		if err := l.Enqueue(r, now); err != nil {
			t.Fatal(err)
		}
	}
	var out []Grant
	for {
		gs := l.Grant(now)
		if len(gs) == 0 {
			return out
		}
		for _, g := range gs {
			out = append(out, g)
			l.Release(g.LeaseID, ok200, now)
		}
	}
}

// randomStream drives a limiter through a random stream of operations,
// as the tests that check incremental state against the scans it
// replaced use it: enqueues from many users in both lanes, with and
// without remaining work or a cost over one; cancels; decision passes;
// releases that succeed, are throttled (each scope), send part of a
// grant late or carry a percentage header, each settled; JSON round trips
// (a fresh Limiter, as a continue-as-new gives); spec changes; and gaps
// from milliseconds to two hours.
type randomStream struct {
	r       *rand.Rand
	l       *Limiter
	now     time.Time
	users   int
	fgOneIn int                   // one request in fgOneIn is foreground
	newSpec func(*rand.Rand) Spec // the specs the stream changes to
	ids     []string              // requests enqueued
	granted []Grant               // grants not yet released
	n       int                   // requests so far
}

// newRandomStream is a stream over a limiter with newSpec(r) and up to
// users users.
func newRandomStream(t testing.TB, r *rand.Rand, users, fgOneIn int, newSpec func(*rand.Rand) Spec) *randomStream {
	return &randomStream{r: r, l: mustNew(t, newSpec(r)), now: t0, users: users, fgOneIn: fgOneIn, newSpec: newSpec}
}

// step advances the clock by a random gap and applies one random
// operation.
func (s *randomStream) step(t testing.TB) {
	t.Helper()
	r := s.r
	switch d := r.IntN(100); {
	case d < 2:
		s.now = s.now.Add(time.Duration(r.IntN(7200)) * time.Second)
	case d < 6:
		s.now = s.now.Add(time.Duration(r.IntN(120)) * time.Second)
	default:
		s.now = s.now.Add(time.Duration(r.IntN(2500)) * time.Millisecond)
	}
	switch op := r.IntN(100); {
	case op < 42:
		s.n++
		req := Request{ID: fmt.Sprint("r", s.n), User: fmt.Sprint("u", r.IntN(s.users)), Lane: Background}
		if r.IntN(s.fgOneIn) == 0 {
			req.Lane = Foreground
		}
		if r.IntN(2) == 0 {
			req.Remaining = r.IntN(300)
		}
		if r.IntN(5) == 0 {
			req.Cost = 1 + r.IntN(3)
		}
		if err := s.l.Enqueue(req, s.now); err == nil {
			s.ids = append(s.ids, req.ID)
		}
	case op < 47 && len(s.ids) > 0:
		s.l.Cancel(s.ids[r.IntN(len(s.ids))])
	case op < 72:
		s.granted = append(s.granted, s.l.Grant(s.now)...)
	case op < 89 && len(s.granted) > 0:
		i := r.IntN(len(s.granted))
		g := s.granted[i]
		s.granted = append(s.granted[:i], s.granted[i+1:]...)
		o := ok200
		switch r.IntN(8) {
		case 0:
			o = Outcome{Status: 429, Scope: ThrottleScope(r.IntN(3))}
		case 1, 2:
			o.Sent = g.Granted.Add(time.Duration(r.IntN(5000)) * time.Millisecond)
			o.Unsent = r.IntN(g.Cost + 1)
		case 3:
			o.ThrottlePercent = 0.8 + r.Float64()
		}
		if s.l.Release(g.LeaseID, o, s.now) {
			s.l.SettleSent(g, o, s.now)
		}
	case op < 91:
		b, err := json.Marshal(s.l)
		if err != nil {
			t.Fatal(err)
		}
		s.l = &Limiter{}
		if err := json.Unmarshal(b, s.l); err != nil {
			t.Fatal(err)
		}
	case op < 92:
		if err := s.l.SetSpec(s.newSpec(s.r), s.now); err != nil {
			t.Fatal(err)
		}
	}
}
