package limiter

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestSettleCountsRequestsWhenTheyLeft shows why Settle exists: two
// requests granted at 0 s that only reached upstream (and were released)
// at 4 s, and a third granted at 4 s, fill the user's 3-per-10-s window
// until 14 s, not 10 s.
func TestSettleCountsRequestsWhenTheyLeft(t *testing.T) {
	tests := []struct {
		name    string
		settle  bool
		wantGap time.Duration // RetryAfter at 10 s
	}{
		{"without settle the window frees at 10 s", false, 0},
		{"settled at release the window frees at 14 s", true, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec()))
			var q seq
			reqs := []Request{q.req("u", Background, 1), q.req("u", Background, 1)}
			if got := grantAll(t, l, at(0), reqs...); len(got) != 2 {
				t.Fatalf("granted %v, want 2", got)
			}
			for _, id := range []string{"r1", "r2"} {
				g, ok := l.Lease(id)
				if !ok {
					t.Fatalf("no lease for %s", id)
				}
				l.Release(g.LeaseID, Outcome{Status: 200}, at(4*time.Second))
				if tt.settle {
					l.Settle(g, at(4*time.Second))
				}
			}
			if got := grantAll(t, l, at(4*time.Second), q.req("u", Background, 1)); len(got) != 1 {
				t.Fatalf("third not granted at 4 s: %v", got)
			}
			if got := l.RetryAfter("u", Background, 1, at(10*time.Second)); got != tt.wantGap {
				t.Errorf("RetryAfter at 10 s = %v, want %v", got, tt.wantGap)
			}
			if got := l.RetryAfter("u", Background, 1, at(14*time.Second)); got != 0 {
				t.Errorf("RetryAfter at 14 s = %v, want 0", got)
			}
		})
	}
}

func TestSettleOfAGrantOlderThanEveryWindowIsANoOp(t *testing.T) {
	l := mustNew(t, noReserve(testSpec()))
	var q seq
	r := q.req("u", Background, 1)
	grantAll(t, l, at(0), r)
	g, _ := l.Lease(r.ID)
	l.Release(g.LeaseID, Outcome{Status: 200}, at(time.Second))
	l.Settle(g, at(2*time.Hour))
	st := l.State(at(2 * time.Hour))
	for _, w := range st.App.Windows {
		if w.Used != 0 {
			t.Errorf("app window %v holds %d units two hours later, want 0", w.Per, w.Used)
		}
	}
	for _, u := range st.Users {
		for _, w := range u.Windows {
			if w.Used != 0 {
				t.Errorf("user window %v holds %d units two hours later, want 0", w.Per, w.Used)
			}
		}
	}
}

// TestSettleAtSendTime settles requests at the time they were sent, which
// may be earlier than a grant already logged: the window frees when the
// requests sent first leave it, not when they were released.
func TestSettleAtSendTime(t *testing.T) {
	ms := time.Millisecond
	l := mustNew(t, noReserve(testSpec())) // user: 3 per 10 s, 2 at once
	var q seq
	if got := grantAll(t, l, at(0), q.req("u", Background, 1), q.req("u", Background, 1)); len(got) != 2 {
		t.Fatalf("granted %v, want r1 and r2", got)
	}
	g1, _ := l.Lease("r1")
	g2, _ := l.Lease("r2")
	l.Release(g1.LeaseID, Outcome{Status: 200, Sent: at(200 * ms)}, at(time.Second))
	l.Settle(g1, at(200*ms))
	if got := grantAll(t, l, at(time.Second), q.req("u", Background, 1)); len(got) != 1 {
		t.Fatalf("r3 not granted at 1 s: %v", got)
	}
	// r2 was sent at 0.5 s, before r3 was granted: its stamp goes before
	// r3's in the log.
	l.Release(g2.LeaseID, Outcome{Status: 200, Sent: at(500 * ms)}, at(2*time.Second))
	l.Settle(g2, at(500*ms))
	// r3 was sent at once; released, it is counted from its grant (an
	// open lease would stay in the window: TestKeepOpen).
	g3, _ := l.Lease("r3")
	l.Release(g3.LeaseID, Outcome{Status: 200}, at(2*time.Second))
	l.Settle(g3, at(time.Second))
	tests := []struct {
		at         time.Duration
		used       int
		retryAfter time.Duration
	}{
		{2 * time.Second, 3, 8200 * ms},
		{10100 * ms, 3, 100 * ms},
		{10300 * ms, 2, 0},
		{10600 * ms, 1, 0},
		{11100 * ms, 0, 0},
	}
	for _, tc := range tests {
		st := l.State(at(tc.at))
		if got := st.Users[0].Windows[0].Used; got != tc.used {
			t.Errorf("at %v the 10-s window holds %d, want %d", tc.at, got, tc.used)
		}
		if got := l.RetryAfter("u", Background, 1, at(tc.at)); got != tc.retryAfter {
			t.Errorf("RetryAfter at %v = %v, want %v", tc.at, got, tc.retryAfter)
		}
	}
	// A send time before the grant (the worker's clock behind the
	// model's) counts from the grant.
	if got := grantAll(t, l, at(12*time.Second), q.req("u", Background, 1)); len(got) != 1 {
		t.Fatalf("r4 not granted at 12 s: %v", got)
	}
	g4, _ := l.Lease("r4")
	l.Release(g4.LeaseID, Outcome{Status: 200, Sent: at(11 * time.Second)}, at(13*time.Second))
	l.Settle(g4, at(11*time.Second))
	for _, c := range []struct {
		at   time.Duration
		used int
	}{{21900 * ms, 1}, {22 * time.Second, 0}} {
		if got := l.State(at(c.at)).Users[0].Windows[0].Used; got != c.used {
			t.Errorf("at %v the 10-s window holds %d, want %d (r4 counted from its grant at 12 s)", c.at, got, c.used)
		}
	}
}

// TestRollingLogInsertMatchesRecount checks the rolling log against a
// plain recount through random appends, inserts into the past and
// advances: every window's count, counts at past times within keep, and
// the order of the entries.
func TestRollingLogInsertMatchesRecount(t *testing.T) {
	pers := []int64{10, 60}
	const keep = 6
	for seed := range int64(50) {
		rng := rand.New(rand.NewPCG(uint64(seed), 7))
		var g rollingLog
		g.reset(len(pers))
		g.keep = keep
		var all []stamp // everything ever logged
		now := int64(0)
		for step := range 400 {
			switch rng.IntN(4) {
			case 0:
				now += rng.Int64N(8)
				g.advance(pers, now)
			case 1:
				c := 1 + rng.IntN(3)
				g.add(now, c)
				all = append(all, stamp{now, c})
			default:
				at := now - rng.Int64N(keep+20)
				c := 1 + rng.IntN(3)
				g.insert(pers, at, c)
				all = append(all, stamp{at, c})
			}
			recount := func(per, at int64) int {
				n := 0
				for _, e := range all {
					if e.at > at-per && e.at <= at {
						n += e.cost
					}
				}
				return n
			}
			for w, per := range pers {
				if got, want := g.count(w), recount(per, g.now); got != want {
					t.Fatalf("seed %d step %d: window %d counts %d, want %d", seed, step, per, got, want)
				}
				for back := int64(0); back <= keep; back++ {
					if got, want := g.countAt(per, g.now-back), recount(per, g.now-back); got != want {
						t.Fatalf("seed %d step %d: window %d at now-%d counts %d, want %d", seed, step, per, back, got, want)
					}
				}
			}
			if !slices.IsSortedFunc(g.entries, func(a, b stamp) int { return cmp.Compare(a.at, b.at) }) {
				t.Fatalf("seed %d step %d: entries out of order", seed, step)
			}
		}
	}
}

// TestSettleSentGivesBackUnsentUnits: a permit for three requests whose
// sequence stopped after one keeps one unit, counted from when it was
// sent; the other two are given back at once.
func TestSettleSentGivesBackUnsentUnits(t *testing.T) {
	tests := []struct {
		name     string
		o        Outcome
		wantUsed int           // in the 10-s window at 5 s
		wantFree time.Duration // when one more unit fits
	}{
		{"all sent", Outcome{Status: 200, Sent: at(time.Second)}, 3, 11 * time.Second},
		{"one of three sent, then staging failed", Outcome{Status: 200, Sent: at(time.Second), Unsent: 2}, 1, 0},
		{"none sent", Outcome{Unsent: 3}, 0, 0},
		{"more unsent than the cost", Outcome{Unsent: 7}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec())) // user: 3 per 10 s
			var q seq
			r := q.req("u", Background, 3)
			grantAll(t, l, at(0), r)
			g, ok := l.Lease(r.ID)
			if !ok {
				t.Fatal("not granted")
			}
			l.Release(g.LeaseID, tc.o, at(2*time.Second))
			l.SettleSent(g, tc.o, at(2*time.Second))
			if got := l.State(at(5 * time.Second)).Users[0].Windows[0].Used; got != tc.wantUsed {
				t.Errorf("10-s window holds %d at 5 s, want %d", got, tc.wantUsed)
			}
			if got := l.RetryAfter("u", Background, 1, at(5*time.Second)); got != max(0, tc.wantFree-5*time.Second) {
				t.Errorf("RetryAfter(1) at 5 s = %v, want %v", got, max(0, tc.wantFree-5*time.Second))
			}
		})
	}
}

// TestKeepOpen holds a grant's lease open past the shortest window: the
// request may still be sent (a spare waiting at the worker, an activity
// waiting for a slot), so its unit must not be granted again until it is
// released and its window has slid past the send. The user may send one
// request in 10 s; r1 is granted at 0.
func TestKeepOpen(t *testing.T) {
	type check struct{ at, retryAfter time.Duration }
	tests := []struct {
		name string
		sent time.Duration // when r1 reaches upstream and is released (0: never)
		want []check       // RetryAfter of one more request
	}{
		{"open to the end: counted as sent at each look after it would have left", 0,
			[]check{{10 * time.Second, 10 * time.Second}, {15 * time.Second, 5 * time.Second}, {25 * time.Second, 10 * time.Second}}},
		{"sent at 14 s: counted from then", 14 * time.Second,
			[]check{{10 * time.Second, 10 * time.Second}, {15 * time.Second, 9 * time.Second}, {24 * time.Second, 0}}},
		{"sent at 3 s: settled then, nothing kept", 3 * time.Second,
			[]check{{10 * time.Second, 3 * time.Second}, {13 * time.Second, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := noReserve(Spec{Name: "keep-open",
				User: ScopeSpec{Windows: []Window{{1, Duration(10 * time.Second)}, {100, Duration(time.Hour)}}, Concurrency: 10},
				App:  ScopeSpec{Windows: []Window{{100, Duration(10 * time.Second)}, {1000, Duration(time.Hour)}}, Concurrency: 10}})
			sp.Tuning.LeaseTTL = Duration(time.Hour)
			l := mustNew(t, sp)
			var q seq
			if got := grantAll(t, l, at(0), q.req("u", Background, 1)); len(got) != 1 {
				t.Fatalf("granted %v at 0, want r1", got)
			}
			released := false
			for _, c := range tc.want {
				if tc.sent > 0 && !released && c.at >= tc.sent {
					g, _ := l.Lease("r1") // as the entity reads it at the release
					o := Outcome{Status: 200, Sent: at(tc.sent)}
					l.Release(g.LeaseID, o, at(tc.sent))
					l.SettleSent(g, o, at(tc.sent))
					released = true
				}
				if got := l.RetryAfter("u", Background, 1, at(c.at)); got != c.retryAfter {
					t.Errorf("RetryAfter at %v = %v, want %v", c.at, got, c.retryAfter)
				}
			}
		})
	}
}
