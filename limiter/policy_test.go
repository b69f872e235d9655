package limiter

import (
	"fmt"
	"testing"
	"time"
)

// TestForegroundDemandReserve: beyond the base reserve, a window holds
// room only for foreground that came in each of the last two minutes (a
// rate, not one scan), and only as much as that rate will ask for before
// the window drains by itself (scopeView.demand). The hour here is 800
// (base reserve 20); the minute is too large to bind.
func TestForegroundDemandReserve(t *testing.T) {
	s := OneNote()
	s.User = ScopeSpec{Windows: []Window{{100000, Duration(time.Minute)}, {800, Duration(time.Hour)}}, Concurrency: 1000}
	s.App = s.User
	s.Tuning.ReserveIdle = Duration(4 * time.Hour)
	type step struct {
		at       time.Duration
		scan, bg int // foreground and background units asked for
		want     int // background granted at that time
		why      string
	}
	// evenHour is background filling the hour with n a minute, no scan.
	evenHour := func(n int) []step {
		var out []step
		for m := range 60 {
			out = append(out, step{time.Duration(m) * time.Minute, 0, n, n, "no scan yet: no reserve"})
		}
		return out
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"one scan holds the base reserve only", []step{
			// The old rule held the 3 a minute it implies for the hour, 177
			// more, for two minutes.
			{0, 3, 0, 0, "the scan"},
			{time.Second, 0, 1000, 777, "800 less the base 20 less the scan's 3"},
		}},
		{"scans every minute into an hour that will not drain hold the rate's shortfall", []step{
			{0, 3, 0, 0, "the first scan"},
			{time.Minute, 3, 0, 0, "the second: a rate"},
			// 3 a minute for the 59 minutes before the first scan leaves,
			// less the 3 of this minute: 174 held; 800-20-174-6 = 600.
			{time.Minute + time.Second, 0, 1000, 600, "held for the scans to come"},
			// No scan in the minute before: no rate; the room is back at
			// once (the old rule held it to 3 min).
			{2*time.Minute + time.Second, 0, 1000, 174, "released a minute after the last scan"},
		}},
		{"scans every minute while the hour drains faster hold nothing more", append(evenHour(13),
			// 13 a minute fill the hour evenly (767 by 59m); 13 leave each
			// minute from 60m on.
			step{time.Hour, 3, 13, 10, "a scan: the base reserve is held, 780 in all"},
			// A rate now, but the hour frees 13 a minute, more than the 3 a
			// minute the scans ask for: nothing held beyond the base
			// reserve. The old rule held 180 less the 6 scanned, and
			// background stopped at 606.
			step{time.Hour + time.Minute, 3, 13, 10, "a rate, with the hour draining faster"},
			step{time.Hour + time.Minute + time.Second, 0, 1000, 0, "the hour at 800 less the base 20"},
		)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, s)
			var q seq
			for _, st := range tc.steps {
				var rs []Request
				bg := map[string]bool{}
				for range st.scan {
					rs = append(rs, q.req("u", Foreground, 1))
				}
				for range st.bg {
					r := q.req("u", Background, 1)
					bg[r.ID] = true
					rs = append(rs, r)
				}
				got := 0
				for _, id := range drain(t, l, at(st.at), rs...) {
					if bg[id] {
						got++
					}
				}
				if got != st.want {
					t.Errorf("at %s: background granted %d, want %d (%s)", st.at, got, st.want, st.why)
				}
				for _, u := range l.st.Users {
					for _, r := range u.Queue[Background] {
						l.Cancel(r.ID)
					}
				}
			}
		})
	}
}

// TestProofUndoesALowering: a success granted before a lowering, at a
// count above the lowered limit, raises it at once, up to the lowest
// count throttled in the episode; a success granted after the lowering
// above it (the limit crept back) shows upstream takes that many now,
// and raises it to that count (TestNoRatchet shows the strike going).
func TestProofUndoesALowering(t *testing.T) {
	now := at(time.Hour).UnixNano()
	sec := int64(time.Second)
	per := int64(time.Minute)
	tests := []struct {
		name    string
		count   int
		granted int64
		want    int
	}{
		{"in flight at the throttle, above the lowering", 116, now - 2*sec, 116},
		{"above the count throttled: no higher than it", 125, now - 2*sec, 120},
		{"granted after the lowering, above it", 116, now, 116},
		{"granted after the lowering, at or under it", 108, now, 110},
		{"at or under the lowered limit", 105, now - 2*sec, 110},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := adapted{Lowered: 110, At: now - sec, Strikes: 1, Hit: 120, HitAt: now - sec}
			a.prove(tc.count, tc.granted, per, now)
			if a.Lowered != tc.want {
				t.Errorf("lowered limit %d, want %d", a.Lowered, tc.want)
			}
		})
	}
}

// TestLoweringKeepsTheProofUpToIt: after a lowering, the count proven
// before it lets the window off the blame no higher than the new limit
// (upstream may have lowered it), but up to it still does: a later
// throttle at a lower count is not taken as this window's. A second
// lowering within MaxCooldown of the last (a limit falling under a full
// window, walked down probe by probe) starts the proof again.
func TestLoweringKeepsTheProofUpToIt(t *testing.T) {
	tun := DefaultTuning()
	now := at(2 * time.Hour).UnixNano()
	tests := []struct {
		name string
		a    adapted
		want int
	}{
		{"first lowering: proof kept up to it", adapted{Proven: 780, ProvenAt: now - int64(time.Minute)}, 600},
		{"lowered an hour ago: proof kept up to it", adapted{Lowered: 700, At: now - int64(time.Hour), Strikes: 1, Proven: 700, ProvenAt: now - int64(time.Minute)}, 600},
		{"lowered a minute ago: the limit is falling, proof gone", adapted{Lowered: 700, At: now - int64(time.Minute), Strikes: 1, Proven: 700, ProvenAt: now - int64(time.Minute)}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := tc.a
			if !a.lower(800, 600, &tun, now) {
				t.Fatal("not lowered")
			}
			if p := a.proven(int64(time.Hour), now); p != tc.want {
				t.Errorf("proven %d after the lowering, want %d", p, tc.want)
			}
		})
	}
}

// TestBindingScope: a throttle without a scope goes to the scope whose
// window binds, or is more than twice as full, whatever the inference.
func TestBindingScope(t *testing.T) {
	now := at(time.Hour).UnixNano()
	tun := DefaultTuning()
	us, as := OneNote().User, OneNote().App
	tests := []struct {
		name     string
		user     [2]adapted
		app      [2]adapted
		uc, ac   []int
		inferred ThrottleScope
		want     ThrottleScope
	}{
		{"the app minute back at the level it was throttled at", [2]adapted{}, [2]adapted{{Lowered: 120, At: now, Hit: 120}, {}},
			[]int{27, 179}, []int{120, 797}, ScopeUser, ScopeApp},
		{"a user window at its level, several users throttled", [2]adapted{{Lowered: 60, At: now, Hit: 60}, {}}, [2]adapted{},
			[]int{60, 100}, []int{180, 500}, ScopeApp, ScopeUser},
		{"the app hour far fuller than the user's", [2]adapted{}, [2]adapted{},
			[]int{0, 150}, []int{5, 786}, ScopeUser, ScopeApp},
		{"comparable: the inference stands", [2]adapted{}, [2]adapted{},
			[]int{60, 200}, []int{200, 500}, ScopeUser, ScopeUser},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ust, ast := newScopeState(2), newScopeState(2)
			copy(ust.Limits, tc.user[:])
			copy(ast.Limits, tc.app[:])
			usr := scopeView{st: &ust, spec: &us, pers: pers(us.Windows), t: &tun}
			app := scopeView{st: &ast, spec: &as, pers: pers(as.Windows), t: &tun}
			if got := bindingScope(tc.inferred, usr, app, tc.uc, tc.ac, now); got != tc.want {
				t.Errorf("scope %v, want %v", got, tc.want)
			}
		})
	}
}

// TestConcurrencyBlameWithoutScope: a 10003 without a scope lowers the
// caps that could have refused it, judged by what was in flight; a user
// cap lowered holds for every user.
func TestConcurrencyBlameWithoutScope(t *testing.T) {
	refused := Outcome{Status: 429, Code: CodeConcurrency}
	t.Run("the user proved more at once: the app", func(t *testing.T) {
		l := mustNew(t, bigSpec())
		var q seq
		var five []Request
		for range 5 {
			five = append(five, q.req("a", Background, 1))
		}
		grantAll(t, l, at(0), five...)
		releaseAll(l, ok200, at(time.Second)) // a had 5 at once, the app 5
		var reqs []Request
		for _, u := range []string{"b", "b", "b", "c", "c", "c", "a", "a", "a", "a"} {
			reqs = append(reqs, q.req(u, Background, 1))
		}
		grantAll(t, l, at(2*time.Second), reqs...) // the app 10, a 4
		g, _ := l.Lease(reqs[9].ID)
		l.Release(g.LeaseID, refused, at(3*time.Second))
		st := l.State(at(3 * time.Second))
		if st.App.EffectiveConcurrency != 9 {
			t.Errorf("app concurrency %d, want 9 (what was in flight)", st.App.EffectiveConcurrency)
		}
		for _, u := range st.Users {
			if u.EffectiveConcurrency != 10 {
				t.Errorf("user %s concurrency %d, want 10 (a proved 5)", u.User, u.EffectiveConcurrency)
			}
		}
	})
	t.Run("a user cap holds for every user", func(t *testing.T) {
		l := mustNew(t, bigSpec())
		var q seq
		var reqs []Request
		for _, u := range []string{"b", "a", "a", "a", "a"} {
			reqs = append(reqs, q.req(u, Background, 1))
		}
		grantAll(t, l, at(0), reqs...)
		g, _ := l.Lease(reqs[4].ID)
		l.Release(g.LeaseID, Outcome{Status: 429, Code: CodeConcurrency, Scope: ScopeUser}, at(time.Second))
		for _, u := range l.State(at(time.Second)).Users {
			if u.EffectiveConcurrency != 3 {
				t.Errorf("user %s concurrency %d, want 3 (a refused with 3 in flight)", u.User, u.EffectiveConcurrency)
			}
		}
	})
}

// TestFailedProbeThatLoweredAWindow: the breaker's cooldown stops doubling
// at two cooldowns when the failed probe lowered a window, and doubles to
// MaxCooldown when it did not.
func TestFailedProbeThatLoweredAWindow(t *testing.T) {
	tun := DefaultTuning()
	cool := int64(tun.Cooldown)
	for _, lowered := range []bool{true, false} {
		var b breaker
		b.trip(0, &tun, "throttled")
		limit := int64(tun.MaxCooldown)
		if lowered {
			limit = 2 * cool
		}
		for i := range 4 {
			b.probeFailed(int64(i+1)*int64(time.Minute), &tun, "throttled", limit)
		}
		want := 16 * cool
		if lowered {
			want = 2 * cool
		}
		if b.Cooldown != want {
			t.Errorf("lowered %v: cooldown %s after four failed probes, want %s", lowered, time.Duration(b.Cooldown), time.Duration(want))
		}
	}
}

// TestRollingLogPeak checks peak against a count of every interval.
func TestRollingLogPeak(t *testing.T) {
	var g rollingLog
	g.reset(1)
	sec := int64(time.Second)
	for _, at := range []int64{1, 2, 3, 10, 30, 31, 50} {
		g.add(at*sec, 1)
	}
	// Entries are at whole seconds: every interval end in (now-hold, now]
	// counts as one of the half and whole seconds there.
	brute := func(per, hold, now int64) int {
		best := 0
		for end := (now-hold)*sec + sec/2; end <= now*sec; end += sec / 2 {
			n := 0
			for _, e := range g.entries {
				if e.at > end-per*sec && e.at <= end {
					n++
				}
			}
			best = max(best, n)
		}
		return best
	}
	for _, per := range []int64{1, 5, 10, 30, 100} {
		for _, hold := range []int64{1, 5, 10, 30, 60} {
			for _, now := range []int64{10, 11, 31, 45, 60} {
				if got, want := g.peak(per*sec, hold*sec, now*sec), brute(per, hold, now); got != want {
					t.Errorf("peak(per %ds, hold %ds, now %ds) = %d, want %d", per, hold, now, got, want)
				}
			}
		}
	}
}

// TestScanFollowOnIsNotARate: a scan's next request, asked when its last
// is released, is logged in the foreground demand when it would have
// come had the scan been granted at once (Limiter.fgOrigin), so the
// queue's delay does not make one burst look like a rate. Background
// filled the hour at 0 before any foreground (no reserve held); 17 scans
// of 2 requests come at 59m30s and wait for the hour to slide at 60m;
// their second requests come when the first are released.
func TestScanFollowOnIsNotARate(t *testing.T) {
	s := OneNote()
	s.User = ScopeSpec{Windows: []Window{{100000, Duration(time.Minute)}, {800, Duration(time.Hour)}}, Concurrency: 1000}
	s.App = s.User
	s.Tuning.ReserveIdle = Duration(4 * time.Hour)
	tests := []struct {
		name    string
		wait    time.Duration // when the hour frees after the scans come
		second  time.Duration // after the first requests' grant: the second requests
		at      time.Duration // background asks, after the scans come
		want    int           // background granted
		wantWhy string
	}{
		// The scans' two requests came over 75 s, across two minutes: the
		// old log held half the hour (a rate of 17 a minute), 366.
		{"a burst that waited for the hour is one burst", 30 * time.Second, 100 * time.Millisecond, 75 * time.Second, 746,
			"800 less the base 20 less the 34 scanned"},
		// Granted at once, the second requests 61 s later are a rate.
		{"scans granted at once a minute apart are a rate", 0, 61 * time.Second, 75 * time.Second, 366,
			"half the hour held for 17 a minute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, s)
			var q seq
			var bg []Request
			for range 800 {
				bg = append(bg, q.req("m", Background, 1))
			}
			if got := len(drain(t, l, at(0), bg...)); got != 800 {
				t.Fatalf("background filled %d of the hour, want 800", got)
			}
			come := time.Hour - 30*time.Second
			if tc.wait == 0 {
				// Room for the scans at once: the hour filled 30 s later.
				l = mustNew(t, s)
				if got := len(drain(t, l, at(30*time.Second), bg...)); got != 800 {
					t.Fatalf("background filled %d of the hour, want 800", got)
				}
				come = time.Hour + 30*time.Second
			}
			var first, second []Request
			for i := range 17 {
				first = append(first, q.req(fmt.Sprintf("s%02d", i), Foreground, 1))
				second = append(second, q.req(fmt.Sprintf("s%02d", i), Foreground, 1))
			}
			grantAll(t, l, at(come), first...)
			drain(t, l, at(come+tc.wait))
			releaseAll(l, ok200, at(come+tc.wait+100*time.Millisecond))
			if got := len(drain(t, l, at(come+tc.wait+tc.second), second...)); got != 17 {
				t.Fatalf("%d second requests granted, want 17", got)
			}
			var more []Request
			for range 1000 {
				more = append(more, q.req("m", Background, 1))
			}
			if got := len(drain(t, l, at(come+tc.at), more...)); got != tc.want {
				t.Errorf("background granted %d, want %d (%s)", got, tc.want, tc.wantWhy)
			}
		})
	}
}
