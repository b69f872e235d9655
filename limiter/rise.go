package limiter

// riseOpen reports whether a rise probe may go now (see riseFrom): the
// budget holds a token, no rise probe is in flight, and upstream has sent
// no throttle headers.
func (l *Limiter) riseOpen() bool {
	return l.st.RiseTokens >= 1 && l.st.RiseProbe == "" && !l.st.Headers
}

// riseEarn moves the rise budget (state.RiseTokens) for a request that
// came back: riseRatio for a success after the first throttle, minus one
// for a throttle. Before any throttle nothing is earned: the throttled
// target counts from the first throttle, and a probe that came first
// (a limit learned from a percentage report) would move the count's
// start before every success it was earned with (small-1: 1.22%).
func (l *Limiter) riseEarn(success bool) {
	switch {
	case !success:
		l.st.Throttled = true
		l.st.RiseTokens--
	case l.st.Throttled:
		l.st.RiseTokens = min(riseBurst, l.st.RiseTokens+riseRatio)
	}
}

// riseProved ends the back-off of every window a rise probe under ls went
// above, now that it succeeded and adapted.prove raised the learned limit
// to its count: the next probe may go at once, twice as far. A user
// window's new limit holds for every user (one user table, as
// shareLowering), so the others do not each find the rise again.
func (l *Limiter) riseProved(u *userState, ls *lease) {
	for w := range u.Scope.Limits {
		a := &u.Scope.Limits[w]
		if ls.UserRise&(1<<w) == 0 || len(ls.UserCount) != len(u.Scope.Limits) || a.Lowered < ls.UserCount[w]+ls.Cost {
			continue
		}
		spec := l.st.Spec.User.Windows[w].Limit
		a.RiseAt, a.RiseFails, a.RiseStep = 0, 0, min(spec, 2*a.riseStep())
		for _, x := range l.st.Users {
			b := &x.Scope.Limits[w]
			if x == u || b.Lowered == 0 || b.Lowered >= a.Lowered {
				continue
			}
			b.Lowered = a.Lowered
			b.RiseAt, b.RiseFails, b.RiseStep = 0, 0, a.RiseStep
			l.holdIdx.stale = true // x's finish may have fallen
		}
	}
	for w := range l.st.App.Limits {
		a := &l.st.App.Limits[w]
		if ls.AppRise&(1<<w) == 0 || len(ls.AppCount) != len(l.st.App.Limits) || a.Lowered < ls.AppCount[w]+ls.Cost {
			continue
		}
		a.RiseAt, a.RiseFails, a.RiseStep = 0, 0, min(l.st.Spec.App.Windows[w].Limit, 2*a.riseStep())
	}
}

// riseRefused backs off every window a rise probe under ls went above,
// now that upstream refused it (see riseFrom): the learned limit holds,
// and nothing else is learned from the throttle. A user window's back-off
// holds for every user.
func (l *Limiter) riseRefused(u *userState, ls *lease, now int64) {
	for w := range u.Scope.Limits {
		if ls.UserRise&(1<<w) == 0 {
			continue
		}
		a := &u.Scope.Limits[w]
		a.RiseAt, a.RiseFails, a.RiseStep = now, a.RiseFails+1, 0
		for _, x := range l.st.Users {
			if b := &x.Scope.Limits[w]; x != u && b.Lowered > 0 {
				b.RiseAt, b.RiseFails, b.RiseStep = a.RiseAt, max(b.RiseFails, a.RiseFails), 0
			}
		}
	}
	for w := range l.st.App.Limits {
		if ls.AppRise&(1<<w) != 0 {
			a := &l.st.App.Limits[w]
			a.RiseAt, a.RiseFails, a.RiseStep = now, a.RiseFails+1, 0
		}
	}
}
