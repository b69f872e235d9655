package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Size bounds the samples Generate draws.
type Size struct {
	Name string
	// MaxUsers and MaxPages bound the users of a sample and the pages of
	// each (drawn log-uniformly, so small ones are as common as large).
	MaxUsers, MaxPages int
	// MaxRequests caps a sample's background requests: the pages of every
	// user are scaled down to fit (a simulated hour costs about 800).
	MaxRequests int
}

// Small is the size of the samples `go test -short` runs: a few hundred
// finish in seconds.
var Small = Size{Name: "small", MaxUsers: 12, MaxPages: 400, MaxRequests: 1500}

// Full is the size of the long property run: the whole space the issue
// names (1 to 50 users, 1 to 5,000 pages each), at most 30,000 requests
// (about 40 simulated hours at the app's 800 an hour).
var Full = Size{Name: "full", MaxUsers: 50, MaxPages: 5000, MaxRequests: 30000}

// Sample is one generated workload and upstream, with what shaped it.
type Sample struct {
	Seed uint64
	Size Size
	// Scenario is the run: Config.Upstream holds the true limits.
	Scenario Scenario
	// AsSpecified is set when upstream enforces exactly the published
	// limits for the whole run (outages aside): no 429 is excusable.
	AsSpecified bool
}

// Generate draws the sample of seed from size's space:
//   - 1 to MaxUsers users, all starting at 0 or each at any time in the
//     first 3 hours;
//   - 1 to MaxPages pages each, 0 to 6 resources a page;
//   - foreground scans in half the samples: 1 to 20 people, all at once,
//     in bursts, staggered or at random, once or periodically, 1 to 5
//     requests each, by migrating users or others;
//   - hidden limits in half the samples: any subset of the six (user and
//     app minute, hour, concurrency), each at 30% to 100% of published;
//   - in a quarter, the limits change at some time, down or up (never
//     above the published ones);
//   - in a fifth, one or two outages of 30 s to 15 min;
//   - throttle headers present or absent.
func Generate(seed uint64, size Size) Sample {
	rng := rand.New(rand.NewPCG(seed, 0x9e4e7a7e))
	logUniform := func(hi int) int {
		return max(1, min(hi, int(math.Exp(rng.Float64()*math.Log(float64(hi)+1)))))
	}
	chance := func(p float64) bool { return rng.Float64() < p }
	var notes []string

	w := Workload{Workers: 1 + rng.IntN(8)}
	users := logUniform(size.MaxUsers)
	together := chance(0.5)
	mean := rng.IntN(4)
	total := 0
	for i := range users {
		u := UserWork{User: fmt.Sprintf("u%02d", i), Pages: Pages(logUniform(size.MaxPages), mean, seed*1000+uint64(i))}
		if !together && i > 0 {
			u.Start = time.Duration(rng.Int64N(int64(3 * time.Hour))).Truncate(time.Second)
		}
		total += u.Requests()
		w.Users = append(w.Users, u)
	}
	if total > size.MaxRequests {
		f := float64(size.MaxRequests) / float64(total)
		for i := range w.Users {
			p := w.Users[i].Pages
			w.Users[i].Pages = p[:max(1, int(float64(len(p))*f))]
		}
	}
	arrive := "together"
	if !together {
		arrive = "staggered"
	}
	notes = append(notes, fmt.Sprintf("%d users %s, %d requests, %d workers", users, arrive, w.requests(), w.Workers))

	up := baseUpstream()
	up.Headers = chance(0.5)
	if up.Headers {
		notes = append(notes, "headers")
	}
	spec := limiter.OneNote()
	asSpecified := true
	if chance(0.5) {
		up.Limits = hide(spec, rng, 0.3, 1)
		asSpecified = false
		notes = append(notes, "hidden "+describeLimits(up.Limits))
	}
	// The run lasts about what the app's hour allows for the work.
	span := time.Duration(float64(w.requests())/800*float64(time.Hour)) + 10*time.Minute
	if chance(0.25) {
		at := time.Duration(rng.Int64N(int64(span))).Truncate(time.Second)
		to := hide(spec, rng, 0.3, 1)
		if chance(0.5) {
			to = raise(up.Limits, spec, rng)
		}
		up.Change = &LimitChange{At: at, Limits: to}
		asSpecified = false
		notes = append(notes, fmt.Sprintf("at %s to %s", at, describeLimits(to)))
	}
	if chance(0.2) {
		for range 1 + rng.IntN(2) {
			from := time.Duration(rng.Int64N(int64(span))).Truncate(time.Second)
			length := 30*time.Second + time.Duration(rng.Int64N(int64(15*time.Minute-30*time.Second))).Truncate(time.Second)
			up.Outages = append(up.Outages, Outage{From: from, To: from + length})
			notes = append(notes, fmt.Sprintf("outage %s+%s", from, length))
		}
	}
	if chance(0.5) {
		w.Scans = scans(rng, w.Users, span)
		notes = append(notes, fmt.Sprintf("%d scanners", len(w.Scans)))
	}
	name := fmt.Sprintf("%s-%d", size.Name, seed)
	cfg := Config{Scenario: name, Workload: w, Upstream: up, Spec: spec, Seed: seed}
	cfg.Horizon = 2*Oracle(cfg) + 6*time.Hour
	for _, o := range up.Outages {
		cfg.Horizon += o.To - o.From
	}
	return Sample{
		Seed: seed, Size: size, AsSpecified: asSpecified,
		Scenario: Scenario{Name: name, Description: strings.Join(notes, "; "), Config: cfg},
	}
}

// requests is the background requests of every user.
func (w Workload) requests() int {
	n := 0
	for _, u := range w.Users {
		n += u.Requests()
	}
	return n
}

// hide returns spec with a random subset of the six limits (at least one)
// each multiplied by a factor in [lo, hi). A product is rounded down but
// never below lo of the published limit: rounding a concurrency of 5 at
// 0.3 down to 1 would hide 20%, outside the space the samples cover.
func hide(spec limiter.Spec, rng *rand.Rand, lo, hi float64) limiter.Spec {
	out := spec.Tighten(1)
	mul := func(n int) int {
		f := lo + rng.Float64()*(hi-lo)
		return max(1, int(math.Ceil(lo*float64(n))), int(float64(n)*f))
	}
	picked := 0
	for picked == 0 {
		for _, sc := range []*limiter.ScopeSpec{&out.User, &out.App} {
			for i := range sc.Windows {
				if rng.IntN(2) == 0 {
					sc.Windows[i].Limit = mul(sc.Windows[i].Limit)
					picked++
				}
			}
			if rng.IntN(2) == 0 {
				sc.Concurrency = mul(sc.Concurrency)
				picked++
			}
		}
	}
	return out
}

// raise returns from with each limit raised to a random point between it
// and spec's.
func raise(from, spec limiter.Spec, rng *rand.Rand) limiter.Spec {
	out := from.Tighten(1)
	up := func(a, b int) int { return a + rng.IntN(b-a+1) }
	for s, sc := range []*limiter.ScopeSpec{&out.User, &out.App} {
		ref := []limiter.ScopeSpec{spec.User, spec.App}[s]
		for i := range sc.Windows {
			sc.Windows[i].Limit = up(sc.Windows[i].Limit, ref.Windows[i].Limit)
		}
		sc.Concurrency = up(sc.Concurrency, ref.Concurrency)
	}
	return out
}

// describeLimits is a one-line summary of a limit table.
func describeLimits(s limiter.Spec) string {
	return fmt.Sprintf("user %d/min %d/h %d at once, app %d/min %d/h %d at once",
		s.User.Windows[0].Limit, s.User.Windows[1].Limit, s.User.Concurrency,
		s.App.Windows[0].Limit, s.App.Windows[1].Limit, s.App.Concurrency)
}

// scans draws 1 to 20 people scanning in one of four timings: all at
// once, in bursts of several, staggered a fixed gap apart, or at random;
// each once or every 5 to 60 minutes until some time in the run; 1 to 5
// requests a scan; a person is a migrating user a third of the time.
func scans(rng *rand.Rand, users []UserWork, span time.Duration) []Scan {
	people := 1 + rng.IntN(20)
	timing := rng.IntN(4)
	every := time.Duration(0)
	if rng.IntN(3) > 0 {
		every = time.Duration(5+rng.IntN(56)) * time.Minute
	}
	first := time.Duration(rng.Int64N(int64(span))).Truncate(time.Second)
	until := first + time.Duration(rng.Int64N(int64(span))).Truncate(time.Second)
	burst := 2 + rng.IntN(6)
	gap := time.Duration(1+rng.IntN(120)) * time.Second
	requests := 1 + rng.IntN(5)
	out := make([]Scan, 0, people)
	for i := range people {
		s := Scan{User: fmt.Sprintf("scan%02d", i), At: first, Every: every, Until: until, Requests: requests}
		if rng.IntN(3) == 0 {
			s.User = users[rng.IntN(len(users))].User
		}
		switch timing {
		case 1: // bursts
			s.At += time.Duration(i/burst) * gap
		case 2: // staggered
			s.At += time.Duration(i) * gap
		case 3: // random
			s.At = time.Duration(rng.Int64N(int64(span))).Truncate(time.Second)
		}
		out = append(out, s)
	}
	return out
}
