package limiter

import (
	"testing"
	"time"
)

// TestRiseProbe: a window learned under its spec that binds, with work
// waiting, lets one request above its learned limit after a clean
// cooldown while the rise budget holds a token (riseFrom). The app hour
// (spec 20) was learned at 10 with five strikes: the creep would wait
// eight hours. Before the rise probe nothing went above 10 for those
// eight hours (the first case failed: no request at 11 s), and users
// idled under a limit that had risen (full-79, 131).
func TestRiseProbe(t *testing.T) {
	refused := Outcome{Status: 429, Code: CodeThrottled}
	tests := []struct {
		name    string
		tokens  float64
		outcome Outcome // the probe's
		probe   bool    // does a request go at 11 s
		limit   int     // the app hour's learned limit after it
		strikes int
		// next is when the next request above the learned limit goes
		// (0: not within the test's 2 minutes).
		next time.Duration
	}{
		{"accepted: the limit rises, the next goes at once", 1, ok200, true, 11, 4, 11*time.Second + 100*time.Millisecond},
		{"no budget: nothing goes", 0.9, ok200, false, 10, 5, 0},
		{"refused: nothing learned, the next two cooldowns on", 2, refused, true, 10, 5, 31 * time.Second},
		{"refused with the budget spent: no next", 1, refused, true, 10, 5, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := noReserve(Spec{
				Name: "rise",
				User: ScopeSpec{Windows: []Window{{100, Duration(time.Minute)}, {1000, Duration(time.Hour)}}, Concurrency: 5},
				App:  ScopeSpec{Windows: []Window{{100, Duration(time.Minute)}, {20, Duration(time.Hour)}}, Concurrency: 10},
			})
			l := mustNew(t, s)
			tn := &l.st.Spec.Tuning
			l.st.App.Limits[1] = adapted{Lowered: 10, At: t0.UnixNano(), Strikes: 5}
			l.st.RiseTokens, l.st.Throttled = tc.tokens, true
			var q seq
			for i := range 10 {
				if !sendOne(t, l, &q, "u1", ok200, at(time.Duration(i)*100*time.Millisecond), 0) {
					t.Fatalf("request %d refused under the learned limit", i)
				}
			}
			if sendOne(t, l, &q, "u1", ok200, at(5*time.Second), 0) {
				t.Fatal("a request above the learned limit went within a cooldown of its lowering")
			}
			now := at(11 * time.Second)
			if got := sendOne(t, l, &q, "u1", tc.outcome, now, 0); got != tc.probe {
				t.Fatalf("probe at 11 s granted %v, want %v", got, tc.probe)
			}
			a := l.st.App.Limits[1]
			if got := a.limit(20, tn, now.UnixNano()); got != tc.limit || a.Strikes != tc.strikes {
				t.Errorf("app hour learned at %d with %d strikes, want %d with %d", got, a.Strikes, tc.limit, tc.strikes)
			}
			if l.st.App.Breaker.Open || l.user("u1").Scope.Breaker.Open {
				t.Error("a breaker opened")
			}
			got := time.Duration(0)
			for d := 11*time.Second + 100*time.Millisecond; d <= 2*time.Minute; d += 100 * time.Millisecond {
				if sendOne(t, l, &q, "u1", refused, at(d), 0) {
					got = d
					break
				}
			}
			if got != tc.next {
				t.Errorf("next probe at %s, want %s", got, tc.next)
			}
		})
	}
}

// TestRiseProbeThroughTheReserve: background, which meets a window at
// its learned limit less the foreground reserve, goes on through the
// reserve a request at a time once a rise probe may go, and the probe
// above the learned limit follows. Before, a reserve (any scans) kept
// background from ever probing: full-470's app hour, learned at 302
// with 8 of it reserved, could be probed by its scans alone; full-939
// finished at 1.039x (1.002x now).
func TestRiseProbeThroughTheReserve(t *testing.T) {
	s := Spec{
		Name: "rise-reserve",
		User: ScopeSpec{Windows: []Window{{100, Duration(time.Minute)}, {1000, Duration(time.Hour)}}, Concurrency: 5},
		App:  ScopeSpec{Windows: []Window{{100, Duration(time.Minute)}, {20, Duration(time.Hour)}}, Concurrency: 10},
	}
	s.Tuning = s.Tuning.withDefaults()
	s.Tuning.Reserve = 0.2 // 2 of the learned 10
	l := mustNew(t, s)
	tn := &l.st.Spec.Tuning
	l.st.App.Limits[1] = adapted{Lowered: 10, At: t0.UnixNano(), Strikes: 5}
	l.st.RiseTokens, l.st.Throttled = 2, true
	var q seq
	fg := q.req("s1", Foreground, 1) // a scan: the reserve holds from now
	l.Enqueue(fg, t0)
	for _, g := range l.Grant(t0) {
		l.Release(g.LeaseID, ok200, t0)
	}
	granted := 0
	for i := range 20 {
		if sendOne(t, l, &q, "u1", ok200, at(time.Duration(i)*100*time.Millisecond), 0) {
			granted++
		}
	}
	if granted >= 9 {
		t.Fatalf("background took %d of the learned 10 before a probe was due: no reserve to go through", granted)
	}
	d := 11 * time.Second
	for ; granted < 9; granted++ {
		if !sendOne(t, l, &q, "u1", ok200, at(d), 0) {
			t.Fatalf("at %s background did not go through the reserve (%d and the scan's 1 of the learned 10)", d, granted)
		}
		d += 100 * time.Millisecond
	}
	if !sendOne(t, l, &q, "u1", ok200, at(d), 0) {
		t.Fatalf("at %s no rise probe above the learned 10", d)
	}
	if got := l.st.App.Limits[1].limit(20, tn, at(d).UnixNano()); got != 11 {
		t.Errorf("app hour learned at %d after the probe, want 11", got)
	}
}
