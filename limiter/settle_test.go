package limiter

import (
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
