package limiter

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// refPick is pick as a straightforward scan of every queued user (the
// code before order): in the background lane a held user first, then the
// most work left; then the least usage in the longest user window, ties
// to the earliest queued head; users marked blocked in this round skipped.
func refPick(l *Limiter, lane Lane, now int64) *userState {
	var best *userState
	var bestLeft, bestUse int
	var bestHeld bool
	var bestSeq uint64
	long := longest(l.userPers)
	for _, u := range l.active[lane] {
		if u == nil || u.mark[lane] == l.round {
			continue
		}
		left, held := 0, false
		if lane == Background {
			left, held = u.Remaining, l.holds.has(u)
		}
		u.Scope.Log.advance(l.userPers, now)
		use, seq := u.Scope.Log.count(long), u.Queue[lane][0].Seq
		better := left > bestLeft || (left == bestLeft && (use < bestUse || (use == bestUse && seq < bestSeq)))
		if best == nil || (held && !bestHeld) || (held == bestHeld && better) {
			best, bestLeft, bestUse, bestHeld, bestSeq = u, left, use, held, seq
		}
	}
	return best
}

// randomSpec is a spec of one to three user windows of random lengths and
// limits, an app of a few users' worth, and a foreground reserve.
func randomSpec(r *rand.Rand) Spec {
	pers := []time.Duration{5 * time.Second, 10 * time.Second, time.Minute, 5 * time.Minute, time.Hour}
	r.Shuffle(len(pers), func(i, j int) { pers[i], pers[j] = pers[j], pers[i] })
	var s Spec
	s.Name = "random"
	for _, p := range pers[:1+r.IntN(3)] {
		lim := 3 + r.IntN(40)
		s.User.Windows = append(s.User.Windows, Window{lim, Duration(p)})
		s.App.Windows = append(s.App.Windows, Window{lim * (2 + r.IntN(6)), Duration(p)})
	}
	s.User.Concurrency, s.App.Concurrency = 1+r.IntN(4), 4+r.IntN(12)
	s.Tuning.Reserve = 0.05
	s.Tuning.LeaseTTL = Duration(30 * time.Second)
	return s
}

// TestPickMatchesScan drives limiters through random request streams
// (many users, random windows, both lanes, reported remaining work,
// cancels, settles, spec changes and JSON round trips) and, at every
// step, runs a decision pass by hand in which order's pick must choose
// the user the scan chooses, also after grants and blocked users within
// the pass.
func TestPickMatchesScan(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 32))
			s := newRandomStream(t, r, 5+r.IntN(60), 2, randomSpec)
			checks := 0
			for step := range 1500 {
				s.step(t)
				l, now := s.l, s.now
				checks += checkPass(t, l, r, l.clock(now), step)
			}
			if checks < 100 {
				t.Errorf("only %d picks compared", checks)
			}
		})
	}
}

// checkPass runs one decision pass by hand, as decide does it: per lane,
// pick, then either mark the user blocked or grant its head, until the
// lane has no user left; each pick is compared with refPick.
func checkPass(t *testing.T, l *Limiter, r *rand.Rand, now int64, step int) int {
	t.Helper()
	defer l.orderUnpark()
	checks := 0
	for lane := range numLanes {
		l.round++
		if lane == Background {
			l.computeHolds(now)
		}
		for range 8 {
			got := l.pick(lane, now)
			want := refPick(l, lane, now)
			checks++
			if got != want {
				t.Fatalf("step %d, lane %d: pick chose %s, the scan %s", step, lane, id(got), id(want))
			}
			if got == nil {
				break
			}
			if r.IntN(2) == 0 {
				got.mark[lane] = l.round
				if lane == Foreground {
					got.mark[Background] = l.round + 1
				}
				continue
			}
			if r.IntN(4) == 0 {
				l.grantHead(got, lane, 1, now)
			}
			break
		}
	}
	l.round++
	return checks
}

func id(u *userState) string {
	if u == nil {
		return "nobody"
	}
	return u.ID
}
