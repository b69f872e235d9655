package sim

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// gated sends each request at once, except that none leaves before gate
// from the start of the run: a policy that holds work back for a known
// time, so the stall watch's measure of it can be checked by hand.
type gated struct {
	gate time.Duration
	sent int
}

func (*gated) name() string     { return "gated" }
func (*gated) start(*run) error { return nil }
func (g *gated) send(r *run, j *job, attempt int) {
	if at := Epoch.Add(g.gate); g.sent > 0 && r.now.Before(at) {
		r.at(at, func() { g.send(r, j, attempt) })
		return
	}
	g.sent++
	r.sendUpstream(j, attempt, func(resp Response) {
		if resp.Status == 200 {
			r.complete(j)
			return
		}
		r.requeue(j, time.Second)
	})
}

// TestStallWatchLimitChange checks that the stall watch follows a limit
// change that comes while the user is idle and nothing is sent: upstream
// applies a change only when a request reaches it, and the watch kept
// the free time it computed under the old limits. One user, one request
// a page, two pages; upstream's user hour is 1 until the change. The
// first page goes at 0; the policy holds the second until 50 min.
// Failed before run.limitsChanged: a rise at 10 min (to the spec's 400)
// was measured from the old hour's free time (60 min), after the send,
// so 40 minutes idle under room counted 0.
func TestStallWatchLimitChange(t *testing.T) {
	spec := limiter.OneNote()
	tight := spec.Tighten(1)
	tight.User.Windows[1].Limit = 1
	tests := []struct {
		name     string
		from, to limiter.Spec
		at       time.Duration
		want     time.Duration
	}{
		{"rise while idle: the stall runs from the rise", tight, spec, 10 * time.Minute, 40 * time.Minute},
		{"fall while idle: no room, no stall", spec, tight, 10 * time.Minute, 10 * time.Minute},
		{"no change: room from the first send", spec, spec, 0, 50 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := UpstreamConfig{Limits: tc.from, LatencyMin: 100 * time.Millisecond, LatencyMax: 100 * time.Millisecond}
			if tc.at > 0 {
				up.Change = &LimitChange{At: tc.at, Limits: tc.to}
			}
			cfg := Config{
				Scenario: "stall-watch",
				Workload: Workload{Users: []UserWork{{User: "u00", Pages: []int{0, 0}}}, Workers: 1},
				Upstream: up,
				Spec:     spec,
				Horizon:  3 * time.Hour,
				Seed:     1,
			}
			r, err := newRunPolicy(cfg, &gated{gate: 50 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			res := r.simulate()
			if !res.Finished {
				t.Fatalf("did not finish: %d of %d pages", res.PagesDone, res.Pages)
			}
			if d := res.MaxStall - tc.want; d < -time.Second || d > time.Second {
				t.Errorf("stall %s, want %s", res.MaxStall, tc.want)
			}
		})
	}
}
