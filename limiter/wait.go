package limiter

import (
	"time"
)

// never marks a wait that ends only on an event (a release), not at a time.
const never = int64(1<<63 - 1)

// freeAt is the earliest time at which a request of this shape could be
// admitted if it stood at the head of the queue: the MAXIMUM over every
// window and concurrency cap of the user and the app, both breakers and
// the retry budget. Only when every layer has room is the request safe; a
// minimum would send it into the layer that is still full.
//
// A full concurrency cap frees on a release, which no clock predicts; it
// is bounded by the earliest lease expiry of that scope.
func (l *Limiter) freeAt(u *userState, lane Lane, cost, slots, attempt int, now int64) int64 {
	at := now
	app := l.appViewFor(u, lane, now)
	at = max(at, app.rateFreeAt(lane, cost, now))
	if app.concFull(lane, slots, now) {
		at = max(at, l.leaseExpiry("", now))
	}
	at = max(at, breakerFreeAt(&l.st.App.Breaker, l, now))
	if u != nil {
		u.Scope.Log.advance(l.userPers, now)
		usr := l.userView(u)
		at = max(at, usr.rateFreeAt(lane, cost, now))
		if usr.concFull(lane, slots, now) {
			at = max(at, l.leaseExpiry(u.ID, now))
		}
		at = max(at, breakerFreeAt(&u.Scope.Breaker, l, now))
	}
	if attempt > 0 && l.st.RetryTokens < 1 {
		at = max(at, l.st.RetryProbe+int64(l.st.Spec.Tuning.RetryProbeEvery))
	}
	return at
}

func breakerFreeAt(b *breaker, l *Limiter, now int64) int64 {
	ok, _, until := b.admit(now)
	switch {
	case ok:
		return now
	case until != 0:
		return until
	}
	if ls := l.leases[b.Probe]; ls != nil {
		return ls.Expires.UnixNano()
	}
	return now
}

// leaseExpiry is the earliest expiry among the leases of user ("" for all).
func (l *Limiter) leaseExpiry(user string, now int64) int64 {
	at := never
	for _, ls := range l.st.Leases {
		if user == "" || ls.User == user {
			at = min(at, ls.Expires.UnixNano())
		}
	}
	if at == never {
		return now
	}
	return at
}

// RetryAfter is how long a request of cost units from user in lane would
// wait, if it stood alone at the head of the queue, before every limit,
// breaker and budget has room for it: the maximum over all of them.
// Requests already queued ahead of it are not counted.
func (l *Limiter) RetryAfter(user string, lane Lane, cost int, now time.Time) time.Duration {
	n := l.clock(now)
	at := l.freeAt(l.users[user], l.lane(lane), max(1, cost), 1, 0, n)
	return time.Duration(at - n)
}

// NextWakeup is when Grant could next grant something: now if something
// may leave already; otherwise the earliest later time at which a queued
// head becomes admissible or a lease expires; the zero Time if nothing is
// queued or only a release can make room. A release may make room sooner;
// the caller calls Grant after each.
func (l *Limiter) NextWakeup(now time.Time) time.Time {
	n := l.clock(now)
	if l.nAct[Foreground]+l.nAct[Background] == 0 {
		return time.Time{}
	}
	if _, ok := l.decide(n, false); ok {
		return time.Unix(0, n).UTC()
	}
	at := never
	for lane := range numLanes {
		for _, u := range l.active[lane] {
			if u == nil {
				continue
			}
			q := &u.Queue[lane][0]
			if f := l.freeAt(u, lane, q.least(), q.Slots, q.Attempt, n); f > n {
				at = min(at, f)
			}
		}
	}
	for _, ls := range l.st.Leases {
		if e := ls.Expires.UnixNano(); e > n {
			at = min(at, e)
		}
	}
	if l.nAct[Background] > 0 {
		// A lapsing window reserve, or foreground demand leaving a
		// window, makes room for background.
		if app := l.appView(); app.reserving(n) {
			at = min(at, app.reserveEnds())
		}
		if app := l.appView(); app.st.LastFG != 0 {
			at = min(at, app.demandEnds(n))
		}
		for _, u := range l.active[Background] {
			if u == nil {
				continue
			}
			usr := l.userView(u)
			if usr.reserving(n) {
				at = min(at, usr.reserveEnds())
			}
			if u.Scope.LastFG != 0 {
				at = min(at, usr.demandEnds(n))
			}
		}
	}
	if at == never {
		return time.Time{}
	}
	return time.Unix(0, at).UTC()
}
