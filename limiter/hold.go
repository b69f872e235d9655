package limiter

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"sort"
)

// maxHeld bounds the users a decision pass holds app room for. Users
// bound by their own limits are few: each takes its own limit of the
// app's, so more than a handful cannot all outlast the app.
const maxHeld = 8

// holds is the users one decision pass keeps app room for (see
// computeHolds). It is derived state, rebuilt at every pass, never
// persisted.
type holds struct {
	users []*userState
	early *userState // held early: in the app's longest window only
	buf   []int
	cands []*userState
	walk  []int
	pace  paceMemo
	cum   []int
}

// paceMemo is the last earlyRoom, for user at the state of the logs key.
type paceMemo struct {
	key  paceKey
	user *userState
	room int
}

// paceKey is the state earlyRoom depends on: the time, the app's and the
// user's logs (each grant adds an entry) and the user's remaining work.
type paceKey struct {
	at        int64
	app, own  int
	remaining int
}

// has reports whether the pass holds room for u.
func (h *holds) has(u *userState) bool {
	for _, x := range h.users {
		if x == u {
			return true
		}
	}
	return false
}

// computeHolds finds the background users that would finish last even
// alone at their own limits, no sooner than the app could finish all the
// work (ownFinish, counted in whole windows, at least the app's, and
// beyond the window now), and holds for each, in every app
// window that a user window of the same length mirrors, the room its own
// window has left (at most its remaining work). Other users' background
// may use the app's window only above those holds.
//
// Without it the limiter is work-conserving within each window: users
// arriving together, each bound by its latency early on, fill the app's
// minute and hour in equal shares, and a user with more than its hour
// limit of work gets a third of the app's hour instead of its own 400;
// its own hour window then makes it finish an hour late (issue 32: seven
// users arriving together, 1.155x). Only users with work queued or in
// flight are held for, so a user that reported remaining work and went
// quiet holds nothing.
//
// When nobody qualifies, the user whose own finish is later than every
// other's and at least half the app's is held while it has used less
// than its longest window's limit after a whole window of its work
// (starved): in the app's longest window only (early), for what it
// could send before that window frees more (earlyRoom). The app's
// longest window is spent at its start in a burst bound by the app's
// concurrency, which every user with work takes part in, so a user
// capped at a few requests at once gets a few of the app's slots
// however much work it has; its own finish is counted at the limits the
// model believes, and a user limit hidden below them is never met by a
// user that gets a tenth of it, so the user is held only when it is too
// late (full-162: 13,162 requests at a believed 400 an hour is 33 h
// against the app's 47 h; it got 57 to 220 an hour of its true 279 for
// 18 h and finished alone 9 h after the others, 1.19x; full-146
// likewise, 1.11x). Held early, it meets its limit, learns it, and is
// then held the usual way if its true finish is the app's. Held only
// under half its limit, it stopped short of a limit hidden above half
// and never learned it (full-777: 200 to 228 an hour of its true 247).
// Two users finishing last together are not held: they take turns.
//
// The candidates, and the sum of their remaining work, are kept as they
// change (holdIndex), so a pass weighs only the few whose finish may
// reach the app's, not every user with background queued. When more
// than maxHeld qualify, the first in the order the users came (active,
// then the leases) are held.
func (l *Limiter) computeHolds(now int64) {
	h := &l.holds
	h.users = h.users[:0]
	h.early = nil
	h.pace = paceMemo{}
	if l.nAct[Background] == 0 {
		return
	}
	x := &l.holdIdx
	if x.stale {
		l.holdRebuild(now)
	}
	if len(x.top.users) < 2 {
		return
	}
	t := &l.st.Spec.Tuning
	appFinish := windowsFinish(l.appPers, func(w int) int {
		return l.st.App.Limits[w].limit(l.st.Spec.App.Windows[w].Limit, t, now)
	}, l.st.App.Log.count, x.sum)
	need := max(appFinish, 1)
	half := (need + 1) / 2 // 2*f >= need
	// The candidates whose bound reaches half of need: the top of the
	// heap (at most twice as many users as the app's limits hold users'
	// at their own).
	cands, walk := h.cands[:0], append(h.walk[:0], 0)
	for len(walk) > 0 {
		i := walk[len(walk)-1]
		walk = walk[:len(walk)-1]
		if i < len(x.top.users) && x.top.users[i].hk.bound >= half {
			cands = append(cands, x.top.users[i])
			walk = append(walk, 2*i+1, 2*i+2)
		}
	}
	var late *userState // the one latest own finish of at least half of need
	tied := false
	for _, u := range cands {
		f := l.rebound(u, now)
		if f >= need && l.progressing(u, now) {
			h.users = append(h.users, u)
		}
		switch {
		case f < half:
		case late == nil || f > late.hk.bound:
			late, tied = u, false
		case f == late.hk.bound:
			tied = true
		}
	}
	clear(cands)
	h.cands, h.walk = cands[:0], walk
	if len(h.users) == 0 && late != nil && !tied && l.starved(late, now) && l.progressing(late, now) {
		h.users = append(h.users, late)
		h.early = late
	}
	if len(h.users) > maxHeld {
		slices.SortFunc(h.users, l.cameBefore)
		clear(h.users[maxHeld:])
		h.users = h.users[:maxHeld]
	}
}

// starved reports whether u has used less than its longest window's
// limit although it has worked for a whole window of it (it was granted
// within the log's keep before the window's edge): it is not getting its
// own limit. In a user's first window every user is filling the app's
// windows at once, and a hold then kept the others idle while the user
// met a limit it would have met anyway (full-394: 27 users arriving
// together idled 48 s in the run's third minute).
func (l *Limiter) starved(u *userState, now int64) bool {
	lw := longest(l.userPers)
	lim := u.Scope.Limits[lw].limit(l.st.Spec.User.Windows[lw].Limit, &l.st.Spec.Tuning, now)
	n, per := u.Scope.Log.count(lw), l.userPers[lw]
	return n < lim && u.Scope.Log.countAt(per+l.keep, now) > n
}

// cameBefore orders background candidates as they came: the users with
// background queued in the order they were listed active, then the
// others by their first background lease.
func (l *Limiter) cameBefore(a, b *userState) int {
	return cmp.Compare(l.cameAt(a), l.cameAt(b))
}

func (l *Limiter) cameAt(u *userState) int {
	if u.inAct[Background] {
		return u.actPos[Background]
	}
	for i, ls := range l.st.Leases {
		if ls.Lane == Background && ls.User == u.ID {
			return len(l.active[Background]) + i
		}
	}
	return math.MaxInt
}

// holdIndex keeps the background candidates computeHolds weighs, so that
// a pass costs O(log users) for each user it weighs, and it weighs only
// those whose finish may reach the app's, not every user with background
// queued (issue 32: 3 ns a user walked, 30 µs at 10,000 users queued).
//
// The candidates are the users with remaining work and background queued
// or in flight; sum is their remaining work, kept as it changes. They are
// a max-heap on bound, which is never below the user's ownFinish: the
// counts only fall as the windows slide and an adapted limit only creeps
// back up, so ownFinish computed at some time stays an upper bound until
// an event raises it, and holdSync recomputes it at each such event: a
// grant (the user's count rises), an enqueue (Remaining may rise), a
// release (a throttle may lower the user's limits). A throttle that
// lowers every user's limits (shareLowering) marks the index stale; the
// next pass rebuilds it. It is derived state, never persisted.
type holdIndex struct {
	top   userHeap[byBound]
	sum   int
	stale bool
}

// holdKey is a user's place in holdIndex.
type holdKey struct {
	pos    int   // 1-based index in holdIndex.top; 0: not a candidate
	left   int   // Remaining as counted in holdIndex.sum
	bound  int64 // no less than ownFinish from now on
	leased int   // background leases in flight
}

// holdSync brings u's place in the hold index up to date at now, after
// its remaining work, its queue, its leases, its count or its limits
// changed.
func (l *Limiter) holdSync(u *userState, now int64) {
	x, k := &l.holdIdx, &u.hk
	in := u.Remaining > 0 && (u.inAct[Background] || k.leased > 0)
	switch {
	case in && k.pos == 0:
		k.left = u.Remaining
		x.sum += k.left
		k.bound = l.finishNow(u, now)
		heap.Push(&x.top, u)
	case in:
		x.sum += u.Remaining - k.left
		k.left = u.Remaining
		l.rebound(u, now)
	case k.pos != 0:
		x.sum -= k.left
		k.left = 0
		heap.Remove(&x.top, k.pos-1)
	}
}

// rebound sets u's bound to its ownFinish at now, which it returns.
func (l *Limiter) rebound(u *userState, now int64) int64 {
	k := &u.hk
	if f := l.finishNow(u, now); f != k.bound {
		k.bound = f
		heap.Fix(&l.holdIdx.top, k.pos-1)
	}
	return k.bound
}

// finishNow is u's ownFinish with its log advanced to now.
func (l *Limiter) finishNow(u *userState, now int64) int64 {
	u.Scope.Log.advance(l.userPers, now)
	return l.ownFinish(u, now)
}

// holdRebuild rebuilds the hold index from the users and leases at now.
func (l *Limiter) holdRebuild(now int64) {
	l.holdIdx = holdIndex{}
	for _, u := range l.st.Users {
		u.hk = holdKey{}
	}
	for _, ls := range l.st.Leases {
		if u := l.users[ls.User]; u != nil && ls.Lane == Background {
			u.hk.leased++
		}
	}
	for _, u := range l.st.Users {
		l.holdSync(u, now)
	}
}

// byBound orders the hold candidates with the highest bound on top
// (holdKey.pos).
type byBound struct{}

func (byBound) less(a, b *userState) bool { return a.hk.bound > b.hk.bound }
func (byBound) slot(u *userState) *int    { return &u.hk.pos }

// resize returns s with n zeroed elements, reusing its array.
func resize(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// holdFor is the app room held from u's background, per app window:
// what every held user may still use of it at its own limit (the room
// its user window of the same length has left, at most its remaining
// work and what its longer windows leave), computed at the time of asking, so a held user's grants free
// what they no longer need; nil when nothing is held or u is held (held
// users hold nothing from each other: each is bound by its own limits).
func (l *Limiter) holdFor(u *userState, lane Lane, now int64) []int {
	h := &l.holds
	if lane != Background || u == nil || len(h.users) == 0 || h.has(u) {
		return nil
	}
	return l.heldRoom(now)
}

// heldRoom is the app room held, per app window, from the background of
// the users not held for (see holdFor). A user held early (computeHolds)
// is held room in the app's longest window only (earlyRoom). A held
// user's room in a window is no more than each of its longer windows
// leaves it: within a minute it cannot send more than its hour has room
// for. Counted from the minute alone, a user whose hour was full (or
// whose hour upstream enforces below the model's) held its minute's room
// of the app's minute, and every other user idled for the rest of the
// minute while the app had room (small-27: nine users idled 54 s at the
// top of the hour). A window's room is what the user's background may
// still use of it: its limit less the reserve its own foreground keeps.
// Counted from the limit alone, a held user full for its background but
// under its limit held those last units of the app's windows, which it
// could not use, and the others idled (full-9: a user at 361 of its hour
// learned at 371, its reserve 10, held 10 of the app's minute, which had
// 6 left, and two users idled 47 s; full-34: 27 minutes).
func (l *Limiter) heldRoom(now int64) []int {
	h := &l.holds
	h.buf = resize(h.buf, len(l.appPers))
	long := longest(l.appPers)
	for _, x := range h.users {
		if x == h.early {
			h.buf[long] += l.earlyRoom(x, long, now)
			continue
		}
		for w, per := range l.appPers {
			for uw, uper := range l.userPers {
				if uper != per {
					continue
				}
				r := min(x.Remaining, l.backgroundRoom(x, uw, now))
				for lw, lper := range l.userPers {
					if lper > per {
						r = min(r, l.backgroundRoom(x, lw, now))
					}
				}
				h.buf[w] += r
			}
		}
	}
	return h.buf
}

// backgroundRoom is what x's background may still use of its window uw:
// its limit less the reserve its own foreground keeps, less its count.
func (l *Limiter) backgroundRoom(x *userState, uw int, now int64) int {
	lim := l.userView(x).effLimit(uw, Background, now)
	return max(0, lim-x.Scope.Log.count(uw))
}

// earlyRoom is the room of the app's window w (its longest) held for x,
// the user held early: the room x's longest window has left (at most its
// remaining work), less what the app's window frees again before x could
// use it: the most by which what x can send by each time (paceOf)
// outruns the units leaving the app's window by then
// (rollingLog.outrun).
//
// Bounded instead by the room of x's shortest window, as every window
// but the longest was, the hold never met a hidden limit: the app's hour,
// spent at its start in a burst, freed its units in two minutes of the
// next hour, of which x took its minute's limit each and the others the
// rest (full-777: the user with 6,500 requests, its hour hidden at 247,
// got 107 an hour for 13 hours: 1.20x). Held whole, the hour's room kept
// the others idle while x's minute was full although the hour would free
// more than x could take before then. It is computed once for each
// state of the logs in a pass (holds.pace): every decision asks for it.
func (l *Limiter) earlyRoom(x *userState, w int, now int64) int {
	p := &l.holds.pace
	key := paceKey{now, len(l.st.App.Log.entries), len(x.Scope.Log.entries), x.Remaining}
	if p.key == key && p.user == x {
		return p.room
	}
	r := min(x.Remaining, l.backgroundRoom(x, longest(l.userPers), now))
	if s := shortest(l.userPers); l.userPers[s] < l.appPers[w] && r > 0 {
		want := l.paceOf(x, s, r, now)
		l.st.App.Log.advance(l.appPers, now)
		r, _ = l.st.App.Log.outrun(w, l.appPers[w], want, now)
	}
	*p = paceMemo{key: key, user: x, room: r}
	return r
}

// paceOf is the most x's background can send before now+τ (the app's
// units leaving at τ are not yet there to take), at most r, as its
// shortest window s (length sper, limit rate) allows: its room now and
// the units of its own that leave the window before then, and rate for
// each further period.
func (l *Limiter) paceOf(x *userState, s, r int, now int64) func(tau int64) int {
	sper := l.userPers[s]
	g := &x.Scope.Log
	first, rate := l.backgroundRoom(x, s, now), l.userView(x).effLimit(s, Background, now)
	inside := g.entries[g.start[s]:]
	// cum[i] is the cost of the first i entries inside the window: those
	// leaving first.
	cum := append(l.holds.cum[:0], 0)
	for _, e := range inside {
		cum = append(cum, cum[len(cum)-1]+e.cost)
	}
	l.holds.cum = cum
	return func(tau int64) int {
		t := min(tau, sper)
		left := sort.Search(len(inside), func(i int) bool { return inside[i].at+sper >= now+t })
		return min(r, first+cum[left]+rate*int((tau-1)/sper))
	}
}

// progressing reports whether u is using held room: it has requests in
// flight, was granted within a cooldown, has not been granted yet (it
// is about to start), or waits for nothing but room (unstopped). A user
// stopped by its own breaker, or by a limit upstream enforces below what
// the model knows (its retries wait for the retry budget), holds
// nothing: its room would stand empty while others wait (a user held for
// at a believed 400 an hour and refused at a real 317 kept the app's
// last 170 of the hour from eleven other users for 50 minutes).
func (l *Limiter) progressing(u *userState, now int64) bool {
	if u.Scope.InFlight > 0 || l.unstopped(u, now) {
		return true
	}
	e := u.Scope.Log.entries
	return len(e) == 0 || e[len(e)-1].at >= now-int64(l.st.Spec.Tuning.Cooldown)
}

// unstopped reports whether u's next background request waits for
// nothing but room: its own breaker admits it and, for a retry, the
// retry budget allows it. Such a user sends as soon as its own windows
// and the app's leave it room, so it uses the room held for it. Counted
// as stopped once a cooldown passed since its last grant, a held user
// whose minute filled before its hour lost its hold when its minute
// slid: in the pass that granted its next requests, the others took the
// app hour's room it needed for the rest of its hour (full-36: the user
// with 3,168 requests, 120 a minute and 400 an hour, got 339 of its
// hour at the app hour's refill, and its last 45 requests took an hour
// more, 1.12x).
func (l *Limiter) unstopped(u *userState, now int64) bool {
	q := u.Queue[Background]
	if len(q) == 0 {
		return false
	}
	if ok, _, _ := u.Scope.Breaker.admit(now); !ok {
		return false
	}
	return q[0].Attempt == 0 || l.retryAllowed(now)
}
