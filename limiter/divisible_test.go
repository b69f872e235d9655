package limiter

import (
	"testing"
	"time"
)

// TestDivisibleRequests: a request that may be granted in part takes what
// fits instead of waiting for the whole to fit, and the limiter wakes for
// it as soon as its least part fits.
func TestDivisibleRequests(t *testing.T) {
	tests := []struct {
		name      string
		cost, min int
		wantCost  int           // granted at 1 s, 0 if none
		wantWake  time.Duration // NextWakeup after 1 s if not granted
		wantUsed  int           // 10-s window at 1 s
		wantQueue int           // background requests still queued
	}{
		{"all or nothing waits for the whole", 3, 0, 0, 10 * time.Second, 2, 1},
		{"divisible takes the one unit that fits", 3, 1, 1, 0, 3, 0},
		{"divisible, but its least part does not fit", 3, 2, 0, 10 * time.Second, 2, 1},
		{"a minimum at the cost is all or nothing", 3, 3, 0, 10 * time.Second, 2, 1},
		{"a whole that fits is granted whole", 1, 1, 1, 0, 3, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec())) // user: 3 per 10 s, 5 per minute
			var q seq
			drain(t, l, at(0), q.req("u", Background, 2))
			r := q.req("u", Background, tc.cost)
			r.MinCost = tc.min
			if err := l.Enqueue(r, at(time.Second)); err != nil {
				t.Fatal(err)
			}
			gs := l.Grant(at(time.Second))
			got := 0
			if len(gs) == 1 {
				got = gs[0].Cost
			}
			if got != tc.wantCost {
				t.Fatalf("granted cost %d, want %d", got, tc.wantCost)
			}
			st := l.State(at(time.Second))
			if used := st.Users[0].Windows[0].Used; used != tc.wantUsed {
				t.Errorf("10-s window holds %d, want %d", used, tc.wantUsed)
			}
			if st.Queued[Background] != tc.wantQueue {
				t.Errorf("%d queued, want %d", st.Queued[Background], tc.wantQueue)
			}
			if tc.wantWake > 0 {
				if w := l.NextWakeup(at(time.Second)); !w.Equal(at(tc.wantWake)) {
					t.Errorf("NextWakeup = %v, want %v", w.Sub(t0), tc.wantWake)
				}
			}
		})
	}
}
