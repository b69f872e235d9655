package graph

import (
	"slices"
	"time"
)

// CheckViolations returns, for each scope (every user, and the app named
// appID) and each rate window in limits, the spans in which the log holds
// more than N requests within less than the window's Duration. This uses
// the same convention as the emulator's limiter: requests exactly one
// window apart do not share a window. Overlapping over-limit spans are
// merged into one Violation. The log need not be sorted.
func CheckViolations(log []LogEntry, appID string, limits Limits) []Violation {
	byUser := make(map[string][]time.Time)
	var all []time.Time
	for _, e := range log {
		byUser[e.User] = append(byUser[e.User], e.Time)
		all = append(all, e.Time)
	}
	users := make([]string, 0, len(byUser))
	for u := range byUser {
		users = append(users, u)
	}
	slices.Sort(users)

	var out []Violation
	for _, u := range users {
		out = append(out, checkTimes("user", u, byUser[u], limits.User.Windows)...)
	}
	out = append(out, checkTimes("app", appID, all, limits.App.Windows)...)
	return out
}

func checkTimes(scope, key string, times []time.Time, windows []Window) []Violation {
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	var out []Violation
	for _, w := range windows {
		if w.N <= 0 {
			continue
		}
		var cur *Violation
		// j is one past the last request in [times[i], times[i]+Duration).
		j := 0
		for i := range times {
			j = max(j, i)
			for j < len(times) && times[j].Sub(times[i]) < w.Duration {
				j++
			}
			count := j - i
			if count <= w.N {
				continue
			}
			end := times[j-1]
			if cur != nil && !times[i].After(cur.End) {
				cur.End = end
				cur.Count = max(cur.Count, count)
				continue
			}
			if cur != nil {
				out = append(out, *cur)
			}
			cur = &Violation{Scope: scope, Key: key, Window: w.Duration, Limit: w.N, Count: count, Start: times[i], End: end}
		}
		if cur != nil {
			out = append(out, *cur)
		}
	}
	return out
}
