package limiter

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// refHolds is computeHolds as the walk of every background candidate it
// was before holdIndex, but computing each user's counts at now (countAt)
// instead of advancing its log, so that it changes nothing the code under
// test reads: the active users with remaining work in the order they
// came, then those with a background lease, by lease; held, up to
// maxHeld, each that is progressing and whose own finish is positive and
// no sooner than the app's for the work of all of them.
func refHolds(l *Limiter, now int64) []*userState {
	var active []*userState
	for _, u := range l.active[Background] {
		if u != nil {
			active = append(active, u)
		}
	}
	if len(active) == 0 {
		return nil
	}
	seen := map[*userState]bool{}
	var cands []*userState
	add := func(u *userState) {
		if u == nil || seen[u] || u.Remaining == 0 {
			return
		}
		seen[u] = true
		cands = append(cands, u)
	}
	for _, u := range active {
		add(u)
	}
	for _, ls := range l.st.Leases {
		if ls.Lane == Background {
			add(l.users[ls.User])
		}
	}
	if len(cands) < 2 {
		return nil
	}
	sum := 0
	for _, u := range cands {
		sum += u.Remaining
	}
	t := &l.st.Spec.Tuning
	appFinish := windowsFinish(l.appPers, func(w int) int {
		return l.st.App.Limits[w].limit(l.st.Spec.App.Windows[w].Limit, t, now)
	}, func(w int) int { return l.st.App.Log.countAt(l.appPers[w], now) }, sum)
	var out []*userState
	half := (max(appFinish, 1) + 1) / 2
	var late *userState
	var lateF int64
	tied := false
	for _, u := range cands {
		f := windowsFinish(l.userPers, func(w int) int {
			return u.Scope.Limits[w].limit(l.st.Spec.User.Windows[w].Limit, t, now)
		}, func(w int) int { return u.Scope.Log.countAt(l.userPers[w], now) }, u.Remaining)
		if f >= half && (late == nil || f > lateF) {
			late, lateF, tied = u, f, false
		} else if f >= half && f == lateF {
			tied = true
		}
		if !l.progressing(u, now) {
			continue
		}
		if len(out) < maxHeld && f > 0 && f >= appFinish {
			out = append(out, u)
		}
	}
	if len(out) == 0 && late != nil && !tied && l.progressing(late, now) {
		lw := longest(l.userPers)
		lim := late.Scope.Limits[lw].limit(l.st.Spec.User.Windows[lw].Limit, t, now)
		n, per := late.Scope.Log.countAt(l.userPers[lw], now), l.userPers[lw]
		if n < lim && late.Scope.Log.countAt(per+l.keep, now) > n {
			out = append(out, late)
		}
	}
	return out
}

// holdSpec is randomSpec, with an app of up to 20 users' worth in a third
// of the specs, so that more users than maxHeld may qualify.
func holdSpec(r *rand.Rand) Spec {
	s := randomSpec(r)
	if r.IntN(3) == 0 {
		for i := range s.App.Windows {
			s.App.Windows[i].Limit = s.User.Windows[i].Limit * (8 + r.IntN(13))
		}
	}
	return s
}

// TestHoldsMatchScan drives limiters through random streams rich in
// remaining work (many users, random windows, both lanes, grants,
// releases that succeed, are throttled or expire, settles, cancels, idle
// gaps, spec changes and JSON round trips) and, at every step, checks
// that computeHolds holds the users refHolds does and that NextWakeup
// answers what refNextWakeup does.
func TestHoldsMatchScan(t *testing.T) {
	held, over, wakes := 0, 0, 0
	for seed := range uint64(60) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 33))
			s := newRandomStream(t, r, 3+r.IntN(40), 5, holdSpec)
			for step := range 2000 {
				s.step(t)
				l, now := s.l, s.now
				c := l.clock(now)
				want := holdIDs(refHolds(l, c))
				l.computeHolds(c)
				if got := holdIDs(l.holds.users); !slices.Equal(got, want) {
					t.Fatalf("step %d: computeHolds held %v, the scan %v", step, got, want)
				}
				held += len(want)
				if len(want) == maxHeld {
					over++
				}
				// Each side may advance logs the other reads: take
				// turns at going first.
				var gotW, wantW time.Time
				if step%2 == 0 {
					gotW, wantW = l.NextWakeup(now), refNextWakeup(l, now)
				} else {
					wantW, gotW = refNextWakeup(l, now), l.NextWakeup(now)
				}
				if !gotW.Equal(wantW) {
					t.Fatalf("step %d: NextWakeup %v, the scan %v", step, gotW.Sub(t0), wantW.Sub(t0))
				}
				if !wantW.IsZero() && wantW.After(now) {
					wakes++
				}
			}
		})
	}
	if held < 1000 || over < 10 || wakes < 1000 {
		t.Errorf("too few compared: %d users held, %d passes at maxHeld, %d wakeups later than now", held, over, wakes)
	}
	t.Logf("%d users held, %d passes at maxHeld, %d wakeups later than now", held, over, wakes)
}

// holdIDs is the sorted IDs of us.
func holdIDs(us []*userState) []string {
	var out []string
	for _, u := range us {
		out = append(out, u.ID)
	}
	slices.Sort(out)
	return out
}

// TestActiveKeepsOrder checks deactivate against the list search it
// replaced (kept here): over random streams of activations and
// deactivations, the active users, read without the places left nil, are
// the list the old code kept, in its order, and each knows its place.
func TestActiveKeepsOrder(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 34))
		l := mustNew(t, testSpec())
		us := make([]*userState, 2+r.IntN(200))
		for i := range us {
			us[i] = l.user(fmt.Sprint("u", i))
		}
		var ref [numLanes][]*userState
		for step := range 5000 {
			u, lane := us[r.IntN(len(us))], Lane(r.IntN(int(numLanes)))
			if r.IntN(2) == 0 {
				if !u.inAct[lane] {
					ref[lane] = append(ref[lane], u)
				}
				l.activate(u, lane)
			} else {
				if u.inAct[lane] {
					i := slices.Index(ref[lane], u)
					ref[lane] = append(ref[lane][:i], ref[lane][i+1:]...)
				}
				l.deactivate(u, lane)
			}
			for lane := range numLanes {
				var got []*userState
				for i, v := range l.active[lane] {
					if v != nil {
						got = append(got, v)
						if v.actPos[lane] != i {
							t.Fatalf("seed %d, step %d: %s at %d thinks it is at %d", seed, step, v.ID, i, v.actPos[lane])
						}
					}
				}
				if !slices.Equal(got, ref[lane]) || l.nAct[lane] != len(ref[lane]) {
					t.Fatalf("seed %d, step %d, lane %d: active %v (%d), the old list %v", seed, step, lane, holdIDs(got), l.nAct[lane], holdIDs(ref[lane]))
				}
				if len(l.active[lane]) > 2*len(ref[lane])+1 {
					t.Fatalf("seed %d, step %d: %d places for %d users", seed, step, len(l.active[lane]), len(ref[lane]))
				}
			}
		}
	}
}

// refNextWakeup is NextWakeup as it was before headsFreeAt and fgBack:
// every queued head weighed, and every user with background queued for
// its reserve and demand.
func refNextWakeup(l *Limiter, now time.Time) time.Time {
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
