package limiter

import (
	"testing"
	"time"
)

// TestCreptConcurrencyProbes: a user cap lowered by a concurrency
// throttle and crept back towards the spec lets one background slot
// above the learned cap go at a time; a success with that slot in
// flight proves it and the next may go. Not lowered, or not yet crept,
// the cap is as before. On the old code the crept cap was taken whole:
// four background requests at once where the real cap was 2, a throttle
// for each slot over it (full-189, small-15).
func TestCreptConcurrencyProbes(t *testing.T) {
	tests := []struct {
		name     string
		throttle bool
		later    time.Duration // after the throttle
		proveAt  int           // a success with this many in flight first (0: none)
		want     int           // background requests granted at once
	}{
		{"never lowered: the spec less the reserve", false, time.Hour, 0, 4},
		{"lowered to 2, quiet: 2 less the reserve", true, 10 * time.Minute, 0, 1},
		{"crept back to 5: one slot above the learned 2", true, time.Hour, 0, 3},
		{"crept back, 3 proven: one above that", true, time.Hour, 3, 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			var q seq
			reqs := []Request{q.req("a", Background, 1), q.req("a", Background, 1), q.req("a", Background, 1)}
			grantAll(t, l, at(0), reqs...)
			if tc.throttle {
				g, _ := l.Lease(reqs[2].ID)
				l.Release(g.LeaseID, Outcome{Status: 429, Code: CodeConcurrency, Scope: ScopeUser}, at(time.Second))
			}
			releaseAll(l, ok200, at(2*time.Second))
			now := at(time.Second + tc.later)
			if tc.proveAt > 0 {
				var ps []Request
				for range tc.proveAt {
					ps = append(ps, q.req("a", Background, 1))
				}
				if got := len(grantAll(t, l, now, ps...)); got != tc.proveAt {
					t.Fatalf("granted %d to prove, want %d", got, tc.proveAt)
				}
				releaseAll(l, ok200, now.Add(time.Second))
				now = now.Add(2 * time.Second)
			}
			var more []Request
			for range 6 {
				more = append(more, q.req("a", Background, 1))
			}
			if got := len(grantAll(t, l, now, more...)); got != tc.want {
				t.Errorf("granted %d background requests at once, want %d", got, tc.want)
			}
		})
	}
}
