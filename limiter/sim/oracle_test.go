package sim

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// tinySpec is a table small enough to schedule by hand: per user 10 a
// minute and 25 an hour, per app 20 a minute and 40 an hour, concurrency
// out of the way.
func tinySpec() limiter.Spec {
	s := limiter.OneNote()
	s.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 10, Per: limiter.Duration(time.Minute)}, {Limit: 25, Per: limiter.Duration(time.Hour)}}, Concurrency: 1000}
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 20, Per: limiter.Duration(time.Minute)}, {Limit: 40, Per: limiter.Duration(time.Hour)}}, Concurrency: 1000}
	return s
}

// requests is a user with n pages of one request each, starting at start.
func requests(user string, n int, start time.Duration) UserWork {
	return UserWork{User: user, Pages: make([]int, n), Start: start}
}

// TestOracle checks the oracle on samples scheduled by hand. Every
// request takes at least 1 ms, which the finish adds once.
func TestOracle(t *testing.T) {
	const ms = time.Millisecond
	spec := tinySpec()
	lower := func(f func(s *limiter.Spec)) *LimitChange {
		s := tinySpec()
		f(&s)
		return &LimitChange{At: 30 * time.Second, Limits: s}
	}
	tests := []struct {
		name    string
		users   []UserWork
		scans   []Scan
		limits  limiter.Spec // zero: spec
		change  *LimitChange
		outages []Outage
		want    time.Duration
	}{
		{"one user, the minute binds: 10 at 0, 10 at 1 min, 5 at 2 min", []UserWork{requests("a", 25, 0)}, nil, limiter.Spec{}, nil, nil, 2*time.Minute + ms},
		{"one user, one past the hour: the first leaves the hour at 1 h", []UserWork{requests("a", 26, 0)}, nil, limiter.Spec{}, nil, nil, time.Hour + ms},
		{"a late start moves the finish", []UserWork{requests("a", 5, 10*time.Minute)}, nil, limiter.Spec{}, nil, nil, 10*time.Minute + ms},
		{"two users, the app's minute and hour suffice", []UserWork{requests("a", 20, 0), requests("b", 20, 0)}, nil, limiter.Spec{}, nil, nil, time.Minute + ms},
		{"two users, the app's hour binds: 40 in 1 min, 10 at 1 h", []UserWork{requests("a", 25, 0), requests("b", 25, 0)}, nil, limiter.Spec{}, nil, nil, time.Hour + ms},
		{"a page's requests count: 5 pages of 5", []UserWork{{User: "a", Pages: []int{4, 4, 4, 4, 4}}}, nil, limiter.Spec{}, nil, nil, 2*time.Minute + ms},
		{"hidden: the user's minute at 5", []UserWork{requests("a", 12, 0)}, nil, func() limiter.Spec { s := tinySpec(); s.User.Windows[0].Limit = 5; return s }(), nil, nil, 2*time.Minute + ms},
		{"an outage from 30 s to 90 s: 10 at 0, 10 at 90 s, 5 at 150 s", []UserWork{requests("a", 25, 0)}, nil, limiter.Spec{}, nil, []Outage{{30 * time.Second, 90 * time.Second}}, 150*time.Second + ms},
		{"the minute drops to 5 at 30 s: 10 at 0, 5 at 1 min", []UserWork{requests("a", 15, 0)}, nil, limiter.Spec{}, lower(func(s *limiter.Spec) { s.User.Windows[0].Limit = 5 }), nil, time.Minute + ms},
		{"the minute rises from 5 to 10 at 30 s: 5 at 0, 5 at 30 s, 2 at 1 min", []UserWork{requests("a", 12, 0)}, nil, func() limiter.Spec { s := tinySpec(); s.User.Windows[0].Limit = 5; return s }(), lower(func(*limiter.Spec) {}), nil, time.Minute + ms},
		{"a rise above the published table does not count", []UserWork{requests("a", 15, 0)}, nil, limiter.Spec{}, lower(func(s *limiter.Spec) { s.User.Windows[0].Limit = 1000 }), nil, time.Minute + ms},
		{"a scan before the finish takes the app's hour", []UserWork{requests("a", 25, 0)}, []Scan{{User: "s", At: 0, Requests: 20}}, limiter.Spec{}, nil, nil, time.Hour + ms},
		{"a user's own scan takes its hour too: the 26th of its own leaves at 1 h", []UserWork{requests("a", 25, 0)}, []Scan{{User: "a", At: 0, Requests: 1}}, limiter.Spec{}, nil, nil, time.Hour + ms},
		{"another user's scan takes only the app's", []UserWork{requests("a", 25, 0)}, []Scan{{User: "b", At: 0, Requests: 1}}, limiter.Spec{}, nil, nil, 2*time.Minute + ms},
		{"a scan after the finish does not", []UserWork{requests("a", 25, 0)}, []Scan{{User: "s", At: 3 * time.Hour, Requests: 20}}, limiter.Spec{}, nil, nil, 2*time.Minute + ms},
		// b's 25 at 0 and a's 50 from 30 s: 75 need two app hours. The
		// optimum: a at its own greedy (10 at 30 s, 10 at 1m30s, 5 at
		// 2m30s, the same an hour later), b 10 at 0, 5 at 1 min and its
		// last 10 at 1 h, when its first 10 leave the app's hour. No app
		// hour holds over 40 (35 at 1h1m30s), no app minute over 20. a
		// alone finishes no sooner: the oracle is exact. It asks b to
		// wait for a, which a schedule that does not know a is coming
		// cannot (full-201: u11 took its hour 2.5 min before u10 came,
		// 1.038x).
		{"a user arriving after another: the late user's own bound", []UserWork{requests("b", 25, 0), requests("a", 50, 30*time.Second)}, nil, limiter.Spec{}, nil, nil, time.Hour + 2*time.Minute + 30*time.Second + ms},
		{"concurrency 1 and 1 ms a request: 5 requests take 5 ms", []UserWork{requests("a", 5, 0)}, nil, func() limiter.Spec { s := tinySpec(); s.User.Concurrency = 1; return s }(), nil, nil, 5 * ms},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			up := UpstreamConfig{Limits: tc.limits, Change: tc.change, Outages: tc.outages, LatencyMin: ms, LatencyMax: ms}
			if up.Limits.User.Windows == nil {
				up.Limits = spec
			}
			cfg := Config{Workload: Workload{Users: tc.users, Scans: tc.scans, Workers: 1000}, Upstream: up, Spec: spec, Horizon: 24 * time.Hour}
			if got := Oracle(cfg); got != tc.want {
				t.Errorf("Oracle = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestOracleBelowRuns checks that no run of the limiter beats the oracle
// (it is a lower bound) on the project's scenarios, and that it is no
// lower than LowerBound, which leaves out concurrency, arrivals and
// outages.
func TestOracleBelowRuns(t *testing.T) {
	for _, sc := range []Scenario{Seed(), FiveUsers(), Unequal(), OutageScenario(), Hidden()} {
		r := mustRun(t, sc, "ours")
		o := Oracle(sc.Config)
		if r.Completion < o {
			t.Errorf("%s: finished at %s, before the oracle's %s", sc.Name, r.Completion, o)
		}
		if lb := LowerBound(sc.Config.Upstream.Limits, sc.Config.Workload, sc.Config.Upstream.LatencyMin); o < lb {
			t.Errorf("%s: oracle %s below the lower bound %s", sc.Name, o, lb)
		}
	}
}

// TestOutsideOutages checks the stall measure's clipping by hand: the
// longest part of an interval outside outages and the 10-minute recovery
// after each.
func TestOutsideOutages(t *testing.T) {
	m := func(n int) time.Time { return Epoch.Add(time.Duration(n) * time.Minute) }
	r := &run{cfg: Config{Spec: limiter.OneNote(), Upstream: UpstreamConfig{Outages: []Outage{{From: 10 * time.Minute, To: 15 * time.Minute}, {From: 40 * time.Minute, To: 41 * time.Minute}}}}}
	tests := []struct {
		from, to int
		want     time.Duration
	}{
		{0, 5, 5 * time.Minute},
		{0, 30, 10 * time.Minute},  // 0-10, then 25-30
		{12, 24, 0},                // inside the outage and its recovery
		{12, 45, 15 * time.Minute}, // 25-40
		{0, 60, 15 * time.Minute},  // 0-10, 25-40 (15), 51-60
		{55, 60, 5 * time.Minute},
	}
	for _, tc := range tests {
		if got := r.outsideOutages(m(tc.from), m(tc.to)); got != tc.want {
			t.Errorf("[%d, %d) min: %s, want %s", tc.from, tc.to, got, tc.want)
		}
	}
}

// TestFitsReserve checks the foreground rule on demands counted by hand
// against the OneNote table's base reserves (app 6 a minute, 20 an hour;
// user 3 a minute, 10 an hour).
func TestFitsReserve(t *testing.T) {
	one := func(user string, at time.Duration, n int) Scan { return Scan{User: user, At: at, Requests: n} }
	tests := []struct {
		name  string
		scans []Scan
		up    func(*UpstreamConfig)
		want  bool
	}{
		{"one person, 3 requests", []Scan{one("p", time.Minute, 3)}, nil, true},
		{"one person, 4 requests in a minute: the user's 3", []Scan{one("p", time.Minute, 4)}, nil, false},
		{"two people, 3 each: the app's 6", []Scan{one("p", time.Minute, 3), one("q", time.Minute, 3)}, nil, true},
		{"three people, 3 each: 9 in a minute", []Scan{one("p", time.Minute, 3), one("q", time.Minute, 3), one("r", time.Minute, 3)}, nil, false},
		{"seven people, 3 each, 2 minutes apart: 21 in the hour", func() []Scan {
			var s []Scan
			for i := range 7 {
				s = append(s, one(string(rune('a'+i)), time.Duration(2*i+1)*time.Minute, 3))
			}
			return s
		}(), nil, false},
		{"one person every 20 minutes: 9 an hour", []Scan{{User: "p", At: time.Minute, Every: 20 * time.Minute, Requests: 3}}, nil, true},
		{"an outage", []Scan{one("p", time.Minute, 1)}, func(u *UpstreamConfig) { u.Outages = []Outage{{From: time.Hour, To: 2 * time.Hour}} }, false},
		{"hidden limits", []Scan{one("p", time.Minute, 1)}, func(u *UpstreamConfig) { u.Limits = limiter.OneNote().Tighten(0.5) }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{
				Workload: Workload{Users: []UserWork{requests("m", 2000, 0)}, Scans: tc.scans, Workers: 5},
				Upstream: baseUpstream(), Spec: limiter.OneNote(), Horizon: 24 * time.Hour,
			}
			if tc.up != nil {
				tc.up(&cfg.Upstream)
			}
			if got := FitsReserve(cfg); got != tc.want {
				t.Errorf("FitsReserve = %v, want %v", got, tc.want)
			}
		})
	}
}
