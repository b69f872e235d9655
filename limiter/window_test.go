package limiter

import (
	"slices"
	"testing"
	"time"
)

func TestRollingWindowEdges(t *testing.T) {
	// User window 3 per 10 s: 3 at t=0 are admitted, a 4th is refused
	// until exactly t=10s, when the oldest leaves.
	l := mustNew(t, noReserve(testSpec()))
	var s seq
	got := grantAll(t, l, at(0), s.req("u", Background, 1), s.req("u", Background, 1))
	releaseAll(l, ok200, at(0))
	got = append(got, grantAll(t, l, at(time.Second), s.req("u", Background, 1), s.req("u", Background, 1))...)
	releaseAll(l, ok200, at(time.Second))
	if want := []string{"r1", "r2", "r3"}; !slices.Equal(got, want) {
		t.Fatalf("granted %v, want %v", got, want)
	}
	tests := []struct {
		at   time.Duration
		want int
	}{
		{5 * time.Second, 0},
		{10*time.Second - 1, 0},
		{10 * time.Second, 1}, // r1, r2 stamped at 0 leave now: room for r4 only (one queued)
	}
	for _, tc := range tests {
		if n := len(l.Grant(at(tc.at))); n != tc.want {
			t.Fatalf("at %s granted %d, want %d", tc.at, n, tc.want)
		}
	}
	if w := l.NextWakeup(at(10 * time.Second)); !w.IsZero() {
		t.Errorf("NextWakeup with empty queue = %v, want zero", w)
	}
}

func TestHourWindowBindsAfterMinute(t *testing.T) {
	// 5 per minute on the user also binds: after 3 at 0 and 2 at 10 s,
	// the next is admitted at 60 s (when the first stamps leave the minute).
	l := mustNew(t, noReserve(testSpec()))
	var s seq
	for _, tc := range []struct {
		at   time.Duration
		n    int
		want int
	}{
		{0, 3, 3}, {10 * time.Second, 3, 2}, {20 * time.Second, 0, 0}, {59 * time.Second, 0, 0}, {60 * time.Second, 0, 1},
	} {
		var reqs []Request
		for range tc.n {
			reqs = append(reqs, s.req("u", Background, 1))
		}
		got := drain(t, l, at(tc.at), reqs...)
		if len(got) != tc.want {
			t.Fatalf("at %s granted %d, want %d", tc.at, len(got), tc.want)
		}
	}
}

func TestCostK(t *testing.T) {
	tests := []struct {
		name  string
		costs []int
		want  int // granted at t=0
	}{
		{"batch fills the window", []int{3}, 1},
		{"batch does not fit behind one", []int{1, 3}, 1},
		{"two small then one", []int{2, 1}, 2},
		{"over the window", []int{2, 2}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, noReserve(testSpec()))
			var s seq
			var reqs []Request
			for _, c := range tc.costs {
				reqs = append(reqs, s.req("u", Background, c))
			}
			if got := grantAll(t, l, at(0), reqs...); len(got) != tc.want {
				t.Fatalf("granted %v, want %d", got, tc.want)
			}
		})
	}
	l := mustNew(t, noReserve(testSpec()))
	if err := l.Enqueue(Request{ID: "big", User: "u", Cost: 4}, at(0)); err == nil {
		t.Error("cost above every window accepted")
	}
}

func TestLeasesAndExpiry(t *testing.T) {
	// Concurrency 2 per user: a third waits for a release or a lease expiry;
	// rate units stay spent after expiry.
	l := mustNew(t, noReserve(testSpec()))
	var s seq
	got := grantAll(t, l, at(0), s.req("u", Background, 1), s.req("u", Background, 1), s.req("u", Background, 1))
	if len(got) != 2 {
		t.Fatalf("granted %v, want 2 (concurrency cap)", got)
	}
	if w := l.NextWakeup(at(time.Second)); !w.Equal(at(30 * time.Second)) {
		t.Errorf("NextWakeup = %v, want lease expiry %v", w, at(30*time.Second))
	}
	if n := len(l.Grant(at(29 * time.Second))); n != 0 {
		t.Fatalf("granted %d before expiry", n)
	}
	if n := len(l.Expire(at(30 * time.Second))); n != 2 {
		t.Fatalf("expired %d leases, want 2", n)
	}
	if got := l.Grant(at(30 * time.Second)); len(got) != 1 {
		t.Fatalf("after expiry granted %d, want 1", len(got))
	}
	st := l.State(at(30 * time.Second))
	if used := st.Users[0].Windows[1].Used; used != 3 {
		t.Errorf("minute window used = %d, want 3 (expired leases keep their units)", used)
	}
	// A release frees the slot at once.
	g := st.Leases[0]
	if !l.Release(g.LeaseID, ok200, at(31*time.Second)) {
		t.Fatal("release of a live lease reported false")
	}
	if l.Release(g.LeaseID, ok200, at(31*time.Second)) {
		t.Error("duplicate release reported true")
	}
	if st := l.State(at(31 * time.Second)); st.Users[0].InFlight != 0 || st.App.InFlight != 0 {
		t.Errorf("in flight after release: user %d app %d", st.Users[0].InFlight, st.App.InFlight)
	}
}

// TestShortfall: the room a window holds for a foreground rate is the
// most the rate asks for before the window's own units leave to make the
// room (rollingLog.shortfall), with the minute the rate's period, and no
// more than the foreground seen over the last span minutes asks for at
// its pace. The cases with a span fail on the code before the pace,
// which expected the peak minute's rate in every minute of the hour
// (full-121: 17 scans at once held 287 of the app hour's 574).
func TestShortfall(t *testing.T) {
	minute := int64(time.Minute)
	hour := 60 * minute
	now := 2 * hour
	tests := []struct {
		name       string
		entries    []stamp // in time order
		rate, here int
		seen       int   // foreground seen over the last span minutes
		span       int64 // 0: the rate alone
		want       int
	}{
		{"an empty hour: the rate for an hour", nil, 3, 0, 0, 0, 180},
		{"an empty hour, this minute's scan here", nil, 3, 3, 0, 0, 177},
		// Background filled the hour just now: nothing leaves for an hour.
		{"an hour filled at once just now", []stamp{{now - time.Second.Nanoseconds(), 700}}, 3, 0, 0, 0, 180},
		// 13 a minute over the last hour: 13 leave each minute, more than
		// the 3 asked for.
		{"an hour filled evenly, draining faster than the rate", evenly(now, hour, 13), 3, 0, 0, 0, 3},
		// 700 leave in a minute, room for all the hour asks after it: only
		// the minute before they leave is held.
		{"a burst about to leave", []stamp{{now - hour + minute, 700}, {now - 2*minute, 10}}, 3, 0, 0, 0, 3},
		// 50 leave in a minute, short of the 177 asked after it.
		{"a small burst about to leave", []stamp{{now - hour + minute, 50}}, 3, 0, 0, 0, 130},
		// Scans two minutes running, 3 each: their pace is the rate.
		{"a steady pace is the rate", nil, 3, 3, 6, 2, 177},
		// 34 this minute, 74 over 17 minutes: 4.35 a minute, under the 13
		// the hour frees each minute; the peak minute's 34 a minute held
		// what the minutes to come outran the drain by.
		{"a burst at a slow pace in a draining hour", evenly(now, hour, 13), 34, 34, 74, 17, 0},
		// Nothing leaves for the hour: the hour's pace, 74 per 17 minutes
		// for 60 minutes (262), less the 34 here.
		{"a burst at a slow pace in an hour filled just now", []stamp{{now - time.Second.Nanoseconds(), 700}}, 34, 34, 74, 17, 228},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var g rollingLog
			g.reset(1)
			for _, e := range tc.entries {
				g.add(e.at, e.cost)
			}
			g.advance([]int64{hour}, now)
			seen, span := tc.seen, tc.span
			if span == 0 {
				seen, span = tc.rate, 1
			}
			if got, _ := g.shortfall(0, hour, tc.rate, minute, tc.here, seen, span, now); got != tc.want {
				t.Errorf("shortfall = %d, want %d", got, tc.want)
			}
		})
	}
}

func evenly(now, per int64, n int) []stamp {
	var out []stamp
	for at := now - per + int64(time.Minute); at <= now; at += int64(time.Minute) {
		out = append(out, stamp{at, n})
	}
	return out
}
