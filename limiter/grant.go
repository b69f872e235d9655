package limiter

import (
	"time"
)

// Grant expires stale leases and then grants every queued request that may
// leave at now: foreground before background; within the background lane,
// a user whose own windows would finish its remaining work no sooner than
// the app could finish everyone's first, with app room held for it from
// the others (computeHolds), then the user with the most work left
// (Request.Remaining); otherwise,
// and in the foreground lane, the user with the least recent usage first
// (max-min fairness), ties to the request queued earliest; within a user, in queue order. A request is
// granted only if every window and concurrency cap of its user and of the
// app has room for it, no breaker holds it and, for a retry, the retry
// budget allows it.
func (l *Limiter) Grant(now time.Time) []Grant {
	l.Expire(now)
	out, _ := l.decide(l.st.Now, true)
	return out
}

// decide runs one granting pass at now. With commit false it grants
// nothing and only reports whether the pass would grant something.
func (l *Limiter) decide(now int64, commit bool) ([]Grant, bool) {
	defer l.orderUnpark()
	var out []Grant
	appBlocked := false
	for lane := range numLanes {
		if appBlocked {
			break // the app has no room for the lane above; nothing lower jumps it
		}
		l.round++
		if lane == Background {
			l.computeHolds(now)
		}
		for l.nAct[lane] > 0 {
			if l.appFull(lane, now) {
				appBlocked = true
				break
			}
			u := l.pick(lane, now)
			if u == nil {
				break
			}
			q := &u.Queue[lane][0]
			cost, byApp := l.admit(u, q, lane, now)
			if cost == 0 {
				u.mark[lane] = l.round
				if lane == Foreground {
					u.mark[Background] = l.round + 1 // the user's background waits too
				}
				if byApp {
					appBlocked = true
					break
				}
				continue
			}
			if !commit {
				l.round++ // drop this pass's marks
				return nil, true
			}
			out = append(out, l.grantHead(u, lane, cost, now))
		}
	}
	l.round++
	return out, len(out) > 0
}

// appFull reports whether the app scope admits nothing in lane now: its
// breaker holds every request, or not even one unit with one slot fits.
// What a unit does not fit, no larger request fits, so decide asks this
// before pick's scan of every queued user, which would end at the app
// anyway: with a backlog of hundreds of users, that scan after the last
// grant the app had room for was half the cost of a decision.
func (l *Limiter) appFull(lane Lane, now int64) bool {
	if ok, _, _ := l.st.App.Breaker.admit(now); !ok {
		return true
	}
	return !l.appView().fits(lane, 1, 1, now)
}

// pick returns the unblocked user of the lane that goes next: in the
// background lane, a user held for (see computeHolds) before any other,
// then the most work left; then the least usage in its longest window,
// ties to the earliest queued head. The held users are few and weighed
// here; the rest come from order's heap for the lane, so a pick costs
// O(log queued users) (see order).
func (l *Limiter) pick(lane Lane, now int64) *userState {
	l.orderExpire(now)
	if lane == Background {
		if u := l.pickHeld(now); u != nil {
			return u
		}
	}
	return l.orderTop(lane, now)
}

// pickHeld is the best held user with background queued and not blocked
// in this round, or nil.
func (l *Limiter) pickHeld(now int64) *userState {
	var best *userState
	for _, u := range l.holds.users {
		if !u.inAct[Background] || u.mark[Background] == l.round {
			continue
		}
		l.rekey(u, now)
		if best == nil || before(Background, u, best) {
			best = u
		}
	}
	return best
}

// ownFinish is when u's remaining work would finish at its own limits
// alone, counted in whole windows: for each user window, the windows its
// count and remaining work fill before the last unit's, times its length
// (a window refills all at once as the requests of its previous length
// leave it). What u is granted moves from the remaining work to the
// count, so serving u does not lower it (see computeHolds).
func (l *Limiter) ownFinish(u *userState, now int64) int64 {
	t := &l.st.Spec.Tuning
	return windowsFinish(l.userPers, func(w int) int {
		return u.Scope.Limits[w].limit(l.st.Spec.User.Windows[w].Limit, t, now)
	}, u.Scope.Log.count, u.Remaining)
}

// windowsFinish is the latest over windows of the whole windows that
// count(w) and work more units fill before the last unit's, at limit(w)
// each, times the window's length: the earliest-first finish of a scope
// whose windows refill at once.
func windowsFinish(pers []int64, limit func(int) int, count func(int) int, work int) int64 {
	f := int64(0)
	for w, per := range pers {
		f = max(f, int64((count(w)+work-1)/max(1, limit(w)))*per)
	}
	return f
}

func longest(pers []int64) int {
	w := 0
	for i, p := range pers {
		if p > pers[w] {
			w = i
		}
	}
	return w
}

// admit reports how many units of q may leave now (0: none; q.Cost, or
// for a divisible request at least q.MinCost), and whether the app scope
// is what holds it.
func (l *Limiter) admit(u *userState, q *queued, lane Lane, now int64) (cost int, byApp bool) {
	app := l.appViewFor(u, lane, now)
	if ok, _, _ := l.st.App.Breaker.admit(now); !ok {
		return 0, true
	}
	if cost = app.largestFit(q, q.Cost, lane, now); cost == 0 {
		// Held room (computeHolds) holds back this user, not the app: a
		// held user later in the pass may still have room.
		return 0, app.hold == nil
	}
	if ok, _, _ := u.Scope.Breaker.admit(now); !ok {
		return 0, false
	}
	u.Scope.Log.advance(l.userPers, now)
	if cost = l.userView(u).largestFit(q, cost, lane, now); cost == 0 {
		return 0, false
	}
	if q.Attempt > 0 && !l.retryAllowed(now) {
		return 0, false
	}
	return cost, false
}

// largestFit is the most units of q, at most upTo and at least q.least(),
// that fit v now, or 0 if none does.
func (v scopeView) largestFit(q *queued, upTo int, lane Lane, now int64) int {
	for cost := upTo; cost >= q.least(); cost-- {
		if v.fits(lane, cost, q.Slots, now) {
			return cost
		}
	}
	return 0
}

// retryAllowed reports whether the retry budget lets a retry go now.
func (l *Limiter) retryAllowed(now int64) bool {
	return l.st.RetryTokens >= 1 || now >= l.st.RetryProbe+int64(l.st.Spec.Tuning.RetryProbeEvery)
}

// grantHead grants cost units to the head of u's lane queue.
func (l *Limiter) grantHead(u *userState, lane Lane, cost int, now int64) Grant {
	q := u.Queue[lane][0]
	u.Queue[lane] = u.Queue[lane][1:]
	if len(u.Queue[lane]) == 0 {
		u.Queue[lane] = nil
		l.deactivate(u, lane)
	}
	delete(l.queued, q.ID)
	if lane == Foreground {
		u.Scope.FGLag = now - q.origin()
	}

	_, appProbe, _ := l.st.App.Breaker.admit(now)
	_, userProbe, _ := u.Scope.Breaker.admit(now)
	ls := l.lend(u, q, lane, cost, now)
	ls.Probe, ls.UserProbe, ls.AppProbe = appProbe || userProbe, userProbe, appProbe
	ls.UserRise, ls.AppRise = l.userView(u).above(ls.UserCount, cost, now), l.appView().above(ls.AppCount, cost, now)
	if ls.UserRise|ls.AppRise != 0 {
		l.st.RiseProbe = ls.LeaseID
	}
	if appProbe {
		l.st.App.Breaker.Probe = ls.LeaseID
	}
	if userProbe {
		u.Scope.Breaker.Probe = ls.LeaseID
	}
	return ls.Grant
}

// lend makes a lease of cost units for q at now and counts it: in u's and
// the app's windows, their concurrency, the retry budget and u's
// remaining work. The caller marks what it probes.
func (l *Limiter) lend(u *userState, q queued, lane Lane, cost int, now int64) *lease {
	app, usr := l.appView(), l.userView(u)
	l.st.Seq++
	counts := make([]int, len(l.userPers)+len(l.appPers))
	ls := &lease{
		Grant: Grant{
			RequestID: q.ID, LeaseID: l.leaseID(l.st.Seq), User: u.ID, Lane: lane,
			Cost: cost, Slots: q.Slots,
			Granted: time.Unix(0, now).UTC(),
			Expires: time.Unix(0, now+int64(l.st.Spec.Tuning.LeaseTTL)).UTC(),
		},
		Attempt:   q.Attempt,
		UserCount: usr.counts(counts[:len(l.userPers):len(l.userPers)]),
		AppCount:  app.counts(counts[len(l.userPers):]),
		UserConc:  u.Scope.InFlight,
		AppConc:   l.st.App.InFlight,
	}
	if q.Attempt > 0 {
		if l.st.RetryTokens >= 1 {
			l.st.RetryTokens--
		} else {
			l.st.RetryProbe = now
		}
	}
	if lane == Background {
		u.Remaining = max(u.Remaining-cost, 0)
		u.hk.leased++
	}
	u.Scope.Log.add(now, cost)
	l.st.App.Log.add(now, cost)
	u.Scope.InFlight += q.Slots
	l.st.App.InFlight += q.Slots
	l.st.Leases = append(l.st.Leases, ls)
	l.leases[ls.LeaseID] = ls
	if l.byReq[ls.RequestID] == nil {
		l.byReq[ls.RequestID] = ls
	}
	l.holdSync(u, now) // its count rose
	return ls
}

// Expire ends every lease whose TTL has passed by now, giving back its
// concurrency slots (its rate units stay spent), and returns those grants.
// An expired probe lets the next request probe. Grant calls Expire.
func (l *Limiter) Expire(now time.Time) []Grant {
	n := l.clock(now)
	var out []Grant
	kept := l.st.Leases[:0]
	for _, ls := range l.st.Leases {
		if ls.Expires.UnixNano() > n {
			kept = append(kept, ls)
			continue
		}
		out = append(out, ls.Grant)
		l.free(ls, n)
	}
	clear(l.st.Leases[len(kept):])
	l.st.Leases = kept
	return out
}

// free gives back a lease's slots and forgets it.
func (l *Limiter) free(ls *lease, now int64) {
	delete(l.leases, ls.LeaseID)
	if l.byReq[ls.RequestID] == ls {
		delete(l.byReq, ls.RequestID)
	}
	if l.st.RiseProbe == ls.LeaseID {
		l.st.RiseProbe = ""
	}
	l.st.App.InFlight -= ls.Slots
	if ls.AppProbe && l.st.App.Breaker.Probe == ls.LeaseID {
		l.st.App.Breaker.Probe = ""
	}
	if u := l.users[ls.User]; u != nil {
		u.Scope.InFlight -= ls.Slots
		if ls.UserProbe && u.Scope.Breaker.Probe == ls.LeaseID {
			u.Scope.Breaker.Probe = ""
		}
		if ls.Lane == Background {
			u.hk.leased--
		}
		l.holdSync(u, now) // a release may have lowered its limits (learn)
	}
	l.remember(ls.RequestID, ls.LeaseID, now)
}

// prune forgets expired dedupe IDs and throttle marks and, once per
// longest window (so the cost per decision stays constant), drops users
// with nothing left to remember.
func (l *Limiter) prune(now int64) {
	i := 0
	for i < len(l.st.Seen) && l.st.Seen[i].Until <= now {
		delete(l.seen, l.st.Seen[i].ID)
		i++
	}
	if i > 0 {
		// Reslice rather than copy: remember appends, so the backing array
		// is reclaimed as it grows, and pruning stays O(expired).
		l.st.Seen = l.st.Seen[i:]
	}
	j := 0
	for j < len(l.st.Throttles) && l.st.Throttles[j].At+int64(l.st.Spec.Tuning.InferWindow) <= now {
		j++
	}
	if j > 0 {
		l.st.Throttles = append(l.st.Throttles[:0], l.st.Throttles[j:]...)
	}
	if now-l.st.LastSweep < l.userPers[longest(l.userPers)] {
		return
	}
	l.st.LastSweep = now
	kept := l.st.Users[:0]
	for _, u := range l.st.Users {
		if l.idle(u, now) {
			delete(l.users, u.ID)
			continue
		}
		kept = append(kept, u)
	}
	clear(l.st.Users[len(kept):])
	l.st.Users = kept
}

// idle reports whether forgetting u changes no decision and u has not
// enqueued anything for two longest windows (so a user that comes back
// now and then is not rebuilt every time).
func (l *Limiter) idle(u *userState, now int64) bool {
	if now-u.Last < 2*l.userPers[longest(l.userPers)] {
		return false
	}
	if u.Scope.InFlight != 0 || len(u.Queue[Foreground]) != 0 || len(u.Queue[Background]) != 0 {
		return false
	}
	if u.Scope.LastFG != 0 && now < u.Scope.LastFG+int64(l.st.Spec.Tuning.ReserveIdle) {
		return false // its foreground reserve is held: a scan, then a migration hours later
	}
	u.Scope.Log.advance(l.userPers, now)
	if u.Scope.Log.count(longest(l.userPers)) != 0 || u.Scope.Breaker.Open {
		return false
	}
	t := &l.st.Spec.Tuning
	for w, a := range u.Scope.Limits {
		if a.limit(l.st.Spec.User.Windows[w].Limit, t, now) < l.st.Spec.User.Windows[w].Limit {
			return false
		}
	}
	return u.Scope.Conc.limit(l.st.Spec.User.Concurrency, t, now) >= l.st.Spec.User.Concurrency
}
