package entity

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestReleaseHeldForTheNextMessage: a release waits for this client's
// next message to its limiter only when it teaches the limiter nothing
// (a plain success, no probe), the client still holds another permit of
// that limiter, and what waits there is younger than HoldFor; any other
// release goes at the end of the workflow task.
func TestReleaseHeldForTheNextMessage(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC)
	ok := limiter.Outcome{Status: 200}
	tests := []struct {
		name    string
		p       Permit
		o       limiter.Outcome
		others  []string      // users of the other permits the client holds
		heldAgo time.Duration // age of the oldest release already held; 0: none
		want    bool
	}{
		{"a success while another permit of the limiter is out: held", Permit{User: "alice"}, ok, []string{"alice"}, 0, true},
		{"another user of the same limiter counts", Permit{User: "alice"}, ok, []string{"dave"}, 0, true},
		{"the last permit of the limiter: sent", Permit{User: "alice"}, ok, nil, 0, false},
		{"only another limiter's permits: sent", Permit{User: "alice"}, ok, []string{"carol"}, 0, false},
		{"a throttle: sent", Permit{User: "alice"}, limiter.Outcome{Status: 429}, []string{"alice"}, 0, false},
		{"a concurrency refusal in a 200: sent", Permit{User: "alice"}, limiter.Outcome{Status: 200, Code: limiter.CodeConcurrency}, []string{"alice"}, 0, false},
		{"a throttle-percentage header: sent", Permit{User: "alice"}, limiter.Outcome{Status: 200, ThrottlePercent: 0.9}, []string{"alice"}, 0, false},
		{"units unsent: sent", Permit{User: "alice", Cost: 3}, limiter.Outcome{Status: 200, Unsent: 1}, []string{"alice"}, 0, false},
		{"never sent: sent", Permit{User: "alice"}, limiter.Outcome{}, []string{"alice"}, 0, false},
		{"a server error: sent", Permit{User: "alice"}, limiter.Outcome{Status: 503}, []string{"alice"}, 0, false},
		{"a breaker's probe: sent", Permit{User: "alice", Probe: true}, ok, []string{"alice"}, 0, false},
		{"releases held for less than HoldFor: held too", Permit{User: "alice"}, ok, []string{"alice"}, HoldFor - time.Millisecond, true},
		{"releases held for HoldFor: all sent", Permit{User: "alice"}, ok, []string{"alice"}, HoldFor, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Client{opts: ClientOptions{Resource: "graph-onenote", App: "app", Shards: 2},
				held: map[string]heldPermit{}, heldAt: map[string]time.Time{}}
			// alice and dave share a shard of 2, carol is on the other.
			if c.limiterFor("alice") != c.limiterFor("dave") || c.limiterFor("alice") == c.limiterFor("carol") {
				t.Fatalf("the test's users: alice %s, dave %s, carol %s", c.limiterFor("alice"), c.limiterFor("dave"), c.limiterFor("carol"))
			}
			for i, u := range tc.others {
				c.held[string(rune('a'+i))] = heldPermit{LeaseID: "L", To: c.limiterFor(u)}
			}
			to := c.limiterFor(tc.p.User)
			if tc.heldAgo > 0 {
				c.heldAt[to] = t0.Add(-tc.heldAgo)
			}
			if got := c.holdable(to, tc.p, tc.o, t0); got != tc.want {
				t.Errorf("holdable = %v, want %v", got, tc.want)
			}
			if got, want := c.staleHold(to, t0), tc.heldAgo >= HoldFor; got != want {
				t.Errorf("staleHold = %v, want %v", got, want)
			}
		})
	}
}
