package limiter

import (
	"fmt"
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
	for _, r := range reqs {
		if err := l.Enqueue(r, now); err != nil {
			t.Fatal(err)
		}
	}
	for {
		gs := l.Grant(now)
		if len(gs) == 0 {
			return ids
		}
		for _, g := range gs {
			ids = append(ids, g.RequestID)
			l.Release(g.LeaseID, ok200, now)
		}
	}
}
