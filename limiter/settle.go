package limiter

import (
	"sort"
	"time"
)

// Settle moves the rate units of grant g from its grant time to at: the
// time the request is known to have left (its release) or can no longer
// leave (its lease expired). Call it after Release or Expire, with the
// grant as it was.
//
// A request reaches upstream some time after its grant: the worker has to
// pick up the task and open the connection. If that delay varies, grants
// spaced a full window apart can arrive closer together and crowd more
// than N into one upstream window. Counting each request at its settle
// time, which is never before its arrival, makes the model's windows hold
// at least everything upstream's do. Settling costs a little budget (the
// delay between arrival and release) and is a no-op for a grant older than
// every window.
func (l *Limiter) Settle(g Grant, at time.Time) {
	n := l.clock(at)
	from := g.Granted.UnixNano()
	cost := max(1, g.Cost)
	if from >= n {
		return
	}
	if u := l.users[g.User]; u != nil {
		u.Scope.Log.advance(l.userPers, n)
		u.Scope.Log.move(from, cost, n)
	}
	l.st.App.Log.move(from, cost, n)
}

// move re-stamps one entry of cost at time from to time to (>= every
// entry), if the entry is still inside some window.
func (g *rollingLog) move(from int64, cost int, to int64) {
	inside := len(g.entries)
	for _, s := range g.start {
		inside = min(inside, s)
	}
	i := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].at >= from })
	for i = max(i, inside); i < len(g.entries) && g.entries[i].at == from; i++ {
		if g.entries[i].cost != cost {
			continue
		}
		g.entries[i].cost = 0
		for w := range g.sum {
			if i >= g.start[w] {
				g.sum[w] -= cost
			}
		}
		g.add(to, cost)
		return
	}
}
