package limiter

import (
	"math"
	"time"
)

// Release ends a lease at now with what upstream said, and reports whether
// the lease was live (a duplicate or late release is a harmless no-op).
// Its rate units stay spent. The outcome drives the breakers, the
// adaptive limits and the retry budget:
//
//   - 429, or error 20166 or 10007: the hard breaker of the named scope opens (a
//     throttle without a scope is blamed on the app when another user was
//     throttled within InferWindow, else on the user, unless none of that
//     scope's windows could have caused it and one of the other's could,
//     or the other's binds, or, when the proof leaves both, only the
//     other is at the most it took within its longest window
//     (underPeak), or the other's shortest window left is the shorter
//     (cheaperScope) or, failing a proof, the other is more than twice
//     as full: bindingScope)
//     and the window of that scope that binds (see lowerBusiest) is
//     lowered to the count it held at grant, or to the count proven to
//     succeed in it when lower. A success granted before the lowering at
//     a higher count raises it again (adapted.prove); a user lowering an
//     app lowering soon after explains is taken back (unlearnUser). A failed probe that
//     lowered a window doubles its breaker's cooldown to two cooldowns at
//     most.
//   - 10003: the scope's effective concurrency is lowered to what was in
//     flight at grant (without a scope, each scope that could have
//     refused it: concScopes); a user's cap is lowered for every user.
//   - a success with ThrottlePercent >= 0.8 that shows the scope fuller
//     than the model thinks lowers the busiest window to the limit the
//     percentage implies (>= 1.0: to its count, so nothing more leaves
//     until a unit leaves the window); one that shows it emptier than a
//     lowered window raises that window to the limit the percentage
//     implies (the real limit rose, or the lowering went too far).
//   - ErrorThreshold server errors in a row open the app breaker.
//   - a success earns RetryRatio retry tokens and closes the breakers it
//     probed.
func (l *Limiter) Release(leaseID string, o Outcome, now time.Time) bool {
	ls := l.leases[leaseID]
	if ls == nil {
		return false
	}
	n := l.clock(now)
	for i, v := range l.st.Leases {
		if v == ls {
			l.st.Leases = append(l.st.Leases[:i], l.st.Leases[i+1:]...)
			break
		}
	}
	u := l.user(ls.User)
	if ls.Lane == Foreground {
		u.Scope.FGDone = n
	}
	u.Scope.Log.advance(l.userPers, n)
	l.learn(u, ls, o, n)
	l.free(ls, n)
	return true
}

func (l *Limiter) learn(u *userState, ls *lease, o Outcome, now int64) {
	t := &l.st.Spec.Tuning
	usr, app := l.userView(u), l.appView()
	if o.Scope != ScopeUnknown || o.ThrottlePercent > 0 {
		l.st.Headers = true
	}
	switch {
	case o.Status == 0 && o.Code == "":
		// Never sent, or fate unknown: learn nothing; free clears the probe.
	case o.success():
		uc, ac, last, counted := l.countsAt(u, ls, o, now)
		l.st.Errors = 0
		l.st.RetryTokens = math.Min(t.RetryBurst, l.st.RetryTokens+t.RetryRatio)
		if ls.AppProbe {
			l.st.App.Breaker.close()
		}
		if ls.UserProbe {
			u.Scope.Breaker.close()
		}
		granted := ls.Granted.UnixNano()
		u.Scope.OKAt = max(u.Scope.OKAt, granted)
		l.st.App.OKAt = max(l.st.App.OKAt, granted)
		if counted {
			usr.prove(uc, last, granted, now)
			l.proveShared(uc, last, now)
			app.prove(ac, last, granted, now)
			app.provePeak(ac, last, now)
		}
		usr.proveConc(ls.UserConc, ls.Slots, granted, now)
		app.proveConc(ls.AppConc, ls.Slots, granted, now)
		switch {
		case counted && o.ThrottlePercent >= 0.8:
			usr.table = l.tableLimits(u)
			l.soft(usr, app, uc, ac, last, o, now)
		case counted && o.ThrottlePercent == 0 && l.st.Headers:
			l.underReport(usr, app, uc, ac, last, now)
		}
		l.riseEarn(true)
		if ls.UserRise|ls.AppRise != 0 {
			l.riseProved(u, ls)
		}
	case o.concurrency():
		l.riseEarn(false)
		lowerUser, lowerApp := o.Scope != ScopeApp, o.Scope == ScopeApp
		if o.Scope == ScopeUnknown {
			lowerUser, lowerApp = l.concScopes(usr, app, ls, now)
		}
		if lowerApp {
			app.st.Conc.lower(app.spec.Concurrency, ls.AppConc, t, now)
		}
		if lowerUser {
			// One cap holds for every user (the spec has one user table):
			// what one user found, the others need not find again.
			for _, x := range l.st.Users {
				x.Scope.Conc.lower(usr.spec.Concurrency, ls.UserConc, t, now)
			}
		}
	case o.throttled():
		l.st.Errors = 0
		l.riseEarn(false)
		if ls.UserRise != 0 && o.Scope != ScopeApp || ls.AppRise != 0 && o.Scope != ScopeUser {
			// A rise probe refused: the learned limit holds (riseFrom).
			l.riseRefused(u, ls, now)
			l.failProbes(u, ls, now, "throttled", true)
			return
		}
		scope := o.Scope
		if scope == ScopeUnknown {
			scope = l.infer(u.ID, now)
		}
		uc, ac, _, counted := l.countsAt(u, ls, o, now)
		usr.peers, usr.table = l.userProof(), l.tableLimits(u)
		byPeak := false
		if counted && o.Scope == ScopeUnknown {
			scope, byPeak = l.throttleScope(scope, usr, app, uc, ac, now)
		}
		if scope == ScopeApp && (o.Scope == ScopeApp || counted && !usr.plausible(uc, true, now)) {
			l.st.App.RefusedAt = now // the app's own refusal (appRefusedAgain)
		}
		u.Scope.RefusedAt = now
		v, before := usr, uc
		if scope == ScopeApp {
			v, before = app, ac
		}
		v.byPeak = byPeak
		var from []int
		if scope != ScopeApp && o.Scope == ScopeUnknown {
			from = usr.limits(now)
		}
		// Counts under windows a later spec replaced lower nothing: the
		// breaker still trips, and the next throttle, counted, teaches.
		lowered := counted && v.lowerBusiest(before, now)
		switch {
		case lowered && scope == ScopeApp:
			l.unlearnUser(now)
		case lowered:
			l.shareLowering(u, now)
			if from != nil {
				l.rememberUserLowering(u, from, ac, now)
			}
		}
		l.failProbes(u, ls, now, "throttled", lowered)
		v.st.Breaker.trip(now, t, "throttled (429/"+CodeThrottled+")")
	case o.serverError():
		l.st.Errors++
		l.failProbes(u, ls, now, "server errors", false)
		if t.ErrorThreshold > 0 && l.st.Errors >= t.ErrorThreshold {
			l.st.App.Breaker.trip(now, t, "server errors")
		}
	}
}

// shareLowering gives every other user the window limits u's throttle
// just lowered: one user table holds for every user (the spec has one),
// so what one user found the others need not find again, each with a
// throttle of its own (users arriving one after another against a hidden
// user hour each paid the lesson anew: over 2% of requests throttled).
// A lowering that was wrong is undone per user by its successes above it
// (adapted.prove), as for the user who was throttled.
func (l *Limiter) shareLowering(u *userState, now int64) {
	t := &l.st.Spec.Tuning
	proof := l.userProof()
	for w, a := range u.Scope.Limits {
		if a.Lowered == 0 || a.At != now {
			continue
		}
		// The shared proof keeps what the lowering kept of u's own
		// (adapted.lower): up to the new limit, or nothing when the
		// limit is falling; the peak, up to the new limit.
		proof[w].Proven = min(proof[w].Proven, a.Proven)
		proof[w].Peak = min(proof[w].Peak, a.Lowered)
		spec := l.st.Spec.User.Windows[w].Limit
		for _, x := range l.st.Users {
			if x != u && x.Scope.Limits[w].lower(spec, a.Lowered, t, now) {
				l.holdIdx.stale = true // x's finish may have risen
			}
		}
	}
}

// userProof is state.UserProof, one element per user window.
func (l *Limiter) userProof() []adapted {
	if len(l.st.UserProof) != len(l.userPers) {
		l.st.UserProof = make([]adapted, len(l.userPers))
	}
	return l.st.UserProof
}

// proveShared records a user's success at counts before plus cost in
// the proof every user shares (state.UserProof).
func (l *Limiter) proveShared(before []int, cost int, now int64) {
	proof := l.userProof()
	for w, c := range before {
		if w >= len(proof) {
			continue
		}
		if c+cost >= proof[w].proven(l.userPers[w], now) {
			proof[w].Proven, proof[w].ProvenAt = c+cost, now
		}
		proof[w].provePeak(c+cost, l.userPers[longest(l.userPers)], now)
	}
}

// countsAt is what each window of the user's and the app's scope held
// when the last request under ls was sent at o.Sent, without that request,
// and the units that request adds (1): the counts the upstream windows
// had when they judged it, as nearly as the model knows. Requests granted
// after ls may have been sent before it, and requests may have left the
// windows since the grant; the permit's own earlier requests count. With
// the send time unknown, outside the lease or too old for the logs, it is
// the counts at the grant and the permit's cost. ok is false when the
// model cannot say: the counts at the grant are per windows a later spec
// replaced (SetSpec), and no send time places the request in the logs.
func (l *Limiter) countsAt(u *userState, ls *lease, o Outcome, now int64) (user, app []int, last int, ok bool) {
	from, at := ls.Granted.UnixNano(), o.Sent.UnixNano()
	if o.Sent.IsZero() || at < from || at > now || now-at > l.keep {
		if len(ls.UserCount) != len(l.userPers) || len(ls.AppCount) != len(l.appPers) {
			return nil, nil, 0, false
		}
		return ls.UserCount, ls.AppCount, ls.Cost, true
	}
	cost := max(1, ls.Cost)
	earlier := max(0, cost-min(max(0, o.Unsent), cost)-1)
	at1 := func(g *rollingLog, pers []int64, out []int) []int {
		for w, per := range pers {
			out[w] = g.countAt(per, at) + earlier
			if from > at-per {
				out[w] -= cost // ls itself, still logged at its grant
			}
		}
		return out
	}
	return at1(&u.Scope.Log, l.userPers, make([]int, len(l.userPers))), at1(&l.st.App.Log, l.appPers, make([]int, len(l.appPers))), 1, true
}

// throttleScope is the scope a throttle without one is blamed on, from
// the inferred one: plausibleScope, then, when the counts proven to
// succeed leave both scopes or neither, the scope at its peak against
// one under it (underPeak), then bindingScope. The proof lasts two of a
// window's lengths, the peak the scope's longest window: a user new to a
// minute at 35 of 120, where the users took 115 half an hour before,
// was blamed for the app hour's throttle at its highest count yet (360,
// hidden at 360), and its minute, lowered to 33 for every user, idled
// them most of each minute (full-6; full-179, 236, 385, 452, 917 alike).
// byPeak reports that the peaks decided: the scope's windows under their
// own peak are then not blamed either (full-212: the app minute at 113,
// where it took over 200 within the hour, was lowered for the app hour's
// throttle at its highest count, 531 of a hidden 530). Fullness by
// believed limits must not overrule the proof: a user window believed at
// 400 while upstream holds it at 127 looks emptier than an app window
// under the count it let through an hour ago, and blaming the app then
// lowers the app's hour under what it took (every user waits for the
// hour to slide) and ratchets it down a unit each hour.
func (l *Limiter) throttleScope(scope ThrottleScope, usr, app scopeView, uc, ac []int, now int64) (_ ThrottleScope, byPeak bool) {
	if refusedAgain(usr, app, uc, now) {
		return ScopeUser, false
	}
	if appRefusedAgain(usr, app, uc, ac, now) {
		return ScopeApp, false
	}
	scope = l.plausibleScope(scope, usr, app, uc, ac, now)
	if usr.plausible(uc, true, now) != app.plausible(ac, true, now) {
		return scope, false
	}
	switch u, a := usr.underPeak(uc, now), app.underPeak(ac, now); {
	case u && !a:
		return ScopeApp, true
	case a && !u:
		return ScopeUser, true
	}
	return bindingScope(scope, usr, app, uc, ac, now), false
}

// refusedAgain reports whether a throttle without a scope is the user's
// own scope refusing it again: the user was throttled before, within its
// longest window, nothing of it succeeded since, the app took a request
// granted after that throttle (another user's: the app had room), and a
// user window is at or above the count recently proven to succeed in it
// (and its floor). Fullness by believed limits must not overrule that: a
// user hour hidden at 121, believed at 400, looks a third full while the
// app's hour looks two-thirds full, and blaming the app lowered its hour
// under the real 800 to the count it held (issue 32: every user then
// idled 57 min until the hour slid, small-115, full-40).
func refusedAgain(usr, app scopeView, uc []int, now int64) bool {
	r := usr.st.RefusedAt
	if r == 0 || now-r > usr.pers[longest(usr.pers)] || app.st.OKAt <= r || usr.st.OKAt > r {
		return false
	}
	return usr.plausible(uc, true, now)
}

// appRefusedAgain reports whether a throttle without a scope is the
// app refusing again: the app refused a request within MaxCooldown
// (state.App.RefusedAt: a throttle that named it, or one none of whose
// user windows was at its proof), nothing granted since has succeeded in
// it, no user window is at or above the count recently proven to succeed
// in it (so the user's scope could have refused only if its limit fell
// too), and an app window is at its floor. Throttles further apart than
// InferWindow each come to the user by inference, and when both scopes
// are under their proof (a limit fell under full windows) the floor
// leaves both and the inference stands: the app hour fallen from 800 to
// 335 under a full hour refused the breaker's probe every 20 s, each
// probe was charged to the user's hour, which was walked down with the
// app's from 377 to 171, and every user then idled 55 minutes an hour
// (full-188). The app that refused and let nothing through since is the
// likelier cause; its walk ends at its real limit.
func appRefusedAgain(usr, app scopeView, uc, ac []int, now int64) bool {
	r := app.st.RefusedAt
	if r == 0 || now-r > int64(app.t.MaxCooldown) || app.st.OKAt >= r {
		return false
	}
	return !usr.plausible(uc, true, now) && app.plausible(ac, false, now)
}

// plausibleScope corrects the inferred scope of a throttle without one:
// a scope none of whose windows could have caused it is not to blame when
// the other's could. A window could when it held at least the count
// recently proven to succeed in it, or failing that in either scope, at
// least its adaptation floor.
func (l *Limiter) plausibleScope(scope ThrottleScope, usr, app scopeView, uc, ac []int, now int64) ThrottleScope {
	for _, proven := range []bool{true, false} {
		u, a := usr.plausible(uc, proven, now), app.plausible(ac, proven, now)
		switch {
		case u && a:
			return scope
		case u:
			return ScopeUser
		case a:
			return ScopeApp
		}
	}
	return scope
}

// bindingScope corrects the scope of a throttle without one once more: a
// scope none of whose windows binds (each under its effective limit and
// under the level it was last throttled at) is not to blame when one of
// the other's does. Several users throttled together (infer) says the app
// only until the windows say which one binds: a user window back at the
// count it was throttled at is what refused this user, whoever else was
// refused nearby, and an app window at its level is what refused this
// user when its own windows are far from theirs.
//
// When neither scope binds, the cheaper wrong guess decides (cheaperScope)
// if the proof leaves windows of both scopes and each of them proved a
// count; else a scope is not to blame when the other's is more than twice
// as full.
func bindingScope(scope ThrottleScope, usr, app scopeView, uc, ac []int, now int64) ThrottleScope {
	u, a := usr.bindingRatio(uc, now), app.bindingRatio(ac, now)
	switch {
	case scope == ScopeUser && u < 1 && a >= 1:
		return ScopeApp
	case scope == ScopeApp && a < 1 && u >= 1:
		return ScopeUser
	case u >= 1 || a >= 1:
		return scope
	}
	if c, ok := cheaperScope(scope, usr, app, uc, ac, now); ok {
		return c
	}
	switch {
	case scope == ScopeUser && u >= 0 && u < bindingShare*a:
		return ScopeApp
	case scope == ScopeApp && a >= 0 && a < bindingShare*u:
		return ScopeUser
	}
	return scope
}

// cheaperScope is the scope whose wrong lowering costs less, when the
// counts proven to succeed leave windows of both scopes and every window
// they leave proved a count (a window that proved nothing may be anywhere
// under its count: fullness is asked then). The counts say nothing of
// which binds then, and fullness by believed limits is no better a guess,
// but the costs of a wrong guess differ, as between the windows of one
// scope (shortestLeft): a window lowered to its count lets nothing through
// until it slides, so the scope whose shortest window left is the shorter
// is blamed. At the same length the inference stands: a wrong app hour
// stops every user for the rest of the hour at once, a wrong user hour
// only the users that reach its count, and a user refused alone is more
// likely refused by its own scope (full-159: a user hour hidden at 135
// refused at 135, its highest count yet; the app hour, at 624 of 800 over
// the 616 it took, and far fuller by believed limits than the user's
// 135 of 400, was lowered, and every user idled 57 minutes).
func cheaperScope(scope ThrottleScope, usr, app scopeView, uc, ac []int, now int64) (ThrottleScope, bool) {
	su, ok := usr.shortestProven(uc, now)
	if !ok {
		return scope, false
	}
	sa, ok := app.shortestProven(ac, now)
	if !ok {
		return scope, false
	}
	switch {
	case su < sa:
		return ScopeUser, true
	case sa < su:
		return ScopeApp, true
	}
	return scope, true
}

// bindingShare: a scope whose fullest window holds under this share of
// what the other scope's fullest holds (each as a ratio of its limit) is
// not what refused a request, whatever the inference said.
const bindingShare = 0.5

// concScopes decides whose concurrency cap refused a request (10003)
// without a scope, from what was in flight when it was granted: a scope
// that recently let as many through at once, or held fewer than its
// floor, did not. When both could have, both are lowered: a wrong
// lowering is undone by the successes still in flight (adapted.prove),
// while lowering the wrong one alone would leave the one that binds
// refusing request after request.
func (l *Limiter) concScopes(usr, app scopeView, ls *lease, now int64) (user, appScope bool) {
	u := usr.concPlausible(ls.UserConc, ls.Slots, now)
	a := app.concPlausible(ls.AppConc, ls.Slots, now)
	if !u && !a {
		return true, true
	}
	return u, a
}

// failProbes reopens, with a doubled cooldown, the breakers ls probed.
// When the failure lowered a window (gated, it sends nothing more until
// its count falls under the new limit), the cooldown stops doubling at
// two base cooldowns: the window, not the breaker, then says when to try
// again, and a breaker doubling to MaxCooldown would stall the scope long
// after the window has drained to the real limit (a limit halved under a
// full hour window drains in a minute or two, probe by probe).
func (l *Limiter) failProbes(u *userState, ls *lease, now int64, reason string, lowered bool) {
	t := &l.st.Spec.Tuning
	limit := int64(t.MaxCooldown)
	if lowered {
		limit = min(limit, 2*int64(t.Cooldown))
	}
	if ls.AppProbe {
		l.st.App.Breaker.probeFailed(now, t, reason, limit)
	}
	if ls.UserProbe {
		u.Scope.Breaker.probeFailed(now, t, reason, limit)
	}
}

// infer blames a throttle without a scope: the app if another user was
// throttled within InferWindow, else the user.
func (l *Limiter) infer(user string, now int64) ThrottleScope {
	scope := ScopeUser
	for _, m := range l.st.Throttles {
		if m.User != user && now-m.At < int64(l.st.Spec.Tuning.InferWindow) {
			scope = ScopeApp
		}
	}
	l.st.Throttles = append(l.st.Throttles, throttleMark{user, now})
	return scope
}

// underReport reacts to a success without x-ms-throttle-limit-percentage
// from an upstream that sends it (state.Headers): upstream sends it from
// reportFrom of a limit on, so every window of both scopes held less than
// that, and a lowered window whose count says otherwise rises to the
// limit that share implies (scopeView.raise). Without it a limit that
// rose while the learned one kept every window under reportFrom of the
// new one was never seen: the rise probe does not go with headers, and no
// report comes (full-218: a user hour learned at 204 rose to 331 at
// 4h32m, and the users idled 27 to 58 minutes an hour).
func (l *Limiter) underReport(usr, app scopeView, userCount, appCount []int, last int, now int64) {
	usr.raise(plus(userCount, last), reportFrom, now)
	app.raise(plus(appCount, last), reportFrom, now)
}

// plus is counts with n more in each window: the windows' counts with the
// request a report came with.
func plus(counts []int, n int) []int {
	out := make([]int, len(counts))
	for i, c := range counts {
		out[i] = c + n
	}
	return out
}

// reportFrom is the share of a limit from which upstream sends
// x-ms-throttle-limit-percentage on a success.
const reportFrom = 0.8

// soft reacts to x-ms-throttle-limit-percentage on a success. With exact
// limits the model and upstream agree and nothing changes. When upstream
// reports the scope emptier than a lowered window of it (the percentage
// names the scope; without a scope it bounds both), that window rises
// (scopeView.raise). When upstream reports the scope fuller than the
// model counts it, the busiest window that can be to blame is lowered.
func (l *Limiter) soft(usr, app scopeView, userCount, appCount []int, last int, o Outcome, now int64) {
	uc, ac := plus(userCount, last), plus(appCount, last)
	v, counts := usr, uc
	switch o.Scope {
	case ScopeApp:
		v, counts = app, ac
	case ScopeUnknown:
		_, ur := usr.busiest(uc, now)
		if _, ar := app.busiest(ac, now); ar > ur {
			v, counts = app, ac
		}
	}
	if o.Scope == ScopeUnknown {
		usr.raise(uc, o.ThrottlePercent, now)
		app.raise(ac, o.ThrottlePercent, now)
	} else {
		v.raise(counts, o.ThrottlePercent, now)
	}
	if _, ratio := v.busiest(counts, now); o.ThrottlePercent <= ratio+0.02 {
		return
	}
	// The percentage is the fullest window's, and upstream does not say
	// which. A window whose implied limit is below the count it recently
	// let through is not the one: lowering it would ratchet it down with
	// every report another window's fill sends. A window the report fills
	// by the limit it was learned at before it crept back is lowered
	// first (relearned); otherwise the busiest of the others.
	w := v.relearned(counts, o.ThrottlePercent, now)
	if w < 0 {
		w = v.fullestUnproven(counts, o.ThrottlePercent, now)
	}
	if w < 0 {
		return
	}
	v.st.Limits[w].lower(v.spec.Windows[w].Limit, impliedLimit(counts[w], o.ThrottlePercent), v.t, now)
}

// fullestUnproven is the window (-1: none) that is fullest at counts by
// its believed limit among those whose limit a percentage report pct
// implies is not under the count it recently took.
func (v scopeView) fullestUnproven(counts []int, pct float64, now int64) int {
	w, best := -1, -1.0
	for x, c := range counts {
		a := v.st.Limits[x]
		if impliedLimit(c, pct) < a.proven(v.pers[x], now) {
			continue
		}
		if r := float64(c) / float64(v.believed(x, now)); r > best {
			w, best = x, r
		}
	}
	return w
}

// believed is the limit window w of the scope is believed to hold when a
// report is to name one of the scope's windows: its own effective limit,
// or what the other users learned of it when that is lower (table). One
// user table holds for every user, but a user's own windows learn only
// from its own throttles and reports, and a user arriving after the
// others learned a window starts from the spec: full-48's u06, its hour
// at 400 where the others had learned the hidden 120, was reported 100%
// at 50 of its minute (120) and 120 of its hour; by its own limits the
// minute looked fuller (50/120 over 120/400), took the report and was
// lowered to 50, then shared with every user at the throttle that
// followed, and four users idled 30 s a minute at 49 of a true 120.
func (v scopeView) believed(w int, now int64) int {
	n := v.st.Limits[w].limit(v.spec.Windows[w].Limit, v.t, now)
	if w < len(v.table) && v.table[w] > 0 {
		n = min(n, v.table[w])
	}
	return n
}

// tableLimits is, per user window, the highest level the users other
// than u learned the window at (adapted.Lowered, under the spec; 0: none
// did). The highest, so that one user's stale lowering does not speak
// for the table (a success above a lowering raises it); only those that
// learned it, since a user that never reached a window's limit knows
// nothing of it; the level learned, not the limit crept back from it
// since, which says only that nobody looked (small-129: the others'
// hours, learned at the hidden 193, had crept to 293 when a user
// arriving later was refused at 194 of its hour).
func (l *Limiter) tableLimits(u *userState) []int {
	out := make([]int, len(l.userPers))
	for _, x := range l.st.Users {
		if x == u {
			continue
		}
		for w := range out {
			a := x.Scope.Limits[w]
			spec := l.st.Spec.User.Windows[w].Limit
			if a.Lowered > 0 && a.Lowered < spec {
				out[w] = max(out[w], a.Lowered)
			}
		}
	}
	return out
}

// impliedLimit is the limit a window at count c has when a percentage
// report pct is its fill: c ÷ pct, or c from 100% on (nothing more leaves
// until a unit leaves the window).
func impliedLimit(c int, pct float64) int {
	if pct < 1 {
		return int(float64(c)/pct + 1e-9)
	}
	return c
}

// relearned is the shortest window of the scope (-1: none) that a
// percentage report pct at counts names by the limit it was learned at
// before: lowered (adapted.Lowered), crept back above that since,
// and at counts[w] as full of the lowering as reported (two points for
// rounding), with the implied limit not under what it recently took.
// Upstream most likely still holds it there, and the creep went too far.
// By believed limits such a window looks emptier than a longer one that
// never was lowered, and the longer one took the report: the app minute,
// learned at a hidden 135 and crept back to 240, filled again, and the
// report of its 100% lowered the app hour (true 800) to the 780 it held;
// the next report raised it only to 797, and every user idled 11 minutes
// for the hour to slide (full-191).
func (v scopeView) relearned(counts []int, pct float64, now int64) int {
	w := -1
	for x, c := range counts {
		a := v.st.Limits[x]
		spec := v.spec.Windows[x].Limit
		if a.Lowered == 0 || a.limit(spec, v.t, now) <= a.Lowered || float64(c)/float64(a.Lowered) < pct-0.02 {
			continue
		}
		if impliedLimit(c, pct) < a.proven(v.pers[x], now) {
			continue
		}
		if w < 0 || v.pers[x] < v.pers[w] {
			w = x
		}
	}
	return w
}
