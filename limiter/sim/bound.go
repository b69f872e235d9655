package sim

import (
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// GreedyFinish is the earliest time, from empty windows at 0, at which the
// n-th request can leave under windows: every request leaves at the first
// instant all windows have room. It includes the initial burst the empty
// windows allow (e.g. 120 in the first second and 400 in the first three
// minutes of the OneNote user table), so it is below n divided by the
// long-run rate. No schedule that respects the windows finishes sooner.
func GreedyFinish(windows []limiter.Window, n int) time.Duration {
	if n <= 0 {
		return 0
	}
	ws := make([]*window, len(windows))
	for i, w := range windows {
		ws[i] = &window{limit: w.Limit, per: w.Per.D()}
	}
	now := Epoch
	for sent := 0; ; {
		at := now
		for _, w := range ws {
			if t := w.freeAt(now); t.After(at) {
				at = t
			}
		}
		now = at
		for _, w := range ws {
			w.add(now)
		}
		sent++
		if sent == n {
			return now.Sub(Epoch)
		}
	}
}

// LowerBound is the shortest possible completion of the background work
// under the limits: the maximum of each user's greedy finish under the
// user windows and the app's greedy finish for all requests under the app
// windows, plus the minimum latency of the last request.
func LowerBound(limits limiter.Spec, w Workload, minLatency time.Duration) time.Duration {
	var lb time.Duration
	total := 0
	for _, u := range w.Users {
		n := u.Requests()
		total += n
		lb = max(lb, GreedyFinish(limits.User.Windows, n))
	}
	lb = max(lb, GreedyFinish(limits.App.Windows, total))
	return lb + minLatency
}

// BestFeasible is the finish of a schedule that keeps every window of
// up's limits (user and app, changed at up.Change if set) with zero
// latency, plus up's minimum latency for the last request: each request leaves at the earliest instant some started
// user with work left has room in its own windows and the app's, and of
// the users with room at that instant, the one with the most work left
// sends (largest remaining first, the water-filling the limiter does when
// told each user's remaining work). It is a schedule, so no policy can
// claim to beat the optimum by more than the gap between LowerBound, which
// no schedule beats, and this; for one user the two are equal.
func BestFeasible(up UpstreamConfig, w Workload) time.Duration {
	limits := up.Limits
	newWindows := func(spec []limiter.Window) []*window {
		ws := make([]*window, len(spec))
		for i, x := range spec {
			ws[i] = &window{limit: x.Limit, per: x.Per.D()}
		}
		return ws
	}
	freeAt := func(ws []*window, now time.Time) time.Time {
		at := now
		for _, x := range ws {
			if t := x.freeAt(now); t.After(at) {
				at = t
			}
		}
		return at
	}
	app := newWindows(limits.App.Windows)
	users := make([][]*window, len(w.Users))
	left := make([]int, len(w.Users))
	total := 0
	for i, u := range w.Users {
		users[i] = newWindows(limits.User.Windows)
		left[i] = u.Requests()
		total += left[i]
	}
	if total == 0 {
		return 0
	}
	now := Epoch
	change := func(ws []*window, spec []limiter.Window) {
		for i, x := range spec {
			ws[i].limit = x.Limit
		}
	}
	changed := up.Change == nil
	for ; total > 0; total-- {
		if !changed && !now.Before(Epoch.Add(up.Change.At)) {
			changed = true
			change(app, up.Change.Limits.App.Windows)
			for _, u := range users {
				change(u, up.Change.Limits.User.Windows)
			}
		}
		appAt := freeAt(app, now)
		pick, pickAt := -1, time.Time{}
		for i, u := range w.Users {
			if left[i] == 0 {
				continue
			}
			at := freeAt(users[i], now)
			if s := Epoch.Add(u.Start); s.After(at) {
				at = s
			}
			if appAt.After(at) {
				at = appAt
			}
			if pick < 0 || at.Before(pickAt) || (at.Equal(pickAt) && left[i] > left[pick]) {
				pick, pickAt = i, at
			}
		}
		if !changed && !pickAt.Before(Epoch.Add(up.Change.At)) {
			// The limits change before the pick: decide again under them.
			now, total = Epoch.Add(up.Change.At), total+1
			continue
		}
		now = pickAt
		for _, x := range app {
			x.add(now)
		}
		for _, x := range users[pick] {
			x.add(now)
		}
		left[pick]--
	}
	return now.Sub(Epoch) + up.LatencyMin
}
