package limiter

// maxHeld bounds the users a decision pass holds app room for. Users
// bound by their own limits are few: each takes its own limit of the
// app's, so more than a handful cannot all outlast the app.
const maxHeld = 8

// holds is the users one decision pass keeps app room for (see
// computeHolds). It is derived state, rebuilt at every pass, never
// persisted.
type holds struct {
	users []*userState
	// mark dedupes users within one pass (userState.holdMark).
	mark  uint64
	buf   []int
	cands []*userState
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
func (l *Limiter) computeHolds(now int64) {
	h := &l.holds
	h.users = h.users[:0]
	h.mark++
	if len(l.active[Background]) == 0 {
		return
	}
	cands := h.cands[:0]
	add := func(u *userState) {
		if u == nil || u.holdMark == h.mark || u.Remaining == 0 {
			return
		}
		u.holdMark = h.mark
		u.Scope.Log.advance(l.userPers, now)
		cands = append(cands, u)
	}
	for _, u := range l.active[Background] {
		add(u)
	}
	for _, ls := range l.st.Leases {
		if ls.Lane == Background {
			add(l.users[ls.User])
		}
	}
	defer func() { clear(cands); h.cands = cands[:0] }()
	if len(cands) < 2 {
		return
	}
	sum := 0
	for _, u := range cands {
		sum += u.Remaining
	}
	t := &l.st.Spec.Tuning
	appFinish := windowsFinish(l.appPers, func(w int) int {
		return l.st.App.Limits[w].limit(l.st.Spec.App.Windows[w].Limit, t, now)
	}, l.st.App.Log.count, sum)
	for _, u := range cands {
		if !l.progressing(u, now) {
			continue
		}
		if f := l.ownFinish(u, now); len(h.users) < maxHeld && f > 0 && f >= appFinish {
			h.users = append(h.users, u)
		}
	}
}

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
// work), computed at the time of asking, so a held user's grants free
// what they no longer need; nil when nothing is held or u is held (held
// users hold nothing from each other: each is bound by its own limits).
func (l *Limiter) holdFor(u *userState, lane Lane, now int64) []int {
	h := &l.holds
	if lane != Background || u == nil || len(h.users) == 0 || h.has(u) {
		return nil
	}
	t := &l.st.Spec.Tuning
	h.buf = resize(h.buf, len(l.appPers))
	for _, x := range h.users {
		for w, per := range l.appPers {
			for uw, uper := range l.userPers {
				if uper == per {
					lim := x.Scope.Limits[uw].limit(l.st.Spec.User.Windows[uw].Limit, t, now)
					h.buf[w] += min(x.Remaining, max(0, lim-x.Scope.Log.count(uw)))
				}
			}
		}
	}
	return h.buf
}

// progressing reports whether u is using held room: it has requests in
// flight, was granted within a cooldown, or has not been granted yet
// (it is about to start). A user stopped by its own
// breaker, or by a limit upstream enforces below what the model knows,
// holds nothing: its room would stand empty while others wait (a user
// held for at a believed 400 an hour and refused at a real 317 kept the
// app's last 170 of the hour from eleven other users for 50 minutes).
func (l *Limiter) progressing(u *userState, now int64) bool {
	if u.Scope.InFlight > 0 {
		return true
	}
	e := u.Scope.Log.entries
	return len(e) == 0 || e[len(e)-1].at >= now-int64(l.st.Spec.Tuning.Cooldown)
}
