package sim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Targets are the properties every sample must hold (issue 32).
const (
	// TargetRatio bounds completion over the oracle's best feasible finish.
	TargetRatio = 1.03
	// TargetThrottled bounds the share of requests throttled after the
	// first throttle when the limits are not as specified.
	TargetThrottled = 0.01
	// TargetForeground bounds the foreground p99 wait when the foreground
	// demand fits the reserve (FitsReserve).
	TargetForeground = time.Second
	// LatencyAllowance is how far past the oracle a run may finish
	// whatever the ratio: the oracle gives every request the minimum
	// latency, and latency, drawn up to four times that, not the
	// limits, decides runs of a few minutes (a page's requests go one
	// after another; a user with one worker sends one at a time). It
	// only decides for runs under 33 minutes, where 1.03x is less.
	LatencyAllowance = time.Minute
)

// Verdict is what Check found in one run of a sample.
type Verdict struct {
	// Ratio is completion over the oracle's finish.
	Ratio float64
	// Oracle is the best feasible finish; Allowance is the latency the
	// oracle cannot place (see Check).
	Oracle, Allowance time.Duration
	Stall             time.Duration
	ForegroundP99     time.Duration
	// FitsReserve reports whether the foreground target applied.
	FitsReserve bool
	Violations  []Violation
}

// Violation is one target a run missed.
type Violation struct {
	Target Target
	Msg    string // what the run did, with its figures
}

func (v Violation) String() string { return v.Msg }

// Target is a target of Check, the kind of a Violation.
type Target int

// The targets, in Check's order.
const (
	Unfinished Target = iota
	SlowFinish
	ThrottledAsSpecified
	ThrottledAfterFirst
	Stalled
	SlowForeground
)

// String is the target's short name, as diagnostics list it.
func (t Target) String() string {
	return [...]string{"unfinished", "ratio", "429s", "throttled", "stall", "fg"}[t]
}

// Describe is the target, as the properties report counts it.
func (t Target) Describe() string {
	return [...]string{
		"unfinished",
		"over 1.03x the best feasible finish",
		"429s under the limits as specified",
		"over 1% throttled after the first throttle",
		"stall over two cooldowns",
		"foreground p99 over 1 s (demand within the reserve rule)",
	}[t]
}

// Missed reports whether v has a violation of t.
func (v Verdict) Missed(t Target) bool {
	return slices.ContainsFunc(v.Violations, func(x Violation) bool { return x.Target == t })
}

// Summary is v's violations, joined with "; ".
func (v Verdict) Summary() string {
	msgs := make([]string, len(v.Violations))
	for i, x := range v.Violations {
		msgs[i] = x.Msg
	}
	return strings.Join(msgs, "; ")
}

// Check holds the run res of sample s to the targets:
//   - every page done, by 1.03x the oracle's best feasible finish, or
//     by a minute after it (LatencyAllowance);
//   - no 429 at all when the limits are as specified;
//   - otherwise at most 1% of the requests sent after the first throttle
//     throttled, and no stall longer than two cooldowns (Result.MaxStall:
//     outside outages and the breaker's recovery after them);
//   - a foreground p99 wait of 1 s or less when the foreground demand
//     fits the reserve (FitsReserve).
//
// Background use of the budget when nobody scans is the first target
// seen from the other side: finishing within 1.03x of the best feasible
// finish is using at least 97.1% of what the binding windows allow over
// the run.
func Check(s Sample, res *Result) Verdict {
	cfg := s.Scenario.Config
	v := Verdict{Oracle: Oracle(cfg), Stall: res.MaxStall, ForegroundP99: Percentile(res.FGWaits, 0.99)}
	v.Allowance = LatencyAllowance
	v.Ratio = float64(res.Completion) / float64(v.Oracle)
	bad := func(t Target, f string, a ...any) {
		v.Violations = append(v.Violations, Violation{t, fmt.Sprintf(f, a...)})
	}
	switch {
	case !res.Finished:
		bad(Unfinished, "unfinished: %d of %d pages by %s", res.PagesDone, res.Pages, cfg.Horizon)
	case v.Ratio > TargetRatio && res.Completion > v.Oracle+v.Allowance:
		bad(SlowFinish, "finished at %s, %.4fx the best feasible %s (allowance %s)", res.Completion, v.Ratio, v.Oracle, v.Allowance)
	}
	if s.AsSpecified && res.Throttled+res.Concurrency > 0 {
		bad(ThrottledAsSpecified, "%d throttles (429) under the limits as specified", res.Throttled+res.Concurrency)
	}
	if !s.AsSpecified && res.ThrottledAfterAdapt > TargetThrottled {
		bad(ThrottledAfterFirst, "%.2f%% throttled after the first throttle", 100*res.ThrottledAfterAdapt)
	}
	if cool := cfg.Spec.Tuning.Cooldown.D(); !s.AsSpecified && res.MaxStall > 2*cool {
		bad(Stalled, "stalled %s, more than two cooldowns", res.MaxStall)
	}
	v.FitsReserve = FitsReserve(cfg)
	if v.FitsReserve && v.ForegroundP99 > TargetForeground {
		bad(SlowForeground, "foreground p99 %s", v.ForegroundP99)
	}
	return v
}

// FitsReserve reports whether cfg's foreground demand fits the reserve
// rule, under which a scan must be answered at once:
//   - no outage (a scan during one waits for it) and the limits as
//     specified (the reserve is a share of the limits the limiter
//     believes; background may fill a hidden lower one before a throttle
//     shows it);
//   - in every scope (the app, and each person scanning), the foreground
//     requests asked for within any rolling window of each of the scope's
//     windows, up to the best feasible finish (after it no background
//     competes), are at most that window's base reserve: Tuning.Reserve
//     of its limit, rounded up (app 6 a minute and 20 an hour, user 3 and
//     10 in the OneNote table).
//
// It is a sufficient rule, not the limiter's whole reach: the reserve
// also follows the demand it has seen (twenty people scanning every 20
// minutes, 180 requests an hour, are answered at once in the scanners
// scenario).
func FitsReserve(cfg Config) bool {
	if len(cfg.Upstream.Outages) > 0 || cfg.Upstream.Change != nil ||
		(cfg.Upstream.Limits.User.Windows != nil && !sameLimits(cfg.Upstream.Limits, cfg.Spec)) {
		return false
	}
	end := Epoch.Add(Oracle(cfg))
	byUser := map[string][]time.Time{}
	var all []time.Time
	for _, s := range cfg.Workload.Scans {
		one := Config{Workload: Workload{Scans: []Scan{s}}, Horizon: cfg.Horizon}
		ts := scanReleases(one, end, cfg.Upstream.LatencyMin)
		byUser[s.User] = append(byUser[s.User], ts...)
		all = append(all, ts...)
	}
	fits := func(ts []time.Time, windows []limiter.Window) bool {
		slices.SortFunc(ts, func(a, b time.Time) int { return a.Compare(b) })
		for _, w := range windows {
			limit := int(cfg.Spec.Tuning.Reserve*float64(w.Limit) + 0.999999)
			for i, j := 0, 0; j < len(ts); j++ {
				for !ts[i].After(ts[j].Add(-w.Per.D())) {
					i++
				}
				if j-i+1 > limit {
					return false
				}
			}
		}
		return true
	}
	if !fits(all, cfg.Spec.App.Windows) {
		return false
	}
	for _, ts := range byUser {
		if !fits(ts, cfg.Spec.User.Windows) {
			return false
		}
	}
	return true
}

// sameLimits reports whether a and b have the same windows and caps.
func sameLimits(a, b limiter.Spec) bool {
	same := func(x, y limiter.ScopeSpec) bool {
		return x.Concurrency == y.Concurrency && slices.Equal(x.Windows, y.Windows)
	}
	return same(a.User, b.User) && same(a.App, b.App)
}
