package limiter

import (
	"testing"
	"time"
)

// TestHolds checks the app room held for a user whose own windows finish
// no sooner than the app's: user 3 per 10 s and 5 a minute, app 4 per
// 10 s and 8 a minute. User a asks for one request at a time (its others
// are in flight); b asks for three at once.
func TestHolds(t *testing.T) {
	tests := []struct {
		name         string
		leftA, leftB int
		aAsks        bool
		wantB        int
	}{
		// a: 9 left fill its minute once before the last (60 s), as the
		// app's 12 fill its minute (60 s): a is held its 10 s room (2
		// after its grant), so b gets one of the app's 4.
		{"a bound by its own windows: b leaves a's room", 9, 3, true, 1},
		// a: 3 left fit its windows now: nothing is held, b takes its
		// own 3 of the app's 4.
		{"nobody past the app's finish: nothing held", 3, 3, true, 3},
		// a reported 9 left but asks for nothing and has nothing in
		// flight: it holds nothing.
		{"a quiet user holds nothing", 9, 3, false, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			var s seq
			var reqs []Request
			if tc.aAsks {
				ra := s.req("a", Background, 1)
				ra.Remaining = tc.leftA
				reqs = append(reqs, ra)
			}
			for range 3 {
				rb := s.req("b", Background, 1)
				rb.Remaining = tc.leftB
				reqs = append(reqs, rb)
			}
			if !tc.aAsks {
				// a's report, granted and done long ago.
				ra := s.req("a", Background, 1)
				ra.Remaining = tc.leftA + 1
				drain(t, l, at(-time.Hour), ra)
			}
			got := map[byte]int{}
			for _, id := range grantAll(t, l, at(0), reqs...) {
				for _, r := range reqs {
					if r.ID == id {
						got[r.User[0]]++
					}
				}
			}
			if got['b'] != tc.wantB {
				t.Errorf("b granted %d, want %d (a granted %d)", got['b'], tc.wantB, got['a'])
			}
			if tc.aAsks && got['a'] != 1 {
				t.Errorf("a granted %d, want its one request", got['a'])
			}
		})
	}
}

// TestShareLowering checks that a user window lowered by one user's
// throttle is lowered for every user: the spec has one user table.
func TestShareLowering(t *testing.T) {
	l := mustNew(t, rateBound())
	var s seq
	drain(t, l, at(0), s.req("b", Background, 1)) // b is known
	a1, a2 := s.req("a", Background, 1), s.req("a", Background, 1)
	if got := grantAll(t, l, at(time.Minute), a1, a2); len(got) != 2 {
		t.Fatalf("granted %v, want both", got)
	}
	g1, _ := l.Lease(a1.ID)
	g2, _ := l.Lease(a2.ID)
	l.Release(g1.LeaseID, ok200, at(time.Minute+time.Second))
	l.Release(g2.LeaseID, Outcome{Status: 429, Code: CodeThrottled, Scope: ScopeUser}, at(time.Minute+time.Second))
	st := l.State(at(time.Minute + 2*time.Second))
	var a, b UserUsage
	for _, u := range st.Users {
		switch u.User {
		case "a":
			a = u
		case "b":
			b = u
		}
	}
	lowered := false
	for w := range a.Windows {
		if a.Windows[w].Effective < a.Windows[w].Limit {
			lowered = true
		}
		if b.Windows[w].Effective != a.Windows[w].Effective {
			t.Errorf("window %d: b's effective limit %d, a's %d; want the same", w, b.Windows[w].Effective, a.Windows[w].Effective)
		}
	}
	if !lowered {
		t.Fatal("the throttle lowered none of a's windows")
	}
}

// TestHoldsBoundByLongerWindows checks that the app room held for a user
// in a window is no more than what its longer windows leave it: user 3
// per 10 s and 5 a minute, app 4 per 10 s and 8 a minute. User a (9
// left, so held) took some of its minute 50 s ago and one request 20 s
// ago, still in flight, and asks for one more now; b asks for three.
// Before, a's 10-second room (2 after its grant) was held of the app's
// 10 s even when a's minute, full after its grant, let it use none of
// it: b got one request. With a minute and an hour, every other user
// idled for the rest of the minute while the app's minute had room and
// the held user's hour had none (small-27: 54 s). a's request in flight
// is counted in the app's 10 s as if sent now (it may be sent any time
// before its lease ends: Limiter.keepOpen), so b's room is 4 - 2.
func TestHoldsBoundByLongerWindows(t *testing.T) {
	tests := []struct {
		name  string
		early int // a's requests granted 50 s before, done
		wantB int
	}{
		{"a's minute leaves it none of its 10 s room: nothing held", 3, 2},
		{"a's minute leaves it its 10 s room: that is held", 0, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			var s seq
			ask := s.left
			var early []Request
			for range tc.early {
				early = append(early, ask("a", 10))
			}
			drain(t, l, at(10*time.Second), early...)
			if got := grantAll(t, l, at(40*time.Second), ask("a", 10)); len(got) != 1 {
				t.Fatalf("granted %v 20 s before, want a's one", got)
			}
			reqs := []Request{ask("a", 9), ask("b", 3), ask("b", 3), ask("b", 3)}
			got := grantedByUser(t, l, at(time.Minute), reqs...)
			if got['a'] != 1 {
				t.Errorf("a granted %d, want its one request", got['a'])
			}
			if got['b'] != tc.wantB {
				t.Errorf("b granted %d, want %d", got['b'], tc.wantB)
			}
		})
	}
}

// TestHoldsStarvedLargest checks the room held for the user whose own
// finish is later than every other's when nobody's reaches the app's: user 3 per 10 s and
// 5 a minute, app 4 per 10 s and 8 a minute. a has 14 left (its own
// finish 2 min), b and c 9 each (1 min): the app's 32, with 4 of its
// minute used 50 s ago, finish in 4 min, so nobody is held the usual
// way. a asks for one request, b and c for three each. Before, b took
// the app minute's last 3 while a, with the most work, had used none of
// its minute (full-162: the user with 13,162 requests got 57 to 220 an
// hour of its 279 for 18 h, then alone took 9 h more, 1.19x).
func TestHoldsStarvedLargest(t *testing.T) {
	tests := []struct {
		name         string
		leftA, leftB int
		leftC        int
		aEarly       int // a's requests 50 s before (the rest of the 4 are d's and e's)
		wantB        int // granted to b and c
	}{
		// a's own finish reaches half the app's and it used none of
		// its minute: its minute's room after its grant is 4, of which
		// its 10 s allows 2 before the app's minute frees d's and e's
		// 4 units (at 70 s): 2 of the app minute's 3 left are held, and
		// b gets 1.
		{"the largest user under half its limit: its room held", 14, 9, 9, 0, 1},
		// a has used 3 of its minute, under its 5: its room after its
		// grant (1) is held of the app minute's 3 left, and b and c
		// get 2.
		{"the largest user under its limit: its room held", 14, 9, 9, 3, 2},
		// a's own finish (1 min) is under half the app's (3 min):
		// nothing held.
		{"nobody's finish reaches half the app's: nothing held", 10, 9, 9, 0, 3},
		// a and b both 14 (2 min), c 1: the app's 29 and 4 finish in
		// 4 min; neither finishes after the other: nothing held, and
		// a's one grant leaves b the app's 10 s (3).
		{"two users finish last together: nothing held", 14, 14, 1, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			var s seq
			ask := s.left
			// a began a minute before: a user is held early only after
			// a whole window of its work.
			drain(t, l, at(0), ask("a", tc.leftA+tc.aEarly+1))
			// a began a minute before: a user is held early only after
			// a whole window of its work.
			drain(t, l, at(0), ask("a", tc.leftA+tc.aEarly+1))
			var early []Request
			for range tc.aEarly {
				early = append(early, ask("a", tc.leftA+3))
			}
			for i := range 4 - tc.aEarly {
				early = append(early, s.req([]string{"d", "e"}[i%2], Background, 1))
			}
			drain(t, l, at(10*time.Second), early...)
			reqs := []Request{ask("a", tc.leftA)}
			for range 3 {
				reqs = append(reqs, ask("b", tc.leftB), ask("c", tc.leftC))
			}
			got := grantedByUser(t, l, at(time.Minute), reqs...)
			if got['a'] != 1 {
				t.Errorf("a granted %d, want its one request", got['a'])
			}
			if got['b']+got['c'] != tc.wantB {
				t.Errorf("b and c granted %d, want %d", got['b']+got['c'], tc.wantB)
			}
		})
	}
}

// TestHoldsWaitingForRoom checks that a held user whose next request
// waits for nothing but room keeps its hold once a cooldown (10 s) has
// passed since its last grant: user 3 per 10 s and 5 a minute, app 4 per
// 10 s and 8 a minute. a (9 left: its own finish 2 min, the app's 1 min)
// took its 10 s (3) at 0 and asks for one more at 11 s, when its 10 s
// has slid; b asks for three. Held, a keeps its room after its grant (1,
// all its minute leaves it) of the app's 10 s, so b gets 2 of the 3 a's
// grant leaves. Before, a counted as stopped at 11 s (nothing in flight,
// no grant for a cooldown), held nothing in the pass that granted it,
// and b took the app's room: a held user bound by its minute lost its
// hold every time its minute slid (full-36: 339 of its hour's 400 at
// the app hour's refill, then an hour more for its last 45, 1.12x). A
// user stopped by its breaker, or whose retry waits for the retry
// budget, holds nothing: b gets 3.
func TestHoldsWaitingForRoom(t *testing.T) {
	tests := []struct {
		name string
		// a's third request throttled at 2 s (its breaker open until
		// 12 s) and asked again as a retry, at the time given.
		throttled bool
		at        time.Duration
		noBudget  bool // under one retry token, one retry a minute, c's at 12 s
		wantA     int
		wantB     int
	}{
		{"a waits for room only: its room held", false, 11 * time.Second, false, 1, 2},
		{"a's breaker holds it: nothing held", true, 11 * time.Second, false, 0, 3},
		{"a's retry waits for the retry budget: nothing held", true, 13 * time.Second, true, 0, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := rateBound()
			if tc.noBudget {
				sp.Tuning.RetryBurst, sp.Tuning.RetryProbeEvery = 0.5, Duration(time.Minute)
			}
			l := mustNew(t, sp)
			var s seq
			ask := s.left
			first := []Request{ask("a", 12), ask("a", 11), ask("a", 10)}
			if got := grantAll(t, l, at(0), first...); len(got) != 3 {
				t.Fatalf("granted %v at 0, want a's 3", got)
			}
			for i, r := range first {
				g, _ := l.Lease(r.ID)
				o := ok200
				if tc.throttled && i == 2 {
					o = Outcome{Status: 429, Code: CodeThrottled, Scope: ScopeUser}
				}
				l.Release(g.LeaseID, o, at(2*time.Second))
			}
			if tc.noBudget {
				c := s.req("c", Background, 1)
				c.Attempt = 1
				if got := drain(t, l, at(12*time.Second), c); len(got) != 1 {
					t.Fatalf("granted %v at 12 s, want c's retry", got)
				}
			}
			a := ask("a", 9)
			if tc.throttled {
				a = first[2]
				a.ID, a.Attempt = "retry", 1
			}
			reqs := []Request{a, ask("b", 3), ask("b", 3), ask("b", 3)}
			got := grantedByUser(t, l, at(tc.at), reqs...)
			if got['a'] != tc.wantA {
				t.Errorf("a granted %d, want %d", got['a'], tc.wantA)
			}
			if got['b'] != tc.wantB {
				t.Errorf("b granted %d, want %d", got['b'], tc.wantB)
			}
		})
	}
}

// TestHoldsBackgroundRoom checks that the room held for a user is what
// its background may still use: its windows' limits less the reserve
// its own foreground keeps. User 3 per 10 s and 5 a minute, app 4 per
// 10 s and 8 a minute, 10 at once, the 2.5% reserve (1 of each window
// once the scope saw foreground). a took one request at 0, two at 11 s
// and one at 22 s (in flight), and asks for one more at 25 s with 9
// left (its own finish 2 min, the app's 1 min: held); b asks for three.
// When a's first request was foreground, a's minute (4 of 5) is full for
// its background: nothing of it is held and b gets the 2 the app's
// 10 s leaves its background (4 less 1 counted, less 1 reserve). Before,
// a's minute held its last unit (its limit, not its background's, less
// its count) of the app's 10 s and minute while a could not use it, and
// b got 1: a held user under its hour's limit by its reserve held that
// room of the app's windows, and the others idled (full-9: 10 of the
// app's minute held while it had 6 left, two users idle 47 s). With no
// foreground, a's last unit is its background's: a takes it, and b the
// app's 2 left.
func TestHoldsBackgroundRoom(t *testing.T) {
	tests := []struct {
		name  string
		first Lane // a's request at 0
		wantA int
		wantB int
	}{
		{"a's minute full for its background: nothing held", Foreground, 0, 2},
		{"a's minute has a unit for its background: a takes it", Background, 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := testSpec()
			sp.User.Concurrency, sp.App.Concurrency = 10, 10
			sp.Tuning.Reserve = 0.025
			l := mustNew(t, sp)
			var s seq
			ask := s.left
			first := s.req("a", tc.first, 1)
			if tc.first == Background {
				first.Remaining = 13
			}
			if got := drain(t, l, at(0), first); len(got) != 1 {
				t.Fatalf("granted %v at 0, want a's first", got)
			}
			if got := drain(t, l, at(11*time.Second), ask("a", 12), ask("a", 11)); len(got) != 2 {
				t.Fatalf("granted %v at 11 s, want a's 2", got)
			}
			if got := grantAll(t, l, at(22*time.Second), ask("a", 10)); len(got) != 1 {
				t.Fatalf("granted %v at 22 s, want a's 1", got)
			}
			reqs := []Request{ask("a", 9), ask("b", 3), ask("b", 3), ask("b", 3)}
			got := grantedByUser(t, l, at(25*time.Second), reqs...)
			if got['a'] != tc.wantA {
				t.Errorf("a granted %d, want %d", got['a'], tc.wantA)
			}
			if got['b'] != tc.wantB {
				t.Errorf("b granted %d, want %d", got['b'], tc.wantB)
			}
		})
	}
}

// TestEarlyRoomPaced checks that the room held for a user held early is
// what it could send before the app's window frees more, not its whole
// room: user 3 per 10 s and 5 a minute, app 10 per 10 s and 12 a minute.
// d and e take 6 early; a takes 3 at 55 s (its 10 s full until 65 s, 2
// left of its minute). At 60 s a asks one more (10 left: its own finish
// 2 min, the app's 3: held early), and b and c 3 each, with the app's
// minute at 9 of 12.
func TestEarlyRoomPaced(t *testing.T) {
	tests := []struct {
		name  string
		early time.Duration // when d and e took their 6
		wantB int           // granted to b and c at 60 s
	}{
		// d's and e's units leave the app's minute at 64 s, before a's
		// 10 s frees (65 s): the app frees more than a can take, and
		// nothing is held.
		{"the app's window frees first: nothing held", 4 * time.Second, 3},
		// They leave at 70 s: a can send its 2 at 65 s, before, so both
		// are held.
		{"the user's window frees first: its room held", 10 * time.Second, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := rateBound()
			sp.App.Windows = []Window{{10, Duration(10 * time.Second)}, {12, Duration(time.Minute)}}
			sp.User.Concurrency, sp.App.Concurrency = 20, 20
			l := mustNew(t, sp)
			var s seq
			drain(t, l, at(0), s.left("a", 14)) // a began a minute before
			var early []Request
			for range 3 {
				early = append(early, s.req("d", Background, 1), s.req("e", Background, 1))
			}
			if got := drain(t, l, at(tc.early), early...); len(got) != 6 {
				t.Fatalf("d and e granted %d, want 6", len(got))
			}
			var own []Request
			for range 3 {
				own = append(own, s.left("a", 13))
			}
			if got := drain(t, l, at(55*time.Second), own...); len(got) != 3 {
				t.Fatalf("a granted %d at 55 s, want 3", len(got))
			}
			reqs := []Request{s.left("a", 10)}
			for range 3 {
				reqs = append(reqs, s.left("b", 9), s.left("c", 9))
			}
			got := grantedByUser(t, l, at(time.Minute), reqs...)
			if got['a'] != 0 {
				t.Errorf("a granted %d, want none (its 10 s is full)", got['a'])
			}
			if got['b']+got['c'] != tc.wantB {
				t.Errorf("b and c granted %d, want %d", got['b']+got['c'], tc.wantB)
			}
			if h := l.State(at(time.Minute)).HeldFor; len(h) != 1 || h[0] != "a" {
				t.Errorf("held for %v, want [a]", h)
			}
		})
	}
}
