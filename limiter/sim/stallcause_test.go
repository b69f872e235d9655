package sim

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// stallKey names one stall: a user idle from a time.
type stallKey struct {
	user string
	from time.Time
}

// stallCauses is what held a stalled user, second by second.
type stallCauses struct {
	last   time.Time
	causes map[string]int
	fg0    int // foreground requests served before the stall
	fg     int // foreground requests served during it
}

// causeOf says what holds user's background at now while upstream would
// take its next request: an open breaker; a window at its background
// limit whose count is under its effective limit less the base reserve
// (room held for foreground demand: "reserve"); a window at its limit
// whose learned limit is under upstream's true one ("learned"); a
// concurrency cap; app room held for another user's background
// (Limiter.computeHolds: "held", the window's count within the held room
// of its background limit); or none of these ("other": the order of
// users).
func causeOf(r *run, lim *limiter.Limiter, user string) string {
	if _, _, ok := lim.Holding(user, r.now); ok {
		return "breaker"
	}
	st := lim.State(r.now)
	var us *limiter.ScopeUsage
	for i := range st.Users {
		if st.Users[i].User == user {
			us = &st.Users[i].ScopeUsage
		}
	}
	res := r.cfg.Spec.Tuning.Reserve
	check := func(s *limiter.ScopeUsage, truth *scopeLimits) string {
		if s == nil {
			return ""
		}
		for w, win := range s.Windows {
			bg := win.Effective - win.Reserve
			if win.Used < bg {
				continue
			}
			base := min(int(res*float64(win.Effective)+0.999999), win.Effective/2)
			if win.Used < win.Effective-base {
				return fmt.Sprintf("reserve(%s w%d)", scopeName(s == &st.App), w)
			}
			if win.Effective < truth.windows[w].limit {
				return fmt.Sprintf("learned(%s w%d)", scopeName(s == &st.App), w)
			}
			return fmt.Sprintf("full(%s w%d)", scopeName(s == &st.App), w)
		}
		return ""
	}
	if c := check(&st.App, r.up.app); c != "" {
		return c
	}
	if c := check(us, r.up.user(user)); c != "" {
		return c
	}
	if st.App.InFlight >= laneCap(st.App.EffectiveConcurrency, res) {
		return "concurrency(app)"
	}
	if us != nil && us.InFlight >= laneCap(us.EffectiveConcurrency, res) {
		return "concurrency(user)"
	}
	if !slices.Contains(st.HeldFor, user) {
		for w, win := range st.App.Windows {
			if win.Held > 0 && win.Used >= win.Effective-win.Reserve-win.Held {
				return fmt.Sprintf("held(app w%d)", w)
			}
		}
	}
	return "other"
}

func laneCap(n int, reserve float64) int { return max(1, n-int(reserve*float64(n)+0.999999)) }

func scopeName(app bool) string {
	if app {
		return "app"
	}
	return "user"
}

// runSampled is Run("ours") with fn called every second.
func runSampled(cfg Config, fn func(r *run, lim *limiter.Limiter)) *Result {
	r, err := newRun(cfg, "ours")
	if err != nil {
		panic(err)
	}
	lim := r.pol.(*ours).lim
	var tick func()
	tick = func() {
		fn(r, lim)
		if r.left > 0 {
			r.after(time.Second, tick)
		}
	}
	r.after(time.Second, tick)
	return r.simulate()
}

// TestStallCauses classifies the stalls over two cooldowns of the samples
// NOTEBRIDGE_STALLCAUSE=small|full:N names (seeds 1 to N, or A-B), each by what
// held the user most of its longest stall, sampled every second
// (causeOf), with the foreground served meanwhile. A diagnostic: it
// asserts nothing.
func TestStallCauses(t *testing.T) {
	spec := os.Getenv("NOTEBRIDGE_STALLCAUSE")
	if spec == "" {
		t.Skip("NOTEBRIDGE_STALLCAUSE=small:300 or full:300 runs it")
	}
	size, from, to := diagnosticSamples(t, spec)
	tally := map[string][]uint64{}
	shapes := map[string][]uint64{}
	for seed := from; seed <= to; seed++ {
		s := Generate(seed, size)
		cfg := s.Scenario.Config
		// A plain run first: sampling every second costs several times
		// more, so only the samples that stall are sampled.
		plain, err := Run(cfg, "ours")
		if err != nil {
			t.Fatal(err)
		}
		if !Check(s, plain).Missed(Stalled) {
			continue
		}
		stalls := map[stallKey]*stallCauses{}
		recovery := cfg.Spec.Tuning.MaxCooldown.D()
		res := runSampled(cfg, func(r *run, lim *limiter.Limiter) {
			for _, o := range cfg.Upstream.Outages {
				if !r.now.Before(Epoch.Add(o.From)) && r.now.Before(Epoch.Add(o.To+recovery)) {
					return
				}
			}
			for _, id := range r.order {
				q := r.users[id]
				if !q.watching || q.idleFrom.IsZero() || !q.idleFrom.Before(r.now) || r.left == 0 {
					continue
				}
				k := stallKey{id, q.idleFrom}
				sc := stalls[k]
				if sc == nil {
					sc = &stallCauses{causes: map[string]int{}, fg0: len(r.res.FGWaits)}
					stalls[k] = sc
				}
				sc.fg = len(r.res.FGWaits) - sc.fg0
				sc.last = r.now
				sc.causes[causeOf(r, lim, id)]++
			}
		})
		v := Check(s, res)
		if !v.Missed(Stalled) {
			continue
		}
		// The longest sampled stall and its main cause.
		var best stallKey
		var bestN int
		for k, sc := range stalls {
			tot := 0
			for _, c := range sc.causes {
				tot += c
			}
			if tot > bestN || tot == bestN && (k.from.Before(best.from) || k.from.Equal(best.from) && k.user < best.user) {
				best, bestN = k, tot
			}
		}
		sc := stalls[best]
		var parts []string
		top, topN := "none", 0
		for _, c := range slices.Sorted(maps.Keys(sc.causes)) {
			parts = append(parts, fmt.Sprintf("%s %ds", c, sc.causes[c]))
			if sc.causes[c] > topN {
				top, topN = c, sc.causes[c]
			}
		}
		class, _, _ := strings.Cut(top, "(")
		tally[class] = append(tally[class], seed)
		sh := sampleShape(s)
		shapes[class+" "+sh] = append(shapes[class+" "+sh], seed)
		t.Logf("%s-%d: stall %s (%s from %s): %s [%s], foreground served meanwhile %d; shape %s; %s", size.Name, seed, v.Stall.Round(time.Millisecond), best.user,
			best.from.Sub(Epoch).Round(time.Second), class, strings.Join(parts, ", "), sc.fg, sh, s.Scenario.Description)
	}
	for _, c := range slices.Sorted(maps.Keys(tally)) {
		t.Logf("%s: %d: %v", c, len(tally[c]), tally[c])
	}
	for _, c := range slices.Sorted(maps.Keys(shapes)) {
		t.Logf("by shape: %s: %d: %v", c, len(shapes[c]), shapes[c])
	}
}

// sampleShape names a sample's shape: a limit change in which some rate
// window drops ("drop") or rises ("rise"; both can), or only concurrency
// changes ("conc"); outages,
// hidden limits, headers absent ("noheaders") and scans, joined by "+".
func sampleShape(s Sample) string {
	up := s.Scenario.Config.Upstream
	var out []string
	if c := up.Change; c != nil {
		lower, higher := false, false
		for i, to := range []limiter.ScopeSpec{c.Limits.User, c.Limits.App} {
			from := []limiter.ScopeSpec{up.Limits.User, up.Limits.App}[i]
			for w := range to.Windows {
				lower = lower || to.Windows[w].Limit < from.Windows[w].Limit
				higher = higher || to.Windows[w].Limit > from.Windows[w].Limit
			}
		}
		if lower {
			out = append(out, "drop")
		}
		if higher {
			out = append(out, "rise")
		}
		if !lower && !higher {
			out = append(out, "conc")
		}
	}
	if len(up.Outages) > 0 {
		out = append(out, "outage")
	}
	if strings.Contains(s.Scenario.Description, "hidden") {
		out = append(out, "hidden")
	}
	if !up.Headers {
		out = append(out, "noheaders")
	}
	if len(s.Scenario.Config.Workload.Scans) > 0 {
		out = append(out, "scans")
	}
	if len(out) == 0 {
		return "plain"
	}
	return strings.Join(out, "+")
}

// diagnosticSamples reads a diagnostic's "small:N" or "full:N" (seeds 1
// to N), or "small:A-B" or "full:A-B" (seeds A to B).
func diagnosticSamples(t *testing.T, spec string) (size Size, from, to uint64) {
	t.Helper()
	name, seeds, _ := strings.Cut(spec, ":")
	a, b, isRange := strings.Cut(seeds, "-")
	if !isRange {
		a, b = "1", seeds
	}
	from, errA := strconv.ParseUint(a, 10, 64)
	to, errB := strconv.ParseUint(b, 10, 64)
	if errA != nil || errB != nil || from < 1 || to < from || name != Small.Name && name != Full.Name {
		t.Fatalf("%q: want small:N or full:N (seeds 1 to N), or small:A-B or full:A-B (seeds A to B)", spec)
	}
	if name == Full.Name {
		return Full, from, to
	}
	return Small, from, to
}
