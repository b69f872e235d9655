package sim

import (
	"fmt"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Policies are the policies every scenario compares.
var Policies = []string{"ours", "backoff", "queue-retry", "max-min"}

// Scenario is a named configuration with a one-line description.
type Scenario struct {
	Name        string
	Description string
	Config      Config
}

// baseUpstream is OneNote as documented: the published limits, no
// Retry-After, no throttle headers, every received request counted, and
// 200-800 ms latency.
func baseUpstream() UpstreamConfig {
	return UpstreamConfig{
		Limits:        limiter.OneNote(),
		Audit:         limiter.OneNote(),
		CountRejected: true,
		LatencyMin:    200 * time.Millisecond,
		LatencyMax:    800 * time.Millisecond,
	}
}

func oneUser(pages int, seed uint64) Workload {
	return Workload{Users: []UserWork{{User: "alice", Pages: Pages(pages, 2, seed)}}, Workers: 5}
}

// Seed is the seed's incident: one user, 1,300 pages of about 3 requests.
func Seed() Scenario {
	return Scenario{
		Name:        "seed",
		Description: "one user, 1,300 pages (content + 0-4 resources each, ~3 requests a page), 5 workers",
		Config: Config{
			Scenario: "seed", Workload: oneUser(1300, 1), Upstream: baseUpstream(),
			Spec: limiter.OneNote(), Horizon: 12 * time.Hour, Seed: 1,
		},
	}
}

// SeedLenient is Seed against an upstream that counts only accepted
// requests, the kindest assumption for the naive policies.
func SeedLenient() Scenario {
	s := Seed()
	s.Name = "seed-lenient"
	s.Description = "as seed, but upstream counts only accepted requests against its windows"
	s.Config.Scenario = s.Name
	s.Config.Upstream.CountRejected = false
	return s
}

// FiveUsers is five users with equal demand sharing the app budget.
func FiveUsers() Scenario {
	w := Workload{Workers: 5}
	for i := range 5 {
		w.Users = append(w.Users, UserWork{User: fmt.Sprintf("user%d", i+1), Pages: Pages(260, 2, uint64(11+i))})
	}
	return Scenario{
		Name:        "five-users",
		Description: "5 users x 260 pages sharing the app's 240/min, 800/h and 20 concurrent",
		Config: Config{
			Scenario: "five-users", Workload: w, Upstream: baseUpstream(),
			Spec: limiter.OneNote(), Horizon: 10 * time.Hour, Seed: 2,
		},
	}
}

// Unequal is seven users with notebooks of four sizes, arriving in three
// waves, sharing the app budget: users of one size start together and
// have identical notebooks, so their shares should be equal, while the
// largest, capped by its own 400/h, decides the finish unless it starts
// early.
func Unequal() Scenario {
	w := Workload{Workers: 5}
	for _, g := range []struct {
		name  string
		n     int
		pages int
		start time.Duration
		seed  uint64
	}{
		{"large", 1, 700, 0, 21},
		{"mid", 2, 300, 0, 22},
		{"small", 2, 150, 20 * time.Minute, 23},
		{"tiny", 2, 60, 40 * time.Minute, 24},
	} {
		for i := range g.n {
			w.Users = append(w.Users, UserWork{User: fmt.Sprintf("%s%d", g.name, i+1), Pages: Pages(g.pages, 2, g.seed), Start: g.start})
		}
	}
	return Scenario{
		Name:        "unequal",
		Description: "7 users: 1 x 700 pages and 2 x 300 at 0, 2 x 150 at 20 min, 2 x 60 at 40 min, sharing the app budget",
		Config: Config{
			Scenario: "unequal", Workload: w, Upstream: baseUpstream(),
			Spec: limiter.OneNote(), Horizon: 12 * time.Hour, Seed: 6,
		},
	}
}

// Saturate is a background migration larger than the run, measuring
// budget use from the second hour on.
func Saturate() Scenario {
	return Scenario{
		Name:        "saturate",
		Description: "one user with more pages than 6 h allow; budget use measured over hours 1-6",
		Config: Config{
			Scenario: "saturate", Workload: oneUser(4000, 3), Upstream: baseUpstream(),
			Spec: limiter.OneNote(), Horizon: 6 * time.Hour, Seed: 3,
			MeasureFrom: time.Hour, MeasureTo: 6 * time.Hour,
		},
	}
}

// Foreground is Saturate with a person scanning every 20 minutes.
func Foreground() Scenario {
	s := Saturate()
	s.Name = "foreground"
	s.Description = "saturating migration plus a 3-request foreground scan every 20 min"
	s.Config.Scenario = s.Name
	s.Config.Workload.Scans = []Scan{{User: "alice", At: 0, Every: 20 * time.Minute, Requests: 3}}
	return s
}

// Scanners is twenty people scanning, each every 20 minutes, while five
// users' migrations saturate the app budget; the scans stop at 3 h, and
// budget use is measured from 4 h to 8 h, when nobody scans.
func Scanners() Scenario {
	w := Workload{Workers: 5}
	for i := range 5 {
		w.Users = append(w.Users, UserWork{User: fmt.Sprintf("migrator%d", i+1), Pages: Pages(600, 2, uint64(31+i))})
	}
	for i := range 20 {
		w.Scans = append(w.Scans, Scan{User: fmt.Sprintf("scanner%02d", i+1), At: time.Duration(i) * time.Minute,
			Every: 20 * time.Minute, Until: 3 * time.Hour, Requests: 3})
	}
	return Scenario{
		Name:        "scanners",
		Description: "20 people scanning (3 requests each) every 20 min until 3 h while 5 users x 600 pages saturate the app budget; budget use measured over hours 4-8, when nobody scans",
		Config: Config{
			Scenario: "scanners", Workload: w, Upstream: baseUpstream(),
			Spec: limiter.OneNote(), Horizon: 8 * time.Hour, Seed: 7,
			MeasureFrom: 4 * time.Hour, MeasureTo: 8 * time.Hour,
		},
	}
}

// OutageScenario is a 5-minute upstream outage (503) in the middle of a burst.
func OutageScenario() Scenario {
	up := baseUpstream()
	up.Outages = []Outage{{From: 61 * time.Minute, To: 66 * time.Minute}}
	return Scenario{
		Name:        "outage",
		Description: "one user, 500 pages; every request fails with 503 from minute 61 to 66",
		Config: Config{
			Scenario: "outage", Workload: oneUser(500, 4), Upstream: up,
			Spec: limiter.OneNote(), Horizon: 6 * time.Hour, Seed: 4,
		},
	}
}

// Hidden is Seed against limits 30% stricter than published, with no
// throttle headers at all.
func Hidden() Scenario {
	up := baseUpstream()
	up.Limits = limiter.OneNote().Tighten(0.7)
	return Scenario{
		Name:        "hidden",
		Description: "as seed, but upstream really allows 30% less (84/min, 280/h, 3 at once) and sends no headers",
		Config: Config{
			Scenario: "hidden", Workload: oneUser(1300, 1), Upstream: up,
			Spec: limiter.OneNote(), Horizon: 20 * time.Hour, Seed: 5,
		},
	}
}

// Scenarios returns every scenario in report order.
func Scenarios() []Scenario {
	return []Scenario{Seed(), SeedLenient(), FiveUsers(), Unequal(), Saturate(), Foreground(), Scanners(), OutageScenario(), Hidden()}
}

// HiddenVariant is one way upstream's real limits differ from the
// published table, run over several seeds.
type HiddenVariant struct {
	Name, Description string
	// Seeds are the variant's runs, one scenario per seed.
	Seeds []Scenario
}

// HiddenVariants returns the hidden-limit variants over seeds 1..seeds,
// each on the five-users workload with no throttle headers: each of the
// six limits (user and app minute, hour and concurrency) alone at half the
// published value, all of them at half, and all halved two hours into the
// run.
func HiddenVariants(seeds int) []HiddenVariant {
	half := func(n int) int { return max(1, n/2) }
	alone := func(f func(s *limiter.Spec)) limiter.Spec {
		s := limiter.OneNote()
		s.User.Windows = append([]limiter.Window(nil), s.User.Windows...)
		s.App.Windows = append([]limiter.Window(nil), s.App.Windows...)
		f(&s)
		return s
	}
	type variant struct {
		name, desc string
		limits     limiter.Spec
		change     *LimitChange
	}
	vs := []variant{
		{"user-minute", "user 60/min (published 120)", alone(func(s *limiter.Spec) { s.User.Windows[0].Limit = half(s.User.Windows[0].Limit) }), nil},
		{"user-hour", "user 200/h (published 400)", alone(func(s *limiter.Spec) { s.User.Windows[1].Limit = half(s.User.Windows[1].Limit) }), nil},
		{"user-concurrency", "user 2 at once (published 5)", alone(func(s *limiter.Spec) { s.User.Concurrency = half(s.User.Concurrency) }), nil},
		{"app-minute", "app 120/min (published 240)", alone(func(s *limiter.Spec) { s.App.Windows[0].Limit = half(s.App.Windows[0].Limit) }), nil},
		{"app-hour", "app 400/h (published 800)", alone(func(s *limiter.Spec) { s.App.Windows[1].Limit = half(s.App.Windows[1].Limit) }), nil},
		{"app-concurrency", "app 10 at once (published 20)", alone(func(s *limiter.Spec) { s.App.Concurrency = half(s.App.Concurrency) }), nil},
		{"all-half", "every limit at half", limiter.OneNote().Tighten(0.5), nil},
		{"halved-mid-run", "published limits, then every limit halved at 2 h", limiter.OneNote(),
			&LimitChange{At: 2 * time.Hour, Limits: limiter.OneNote().Tighten(0.5)}},
	}
	out := make([]HiddenVariant, 0, len(vs))
	for _, v := range vs {
		hv := HiddenVariant{Name: v.name, Description: v.desc}
		for seed := 1; seed <= seeds; seed++ {
			sc := FiveUsers()
			sc.Name = fmt.Sprintf("hidden-%s-s%d", v.name, seed)
			sc.Description = "five-users against " + v.desc + ", no throttle headers"
			sc.Config.Scenario = sc.Name
			sc.Config.Seed = uint64(100 + seed)
			sc.Config.Horizon = 30 * time.Hour
			sc.Config.Upstream.Limits = v.limits
			sc.Config.Upstream.Change = v.change
			hv.Seeds = append(hv.Seeds, sc)
		}
		out = append(out, hv)
	}
	return out
}
