package limiter

import (
	"slices"
	"sort"
	"time"
)

// Settle moves the rate units of grant g from its grant time to at: the
// time the request was sent upstream, as the requester measured it, or
// when that is unknown the time it is known to have left (its release) or
// can no longer leave (its lease expired). Call it after Release or
// Expire, with the grant as it was. at is taken no earlier than the grant
// and no later than the model's now.
//
// A request reaches upstream some time after its grant: the worker has to
// pick up the task and open the connection. If that delay varies, grants
// spaced a full window apart can arrive closer together and crowd more
// than N into one upstream window. Counting each request from when it was
// sent makes the model's windows hold what upstream's do, to the network
// delay; counting it from its release, which is never before its arrival,
// makes them hold at least that, at the cost of a little budget (the time
// from arrival to release). Settling is a no-op for a grant older than
// every window. SettleSent is Settle with what the requester reported.
func (l *Limiter) Settle(g Grant, at time.Time) { l.settle(g, at, 0) }

// SettleSent settles g by what its requester reported in o: from o.Sent
// when known, else from released (the time of the release), and without
// the o.Unsent units it never sent, which are given back. Call it after
// Release, with the grant as it was.
func (l *Limiter) SettleSent(g Grant, o Outcome, released time.Time) {
	at := released
	if !o.Sent.IsZero() {
		at = o.Sent
	}
	l.settle(g, at, o.Unsent)
}

func (l *Limiter) settle(g Grant, at time.Time, unsent int) {
	n := l.clock(at)
	from := g.stamp()
	to := max(from, min(at.UnixNano(), n))
	cost := max(1, g.Cost)
	unsent = min(max(0, unsent), cost)
	if from > n || (to == from && unsent == 0) {
		return
	}
	if u := l.users[g.User]; u != nil {
		u.Scope.Log.advance(l.userPers, n)
		u.Scope.Log.move(l.userPers, from, cost, to, cost-unsent)
		l.rekey(u, n) // its usage may have fallen (see order)
	}
	l.st.App.Log.move(l.appPers, from, cost, to, cost-unsent)
}

// move re-stamps one entry of cost at time from as left units at time to
// (not before from), if the entry is still inside some window.
func (g *rollingLog) move(pers []int64, from int64, cost int, to int64, left int) {
	inside := len(g.entries)
	for _, s := range g.start {
		inside = min(inside, s)
	}
	if g.take(from, cost, inside) && left > 0 {
		g.insert(pers, to, left)
	}
}

// take removes one entry of cost at time from, at index lo or later,
// from the log's windows, and reports whether there was one.
func (g *rollingLog) take(from int64, cost, lo int) bool {
	i := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].at >= from })
	for i = max(i, lo); i < len(g.entries) && g.entries[i].at == from; i++ {
		if g.entries[i].cost != cost {
			continue
		}
		g.entries[i].cost = 0
		for w := range g.sum {
			if i >= g.start[w] {
				g.sum[w] -= cost
			}
		}
		return true
	}
	return false
}

// stamp is when the limiter's windows count g from.
func (g Grant) stamp() int64 {
	if !g.Stamped.IsZero() {
		return g.Stamped.UnixNano()
	}
	return g.Granted.UnixNano()
}

// keepOpen keeps every grant not yet released inside every window: one
// whose log entry leaves the shortest window at now while its lease is
// open is stamped again at now (Grant.Stamped). A request may reach
// upstream any time before its lease ends: its grant waits at the worker
// as a spare asked ahead, or its activity waits for a worker's slot.
// Counted from its grant, it would leave the model's windows while
// upstream's count it from when it came, and its unit would be granted
// again (an end-to-end CI run under load, where LeaseTTL is 2 minutes and
// the scaled hour 15 s, once put 402 requests in a window of 400; this is
// the one way to that found, not a proven cause). Its release
// settles it from the new stamp, never earlier: a grant held open counts
// up to one shortest window longer than it needs to.
func (l *Limiter) keepOpen(n int64) {
	if len(l.st.Leases) == 0 {
		return
	}
	shortest := int64(never)
	for _, pers := range [][]int64{l.userPers, l.appPers} {
		if len(pers) > 0 {
			shortest = min(shortest, slices.Min(pers))
		}
	}
	for _, ls := range l.st.Leases {
		from := ls.stamp()
		if n-from < shortest {
			continue
		}
		cost := max(1, ls.Cost)
		if u := l.users[ls.User]; u != nil {
			u.Scope.Log.advance(l.userPers, n)
			u.Scope.Log.restamp(l.userPers, from, cost, n)
			l.rekey(u, n)
		}
		l.st.App.Log.restamp(l.appPers, from, cost, n)
		ls.Stamped = time.Unix(0, n).UTC()
	}
}

// restamp moves one entry of cost at time from to time to, wherever it
// is in the log (a window it left counts it again); one no longer logged
// is logged at to.
func (g *rollingLog) restamp(pers []int64, from int64, cost int, to int64) {
	g.take(from, cost, 0)
	g.insert(pers, to, cost)
}
