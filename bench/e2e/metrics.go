package e2e

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/sim"
)

// The figures the scenarios report, as pure functions of what was
// recorded: request arrival times at the Graph emulator and the times
// pages were marked done in Notion, all as offsets from a run's start.

// LowerBound is the earliest the n-th request could leave under windows,
// starting from empty windows (sim.GreedyFinish): the initial burst the
// windows allow included, so it is below n divided by the long-run rate.
func LowerBound(windows []limiter.Window, n int) time.Duration {
	return sim.GreedyFinish(windows, n)
}

// RateBound is the simpler bound n requests divided by the binding
// long-run budget (the window with the lowest rate).
func RateBound(windows []limiter.Window, n int) time.Duration {
	var worst time.Duration
	for _, w := range windows {
		if w.Limit <= 0 {
			continue
		}
		worst = max(worst, time.Duration(float64(n)/float64(w.Limit)*float64(w.Per.D())))
	}
	return worst
}

// LongestGap is the longest stretch of [from, to] without an event:
// between from and the first event, between consecutive events, and
// between the last event and to. Events outside [from, to] are ignored.
func LongestGap(events []time.Duration, from, to time.Duration) time.Duration {
	evs := slices.Clone(events)
	slices.Sort(evs)
	prev, longest := from, time.Duration(0)
	for _, e := range evs {
		if e < from || e > to {
			continue
		}
		longest = max(longest, e-prev)
		prev = e
	}
	return max(longest, to-prev)
}

// Jain is Jain's fairness index of xs: (Σx)² / (n·Σx²), 1 when every x is
// equal, 1/n when one takes everything. It is 1 for no data or all zeros.
func Jain(xs []float64) float64 {
	var sum, sq float64
	for _, x := range xs {
		sum += x
		sq += x * x
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(xs)) * sq)
}

// Percentile is the p-quantile (0 <= p <= 1) of ds by the nearest-rank
// method: the smallest value with at least p of the values at or below
// it. It is 0 for no data.
func Percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p * float64(len(s))))
	return s[min(max(rank, 1), len(s))-1]
}

// CountIn counts the times in [from, to).
func CountIn(times []time.Duration, from, to time.Duration) int {
	n := 0
	for _, t := range times {
		if t >= from && t < to {
			n++
		}
	}
	return n
}

// BudgetUse is the share of the budget a set of accepted requests used in
// [from, to): their count divided by the most the binding window allows
// in that span (Limit per Per, pro rata).
func BudgetUse(accepted []time.Duration, from, to time.Duration, binding limiter.Window) float64 {
	if to <= from || binding.Per <= 0 {
		return 0
	}
	allowed := float64(binding.Limit) * float64(to-from) / float64(binding.Per.D())
	return float64(CountIn(accepted, from, to)) / allowed
}

// Binding returns the window of ws with the lowest long-run rate.
func Binding(ws []limiter.Window) limiter.Window {
	var best limiter.Window
	for _, w := range ws {
		if best.Per == 0 || float64(w.Limit)/float64(w.Per) < float64(best.Limit)/float64(best.Per) {
			best = w
		}
	}
	return best
}

// Span is one request as the Graph emulator served it: from the moment
// its handler began to the moment it returned.
type Span struct {
	Start, End time.Duration
}

// Stalls measures the longest time in which upstream's true windows had
// room, no request was in flight and none arrived: after the last request
// in flight ends, the time until the next one starts, minus the time the
// windows (counting every arrival, throttled ones too, as upstream does)
// were still full. Only gaps that begin at or after from count (before,
// the run was starting); requests starting after until are ignored (its
// Graph work was over). It returns the longest stall and when it began.
func Stalls(spans []Span, windows []limiter.Window, from, until time.Duration) (longest, at time.Duration) {
	ss := slices.Clone(spans)
	slices.SortFunc(ss, func(a, b Span) int { return cmp.Compare(a.Start, b.Start) })
	arrivals := make([]time.Duration, len(ss))
	for i, sp := range ss {
		arrivals[i] = sp.Start
	}
	busyUntil := time.Duration(-1 << 62)
	for i := 0; i+1 < len(ss) && ss[i+1].Start <= until; i++ {
		busyUntil = max(busyUntil, ss[i].End)
		idle := busyUntil // nothing in flight from here until the next start
		if idle < from || idle >= ss[i+1].Start {
			continue
		}
		room := idle
		for _, w := range windows {
			// Arrivals up to the idle moment; the limit-th most recent one
			// must leave the window before another fits.
			k, _ := slices.BinarySearch(arrivals, idle+1)
			if k >= w.Limit {
				room = max(room, arrivals[k-w.Limit]+w.Per.D())
			}
		}
		if s := ss[i+1].Start - room; s > longest {
			longest, at = s, room
		}
	}
	return longest, at
}

// PerBucket counts events in consecutive buckets of width from 0: bucket
// k holds [k·width, (k+1)·width). It has n buckets; later events are
// dropped.
func PerBucket(events []time.Duration, width time.Duration, n int) []int {
	out := make([]int, n)
	for _, e := range events {
		if e < 0 {
			continue
		}
		if k := int(e / width); k < n {
			out[k]++
		}
	}
	return out
}
