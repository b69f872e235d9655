package limiter

import (
	"testing"
	"time"
)

// TestNewUserStartsFromTheUserCap: a user arriving after a concurrency
// throttle lowered the user cap starts from the cap every known user
// holds, and creeps back with them; without a lowering it starts from
// the spec. On the old code a later user learned the cap again, a
// throttle for each unit over it (small-15, small-34, small-114).
func TestNewUserStartsFromTheUserCap(t *testing.T) {
	tests := []struct {
		name     string
		throttle bool
		arrive   time.Duration
		want     int
	}{
		{"no throttle: the spec's 5", false, time.Minute, 5},
		{"a minute after the throttle: its 2", true, time.Minute, 2},
		{"29 minutes after, still quiet: 2", true, 29 * time.Minute, 2},
		{"31 minutes after, crept back a step like the others: 3", true, 31 * time.Minute, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			var q seq
			reqs := []Request{q.req("b", Background, 1), q.req("a", Background, 1), q.req("a", Background, 1), q.req("a", Background, 1)}
			grantAll(t, l, at(0), reqs...)
			if tc.throttle {
				g, _ := l.Lease(reqs[3].ID)
				l.Release(g.LeaseID, Outcome{Status: 429, Code: CodeConcurrency, Scope: ScopeUser}, at(time.Second))
			}
			releaseAll(l, ok200, at(2*time.Second))
			now := at(time.Second + tc.arrive)
			grantAll(t, l, now, q.req("late", Background, 1))
			got := map[string]int{}
			for _, u := range l.State(now).Users {
				got[u.User] = u.EffectiveConcurrency
			}
			if got["late"] != tc.want || got["b"] != tc.want {
				t.Errorf("user caps %v, want %d for the late user and for b, known at the throttle", got, tc.want)
			}
		})
	}
}
