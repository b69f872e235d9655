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
	at := l.appFreeAt(l.appViewFor(u, lane, now), lane, cost, slots, attempt, now)
	if u != nil {
		u.Scope.Log.advance(l.userPers, now)
		usr := l.userView(u)
		at = max(at, usr.rateFreeAt(lane, cost, now))
		if usr.concFull(lane, slots, now) {
			at = max(at, l.leaseExpiry(u.ID, now))
		}
		at = max(at, breakerFreeAt(&u.Scope.Breaker, l, now))
	}
	return at
}

// appFreeAt is the part of freeAt that every user whose app scope looks
// like app shares: the app's windows, cap and breaker, and the retry
// budget. It is no later for one unit, one slot and no retry than for
// any other request.
func (l *Limiter) appFreeAt(app scopeView, lane Lane, cost, slots, attempt int, now int64) int64 {
	at := max(now, app.rateFreeAt(lane, cost, now))
	if app.concFull(lane, slots, now) {
		at = max(at, l.leaseExpiry("", now))
	}
	at = max(at, breakerFreeAt(&l.st.App.Breaker, l, now))
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
		at = min(at, l.headsFreeAt(lane, n))
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
		for _, u := range l.fgBack {
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

// witnesses bounds the users headsFreeAt tries before it weighs them all.
const witnesses = 4

// headsFreeAt is the earliest freeAt after now of the heads queued in
// lane, or never.
//
// A head's freeAt is no earlier than its app part (appFreeAt), and that
// is no earlier than least, the app part of one unit, one slot and no
// retry, for every user not held for (computeHolds): they all see the
// same app. So when least is after now and some head is free at least (a
// witness), least is the answer for all of them, and only the held users
// (at most maxHeld) are weighed besides. The witness is sought among the
// first users of the lane's order, those with the least usage, the
// likeliest to have room of their own. Without one, every head is
// weighed.
func (l *Limiter) headsFreeAt(lane Lane, n int64) int64 {
	head := func(u *userState) int64 {
		q := &u.Queue[lane][0]
		return l.freeAt(u, lane, q.least(), q.Slots, q.Attempt, n)
	}
	at := never
	top := l.order.lane(lane).users
	if len(top) > 0 {
		app := l.appView()
		if lane == Background && len(l.holds.users) > 0 {
			app.hold = l.heldRoom(n)
		}
		least := l.appFreeAt(app, lane, 1, 1, 0, n)
		for _, u := range top[:min(len(top), witnesses)] {
			if least <= n || head(u) != least {
				continue
			}
			at = least
			if lane == Background {
				for _, x := range l.holds.users {
					if x.inAct[Background] {
						if f := head(x); f > n {
							at = min(at, f)
						}
					}
				}
			}
			return at
		}
	}
	for _, u := range l.active[lane] {
		if u == nil {
			continue
		}
		if f := head(u); f > n {
			at = min(at, f)
		}
	}
	return at
}

// fgBackSync lists u in fgBack while it has background queued and has
// ever enqueued foreground: the users whose reserve and demand
// NextWakeup weighs.
func (l *Limiter) fgBackSync(u *userState) {
	in := u.inAct[Background] && u.Scope.LastFG != 0
	switch {
	case in && u.fbPos == 0:
		l.fgBack = append(l.fgBack, u)
		u.fbPos = len(l.fgBack)
	case !in && u.fbPos != 0:
		last := l.fgBack[len(l.fgBack)-1]
		l.fgBack[u.fbPos-1], last.fbPos = last, u.fbPos
		l.fgBack[len(l.fgBack)-1] = nil
		l.fgBack = l.fgBack[:len(l.fgBack)-1]
		u.fbPos = 0
	}
}
