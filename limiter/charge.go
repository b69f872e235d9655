package limiter

import "time"

// Charge counts a request upstream received under lease leaseID, which
// this limiter does not hold for it, and returns the lease it counted it
// under (already released) and whether it counted anything: nothing when
// o says none of its units was sent, or when the request finished here
// under that very lease (a late release of an expired lease, or a
// release repeated).
//
// A limiter that runs as a workflow can lose a decision after its grants
// went out: a pass delivers its grants and its task then fails or times
// out, so the pass runs again without them, and their lease IDs (a
// sequence) go to other grants. The requester sends under the lost grant
// and releases a lease the model never made, or made for another
// request. Such a request is counted when its release comes, the
// earliest the model can know of it: from then, in every window and
// concurrency count as a request released with o, taught by o as a
// release is, and never before that moment (Settle never dates a unit
// before its grant), which keeps the windows on the safe side. A queued
// request of the same ID is taken off the queue (it was served), and the
// request is remembered as finished under leaseID, so a resent ask is
// not granted again and a repeated release is not counted twice. A live
// lease of the same request (the pass that ran again granted it anew) is
// left to its own release: its requester gives it back unsent.
//
// req names the request's user and the cost of the grant its requester
// held (a divisible request may have been granted less than it asked);
// the lane, slots and attempt, and the user and cost when req leaves
// them out, are taken from the request queued or leased here. A request
// whose fate is unknown counts as sent.
func (l *Limiter) Charge(req Request, leaseID string, o Outcome, now time.Time) (Grant, bool) {
	n := l.clock(now)
	if lease, done := l.seen[req.ID]; done && lease == leaseID {
		return Grant{}, false
	}
	q := queued{ID: req.ID, Cost: max(1, req.Cost), Slots: max(1, req.Slots), Attempt: req.Attempt}
	lane := Background // a request this history never saw: most are page work
	qu, ql, qi := l.queuedAt(req.ID)
	if qu != nil {
		if qi >= 0 {
			q, lane = qu.Queue[ql][qi], ql
		}
		req.User = qu.ID
	} else if ls := l.byReq[req.ID]; ls != nil {
		q.Cost, q.Slots, q.Attempt, lane, req.User = ls.Cost, ls.Slots, ls.Attempt, ls.Lane, ls.User
	}
	if req.Cost > 0 {
		q.Cost = req.Cost
	}
	if req.User == "" || o.Unsent >= q.Cost {
		return Grant{}, false
	}
	if qu != nil {
		l.unqueue(qu, ql, qi, req.ID) // it was served
	}
	u := l.user(req.User)
	g := l.lend(u, q, lane, q.Cost, n).Grant
	l.Release(g.LeaseID, o, now)
	l.SettleSent(g, o, now)
	l.remember(req.ID, leaseID, n)
	return g, true
}
