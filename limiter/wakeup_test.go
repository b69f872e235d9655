package limiter

import (
	"testing"
	"time"
)

func TestNextWakeup(t *testing.T) {
	tests := []struct {
		name string
		prep func(t *testing.T, l *Limiter, q *seq)
		now  time.Duration
		want time.Duration // -1: zero Time
	}{
		{"nothing queued", func(*testing.T, *Limiter, *seq) {}, 0, -1},
		{"room now", func(t *testing.T, l *Limiter, q *seq) {
			l.Enqueue(q.req("u", Background, 1), at(0))
		}, 0, 0},
		{"window frees at oldest + per", func(t *testing.T, l *Limiter, q *seq) {
			drain(t, l, at(0), q.req("u", Background, 1))
			drain(t, l, at(2*time.Second), q.req("u", Background, 1), q.req("u", Background, 1), q.req("u", Background, 1))
		}, 3 * time.Second, 10 * time.Second},
		{"breaker cooldown", func(t *testing.T, l *Limiter, q *seq) {
			grantAll(t, l, at(0), q.req("u", Background, 1))
			l.Release(l.State(at(0)).Leases[0].LeaseID, Outcome{Status: 429, Scope: ScopeApp}, at(time.Second))
			l.Enqueue(q.req("u", Background, 1), at(time.Second))
		}, 2 * time.Second, 11 * time.Second},
		{"only a release helps: lease expiry", func(t *testing.T, l *Limiter, q *seq) {
			grantAll(t, l, at(0), q.req("u", Background, 1), q.req("u", Background, 1), q.req("u", Background, 1))
		}, time.Second, 30 * time.Second},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec()))
			var q seq
			tc.prep(t, l, &q)
			got := l.NextWakeup(at(tc.now))
			if tc.want < 0 {
				if !got.IsZero() {
					t.Fatalf("NextWakeup = %v, want zero", got)
				}
				return
			}
			if !got.Equal(at(tc.want)) {
				t.Fatalf("NextWakeup = %v, want %v", got, at(tc.want))
			}
			// Nothing could have been granted sooner.
			if tc.want > tc.now && len(l.Grant(got.Add(-1))) != 0 {
				t.Error("granted before the wake-up")
			}
		})
	}
}
