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
