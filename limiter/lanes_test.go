package limiter

import (
	"slices"
	"testing"
	"time"
)

// laneSpec: user 40 per 10 s and 5 at once, app large; 10% reserve, so
// background may use 36 units and 4 slots.
func laneSpec() Spec {
	s := noReserve(testSpec())
	s.User = ScopeSpec{Windows: []Window{{40, Duration(10 * time.Second)}}, Concurrency: 5}
	s.App = ScopeSpec{Windows: []Window{{1000, Duration(10 * time.Second)}}, Concurrency: 100}
	s.Tuning.Reserve = 0.1
	return s
}

func TestLanes(t *testing.T) {
	t.Run("background stops at the reserve, foreground uses it", func(t *testing.T) {
		l := mustNew(t, laneSpec())
		var s seq
		drain(t, l, at(-time.Minute), s.req("u", Foreground, 1)) // a person is around
		var bg []Request
		for range 50 {
			bg = append(bg, s.req("u", Background, 1))
		}
		if got := drain(t, l, at(0), bg...); len(got) != 35 {
			t.Fatalf("background granted %d, want 35 (40 minus 10%% reserve, minus the foreground one)", len(got))
		}
		var fg []Request
		for range 10 {
			fg = append(fg, s.req("u", Foreground, 1))
		}
		if got := drain(t, l, at(time.Second), fg...); len(got) != 4 {
			t.Fatalf("foreground granted %d, want the 4 reserved units", len(got))
		}
	})
	t.Run("no foreground for ReserveIdle: background uses the whole window", func(t *testing.T) {
		sp := laneSpec()
		sp.Tuning.ReserveIdle = Duration(30 * time.Second)
		l := mustNew(t, sp)
		var s seq
		var bg []Request
		for range 200 {
			bg = append(bg, s.req("u", Background, 1))
		}
		if got := drain(t, l, at(0), bg...); len(got) != 40 {
			t.Fatalf("background alone granted %d, want all 40", len(got))
		}
		// A person arrives: the reserve is held again.
		if got := drain(t, l, at(10*time.Second), s.req("u", Foreground, 1)); len(got) != 36 {
			t.Fatalf("with foreground around granted %d, want the foreground one and 35 background", len(got))
		}
		// The scan's unit has left the window. One scan is no rate (see
		// scopeView.demand): the base reserve is held, nothing more.
		if got := drain(t, l, at(20*time.Second)); len(got) != 36 {
			t.Fatalf("with foreground around, background granted %d, want 36 (the base reserve only)", len(got))
		}
		if w := l.NextWakeup(at(20 * time.Second)); !w.Equal(at(30 * time.Second)) {
			t.Fatalf("NextWakeup = %v, want the window's next free slot at 30s", w)
		}
		// At 40 s the reserve lapses (last foreground at 10 s + 30 s).
		if got := drain(t, l, at(40*time.Second)); len(got) != 40 {
			t.Fatalf("after the reserve lapsed granted %d, want 40", len(got))
		}
	})
	t.Run("by default the reserve outlasts a long migration", func(t *testing.T) {
		l := mustNew(t, laneSpec()) // ReserveIdle left to the default, a day
		var s seq
		drain(t, l, at(0), s.req("u", Foreground, 1)) // the scan that found the notebook
		// The migration keeps work queued throughout (a user with nothing
		// queued and nothing in its windows is forgotten, reserve and all).
		for h := 0; h <= 26; h++ {
			var bg []Request
			for range 50 {
				bg = append(bg, s.req("u", Background, 1))
			}
			want := 36 // the reserve held
			if h == 0 {
				want = 35 // and the scan's unit in the window
			}
			if h >= 24 {
				want = 40 // a day without a scan: background may use it all
			}
			if got := drain(t, l, at(time.Duration(h)*time.Hour), bg...); len(got) != want {
				t.Fatalf("%d hours after the last scan background granted %d, want %d", h, len(got), want)
			}
		}
	})
	t.Run("a scan, then a migration hours later: the reserve is still held", func(t *testing.T) {
		// The user is idle for hours, but forgetting it would drop its
		// reserve (background would get all 40).
		l := mustNew(t, laneSpec())
		var s seq
		drain(t, l, at(0), s.req("u", Foreground, 1))
		drain(t, l, at(time.Hour), s.req("other", Background, 1)) // decisions go on: the sweep runs
		var bg []Request
		for range 50 {
			bg = append(bg, s.req("u", Background, 1))
		}
		if got := drain(t, l, at(5*time.Hour), bg...); len(got) != 36 {
			t.Errorf("five hours after the scan background granted %d, want 36", len(got))
		}
	})
	t.Run("background concurrency keeps a slot for foreground", func(t *testing.T) {
		l := mustNew(t, laneSpec())
		var s seq
		got := grantAll(t, l, at(0), s.req("u", Background, 1), s.req("u", Background, 1), s.req("u", Background, 1),
			s.req("u", Background, 1), s.req("u", Background, 1))
		if len(got) != 4 {
			t.Fatalf("background in flight %d, want 4 of 5", len(got))
		}
		if got := grantAll(t, l, at(0), s.req("u", Foreground, 1)); len(got) != 1 {
			t.Fatalf("foreground not granted with the reserved slot: %v", got)
		}
	})
	t.Run("foreground first", func(t *testing.T) {
		s := laneSpec()
		s.User.Concurrency = 1
		l := mustNew(t, s)
		var q seq
		grantAll(t, l, at(0), q.req("u", Background, 1)) // holds the only slot
		l.Enqueue(q.req("u", Background, 1), at(0))
		l.Enqueue(q.req("u", Foreground, 1), at(0))
		releaseAll(l, ok200, at(time.Second))
		got := grantAll(t, l, at(time.Second))
		if !slices.Equal(got, []string{"r3"}) {
			t.Fatalf("granted %v, want the foreground r3 first", got)
		}
	})
}

func TestFairness(t *testing.T) {
	// App 30 per minute shared by three users with equal demand.
	s := noReserve(testSpec())
	s.User = ScopeSpec{Windows: []Window{{100, Duration(time.Minute)}}, Concurrency: 100}
	s.App = ScopeSpec{Windows: []Window{{30, Duration(time.Minute)}}, Concurrency: 100}
	l := mustNew(t, s)
	var q seq
	var reqs []Request
	// user a queues all its work first: FIFO would give it everything.
	for _, u := range []string{"a", "b", "c"} {
		for range 40 {
			reqs = append(reqs, q.req(u, Background, 1))
		}
	}
	per := map[string]int{}
	for i, now := range []time.Time{at(0), at(time.Minute), at(2 * time.Minute)} {
		if i == 0 {
			drainCount(t, l, now, per, reqs...)
		} else {
			drainCount(t, l, now, per)
		}
		for _, u := range []string{"a", "b", "c"} {
			if per[u] != 10*(i+1) {
				t.Fatalf("after round %d: %v, want %d each", i, per, 10*(i+1))
			}
		}
	}
	// A user with less recent use goes first.
	l = mustNew(t, s)
	drain(t, l, at(0), q.req("heavy", Background, 1), q.req("heavy", Background, 1))
	l.Enqueue(q.req("heavy", Background, 1), at(time.Second))
	l.Enqueue(q.req("light", Background, 1), at(2*time.Second))
	gs := l.Grant(at(2 * time.Second))
	if len(gs) != 2 || gs[0].User != "light" {
		t.Fatalf("grant order %v, want light first", gs)
	}
}

// drainCount is drain, counting the grants by user into per.
func drainCount(t *testing.T, l *Limiter, now time.Time, per map[string]int, reqs ...Request) {
	t.Helper()
	for _, g := range drainGrants(t, l, now, reqs...) {
		per[g.User]++
	}
}

func TestRetryAfterIsMaxNotMin(t *testing.T) {
	// The seed design took min(user wait, app wait). Here user a has sent
	// nothing (user wait 0) while b and c filled the app's 10 s window
	// (app wait 8 s). The minimum, 0, sends a straight into the full app
	// window; the maximum, 8 s, is the first moment a is safe.
	l := mustNew(t, noReserve(testSpec()))
	var q seq
	drain(t, l, at(0), q.req("b", Background, 1), q.req("b", Background, 1), q.req("b", Background, 1))
	drain(t, l, at(time.Second), q.req("c", Background, 1))
	now := at(2 * time.Second)

	userWait := time.Duration(0) // a's own windows are empty
	appWait := l.RetryAfter("b", Background, 1, now)
	if got := l.RetryAfter("a", Background, 1, now); got != 8*time.Second {
		t.Fatalf("RetryAfter(a) = %s, want 8s (the app's wait)", got)
	}
	seedBug := min(userWait, appWait)
	if got := grantAll(t, l, now.Add(seedBug), q.req("a", Background, 1)); len(got) != 0 {
		t.Fatalf("min-based retry at +%s was granted %v; the app window is full", seedBug, got)
	}
	if got := grantAll(t, l, now.Add(8*time.Second)); len(got) != 1 {
		t.Fatalf("at the max-based retry, granted %v, want a's request", got)
	}

	// The maximum also covers breakers and every window of the user.
	tests := []struct {
		name string
		prep func(l *Limiter)
		want time.Duration
	}{
		{"user window", func(l *Limiter) {
			drain(t, l, at(0), q.req("a", Background, 1), q.req("a", Background, 1), q.req("a", Background, 1))
		}, 8 * time.Second},
		{"user breaker beyond windows", func(l *Limiter) {
			grantAll(t, l, at(0), q.req("a", Background, 1))
			releaseAll(l, Outcome{Status: 429, Scope: ScopeUser}, at(time.Second))
		}, 9 * time.Second}, // cooldown 10 s from t=1
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec()))
			tc.prep(l)
			if got := l.RetryAfter("a", Background, 1, at(2*time.Second)); got != tc.want {
				t.Fatalf("RetryAfter = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDedupe(t *testing.T) {
	l := mustNew(t, noReserve(testSpec()))
	r := Request{ID: "x", User: "u", Lane: Background}
	for range 3 {
		if err := l.Enqueue(r, at(0)); err != nil {
			t.Fatal(err)
		}
	}
	gs := l.Grant(at(0))
	if len(gs) != 1 {
		t.Fatalf("granted %d for one ID enqueued 3 times", len(gs))
	}
	l.Enqueue(r, at(time.Second)) // while leased
	if g, ok := l.Lease("x"); !ok || g.LeaseID != gs[0].LeaseID {
		t.Errorf("Lease(x) = %v, %v", g, ok)
	}
	l.Release(gs[0].LeaseID, ok200, at(time.Second))
	l.Enqueue(r, at(2*time.Second)) // after release
	if n := len(l.Grant(at(20 * time.Second))); n != 0 {
		t.Fatalf("duplicate after release granted %d", n)
	}
	ttl := l.Spec().Tuning.DedupeTTL.D()
	l.Enqueue(r, at(time.Second+ttl)) // forgotten after DedupeTTL
	if n := len(l.Grant(at(time.Second + ttl))); n != 1 {
		t.Fatalf("after dedupe TTL granted %d, want 1", n)
	}
	// Cancel removes a queued request.
	l.Enqueue(Request{ID: "y", User: "u"}, at(ttl+2*time.Second))
	if !l.Cancel("y") || l.Cancel("y") {
		t.Error("Cancel: want true then false")
	}
	if st := l.State(at(ttl + 2*time.Second)); st.Queued != [2]int{} {
		t.Errorf("queued after cancel: %v", st.Queued)
	}
}

func TestSetSpec(t *testing.T) {
	l := mustNew(t, noReserve(testSpec()))
	var q seq
	drain(t, l, at(0), q.req("u", Background, 1), q.req("u", Background, 1))
	s := noReserve(testSpec())
	s.User.Windows[0].Limit = 2 // units already spent still count
	if err := l.SetSpec(s, at(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, l, at(time.Second), q.req("u", Background, 1)); len(got) != 0 {
		t.Fatalf("granted %v over the lowered limit", got)
	}
	if got := l.RetryAfter("u", Background, 1, at(time.Second)); got != 9*time.Second {
		t.Errorf("RetryAfter = %s, want 9s", got)
	}
	bad := s
	bad.App.Concurrency = 0
	if err := l.SetSpec(bad, at(time.Second)); err == nil {
		t.Error("invalid spec accepted")
	}
	if l.Spec().User.Windows[0].Limit != 2 {
		t.Error("invalid spec replaced the good one")
	}
}

func TestInvalidRequests(t *testing.T) {
	l := mustNew(t, noReserve(testSpec()))
	for _, r := range []Request{{User: "u"}, {ID: "a"}, {ID: "a", User: "u", Lane: 7}, {ID: "a", User: "u", Slots: 9}, {ID: "a", User: "u", Cost: -1}} {
		if err := l.Enqueue(r, at(0)); err == nil {
			t.Errorf("Enqueue(%+v) accepted", r)
		}
	}
}

func TestSingleLane(t *testing.T) {
	tests := []struct {
		name   string
		single bool
		// background granted from a full queue while a person is around,
		// and the order after the one concurrency slot frees.
		wantBackground int
		wantOrder      []string
	}{
		{"lanes on: reserve held, foreground jumps the queue", false, 35, []string{"r3"}},
		{"single lane: no reserve, one queue in arrival order", true, 39, []string{"r2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := laneSpec()
			sp.Tuning.SingleLane = tc.single
			l := mustNew(t, sp)
			var s seq
			drain(t, l, at(-time.Second), s.req("u", Foreground, 1)) // a person is around
			var bg []Request
			for range 50 {
				bg = append(bg, s.req("u", Background, 1))
			}
			if got := drain(t, l, at(0), bg...); len(got) != tc.wantBackground {
				t.Fatalf("background granted %d, want %d", len(got), tc.wantBackground)
			}
			fg, bgWait := l.RetryAfter("u", Foreground, 1, at(0)), l.RetryAfter("u", Background, 1, at(0))
			if tc.single && (fg != bgWait || fg == 0) {
				t.Fatalf("single lane: RetryAfter foreground %v, background %v; want the same wait for the full window", fg, bgWait)
			}
			if !tc.single && (fg != 0 || bgWait == 0) {
				t.Fatalf("lanes on: RetryAfter foreground %v, background %v; want 0 for foreground (reserve) only", fg, bgWait)
			}

			sp.User.Concurrency = 1
			l = mustNew(t, sp)
			var q seq
			grantAll(t, l, at(0), q.req("u", Background, 1)) // holds the only slot
			l.Enqueue(q.req("u", Background, 1), at(0))
			l.Enqueue(q.req("u", Foreground, 1), at(0))
			releaseAll(l, ok200, at(time.Second))
			if got := grantAll(t, l, at(time.Second)); !slices.Equal(got, tc.wantOrder) {
				t.Fatalf("granted %v, want %v", got, tc.wantOrder)
			}
		})
	}
}
