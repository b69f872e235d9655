package shard

import (
	"slices"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

func TestFreesOf(t *testing.T) {
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	minute := []limiter.Window{{Limit: 100, Per: limiter.Duration(time.Minute)}}
	step := func(k, units int) []int {
		out := make([]int, FreeSteps+1)
		out[k] = units
		return out
	}
	tests := []struct {
		name    string
		counted []limiter.Dated
		want    []int
	}{
		{"leaves within the first step", []limiter.Dated{{At: now.Add(-59500 * time.Millisecond), Cost: 2}}, step(0, 2)},
		{"leaves halfway: the step that ends then", []limiter.Dated{{At: now.Add(-30 * time.Second), Cost: 3}}, step(FreeSteps/2-1, 3)},
		{"counted now: the last ordinary step", []limiter.Dated{{At: now, Cost: 1}}, step(FreeSteps-1, 1)},
		{"dated after now (in flight): the last bucket", []limiter.Dated{{At: now.Add(10 * time.Second), Cost: 4}}, step(FreeSteps, 4)},
		{"already out of the window: left out", []limiter.Dated{{At: now.Add(-61 * time.Second), Cost: 5}}, make([]int, FreeSteps+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FreesOf(minute, tt.counted, now)
			if len(got) != 1 || !slices.Equal(got[0], tt.want) {
				t.Errorf("FreesOf = %v, want [%v]", got, tt.want)
			}
		})
	}
}

// TestSpreadOffersWhatFrees: shard 0 used the whole minute window 30 s
// ago, so shard 1, which wants as much, gets a lease that lets nothing
// through. NextSpread names the instant shard 0's units leave the window
// (its report said when), Spread offers nothing before it, and at it
// offers both shards a share of what freed, within the budget, without
// either asking.
func TestSpreadOffersWhatFrees(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := Budget{Windows: []limiter.Window{{Limit: 10, Per: limiter.Duration(time.Minute)}}, Concurrency: 4, InFlightFor: limiter.Duration(3 * time.Second)}
	c := newCoordinator(t, b, 2, t0)
	reports := []Report{
		{Shard: 0, Used: Share{Units: []int{10}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, []limiter.Dated{{At: t0.Add(-30 * time.Second), Cost: 10}}, t0)},
		{Shard: 1, Used: Share{Units: []int{0}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, nil, t0)},
	}
	for _, r := range reports {
		l, err := c.Refresh(r, t0)
		if err != nil {
			t.Fatal(err)
		}
		if !l.Share.Zero() {
			t.Fatalf("shard %d leased %v while the window is full, want nothing", r.Shard, l.Share)
		}
	}
	next := c.NextSpread(t0)
	if want := t0.Add(30 * time.Second); !next.Equal(want) {
		t.Fatalf("NextSpread = %v, want %v (when shard 0's units leave)", next, want)
	}
	if got := c.Spread(next.Add(-time.Millisecond)); len(got) > 0 {
		t.Fatalf("Spread before NextSpread offered %v, want nothing", got)
	}
	got := c.Spread(next)
	if len(got) != 2 {
		t.Fatalf("Spread at NextSpread offered %v, want a lease to each shard", got)
	}
	units, slots := 0, 0
	for _, l := range got {
		if l.Share.Zero() {
			t.Errorf("shard %d offered %v, want a share that lets it through", l.Shard, l.Share)
		}
		units += l.Share.Units[0]
		slots += l.Share.Concurrency
	}
	if units > 10 || slots > 4 {
		t.Errorf("Spread offered %d units and %d slots together, want at most the budget's 10 and 4", units, slots)
	}
	if again := c.Spread(next); len(again) > 0 {
		t.Errorf("Spread again at the same instant offered %v, want nothing new", again)
	}
}

// TestCoordinatorStateBounded: 250 shards (10,000 users, one shard per
// 40), every one reporting a unit leaving the OneNote app windows in
// every step of both and holding a lease, and Spread run after each
// report: the coordinator's state, carried across continue-as-new, stays
// well under the 512 KiB payload target.
func TestCoordinatorStateBounded(t *testing.T) {
	const shards = 250
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := oneNoteApp()
	c := newCoordinator(t, b, shards, t0)
	largest := 0
	for round := range 3 {
		for i := range shards {
			now := t0.Add(time.Duration(round)*40*time.Second + time.Duration(i)*100*time.Millisecond)
			if _, err := c.Refresh(fullSchedule(b, i, now), now); err != nil {
				t.Fatal(err)
			}
			c.Spread(now)
			st, err := c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			largest = max(largest, len(st))
		}
	}
	t.Logf("the coordinator's state at most %d KiB with %d shards reporting", largest>>10, shards)
	if largest >= 256<<10 {
		t.Errorf("the coordinator's state reached %d bytes, want under 256 KiB (half the payload target)", largest)
	}
}

// BenchmarkNextSpread: the look-ahead the coordinator workflow runs after
// every wake, with 250 shards (10,000 users) each reporting a full
// schedule of the OneNote app windows and holding a lease below its
// demand.
func BenchmarkNextSpread(b *testing.B) {
	const shards = 250
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	bud := oneNoteApp()
	c := newCoordinator(b, bud, shards, t0)
	now := t0
	for i := range shards {
		now = t0.Add(time.Duration(i) * 100 * time.Millisecond)
		if _, err := c.Refresh(fullSchedule(bud, i, now), now); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		c.NextSpread(now)
	}
}

// TestQuietLeaseWhileTheBudgetIsSpent: shard 1 holds half of an hour's
// budget unused, and shard 0 used the other half a minute ago, so
// shard 0's answer can grant nothing until its units start leaving, 59
// minutes on. It lasts until a TTL before then (the shard reports a
// third of that later, not every third of a TTL for nothing), and the
// shard stays among those Spread serves without reporting: when shard 1
// goes idle ten minutes on and frees its half, Spread offers it to
// shard 0 unasked.
func TestQuietLeaseWhileTheBudgetIsSpent(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := Budget{Windows: []limiter.Window{{Limit: 10, Per: limiter.Duration(time.Hour)}}, Concurrency: 4, InFlightFor: limiter.Duration(3 * time.Second)}
	c := newCoordinator(t, b, 2, t0)
	held, err := c.Refresh(Report{Shard: 1, Used: Share{Units: []int{0}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, nil, t0)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if held.Share.Zero() || held.Expires.Sub(t0) > DefaultTTL {
		t.Fatalf("shard 1 leased %v until %v, want a share of the free budget for a TTL at most", held.Share, held.Expires)
	}
	quiet, err := c.Refresh(Report{Shard: 0, Used: Share{Units: []int{5}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, []limiter.Dated{{At: t0.Add(-time.Minute), Cost: 5}}, t0)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	frees := t0.Add(59 * time.Minute)
	if got := quiet.Expires; got.Before(frees.Add(-DefaultTTL-time.Minute)) || got.After(frees.Add(-DefaultTTL+time.Minute)) {
		t.Errorf("shard 0's lease that can grant nothing lasts until %v, want about a TTL before its units leave at %v", got, frees)
	}
	if !quiet.Full {
		t.Errorf("shard 0's lease is not marked below its demand: %+v", quiet)
	}
	idle := t0.Add(10 * time.Minute)
	if _, err := c.Refresh(Report{Shard: 1, Lease: held, Used: Share{Units: []int{0}}, At: idle, Frees: FreesOf(b.Windows, nil, idle)}, idle); err != nil {
		t.Fatal(err)
	}
	got := c.Spread(idle)
	if len(got) != 1 || got[0].Shard != 0 || got[0].Share.Zero() {
		t.Fatalf("Spread after shard 1 went idle offered %v, want shard 0 a share (it has not reported for 10 minutes, on its quiet lease)", got)
	}
	if u := got[0].Share.Units[0]; u > 10 {
		t.Errorf("Spread offered shard 0 %d units, want at most the budget's 10", u)
	}
}

// oneNoteApp is the OneNote app budget: 240 a minute, 800 an hour, 20 at
// once.
func oneNoteApp() Budget {
	return Budget{Windows: []limiter.Window{{Limit: 240, Per: limiter.Duration(time.Minute)}, {Limit: 800, Per: limiter.Duration(time.Hour)}}, Concurrency: 20, InFlightFor: limiter.Duration(3 * time.Second)}
}

// fullSchedule is shard i's report at now of a unit leaving b's hour
// window in every step of its schedule (and one in flight), with work
// queued far beyond any share.
func fullSchedule(b Budget, i int, now time.Time) Report {
	var counted []limiter.Dated
	for k := range FreeSteps + 1 {
		counted = append(counted, limiter.Dated{At: now.Add(-time.Hour + time.Duration(k)*time.Hour/FreeSteps), Cost: 1})
	}
	return Report{Shard: i, Used: Share{Units: []int{1, FreeSteps}}, Queued: 1000, At: now, Frees: FreesOf(b.Windows, counted, now)}
}

// TestSpreadOffersNoUselessLease: three shards hold 3, 4 and 1 of an
// hour's 10 units, sent a minute before; shard 0 takes the whole budget
// first, and the two others get nothing (quiet). When shard 0 reports
// idle, having sent 2 more, the budget is full again: shard 2 could get
// no more than the one unit it already holds, a lease its own units make
// useless for all its life, and Spread offers nothing. With room to
// spare it offers shard 2 a lease its units leave room in.
func TestSpreadOffersNoUselessLease(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := Budget{Windows: []limiter.Window{{Limit: 10, Per: limiter.Duration(time.Hour)}}, Concurrency: 4, InFlightFor: limiter.Duration(3 * time.Second)}
	sent := []limiter.Dated{{At: t0.Add(-time.Minute), Cost: 3}}
	tests := []struct {
		name   string
		sent   []limiter.Dated // shard 0's units at its idle report
		offers int             // the leases Spread offers, to shard 2
	}{
		{"budget full again", append(sent, limiter.Dated{At: t0.Add(time.Minute), Cost: 2}), 0},
		{"room to spare", sent, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCoordinator(t, b, 3, t0)
			var first Lease
			for i, used := range []int{3, 4, 1} {
				l, err := c.Refresh(Report{Shard: i, Used: Share{Units: []int{used}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, []limiter.Dated{{At: t0.Add(-time.Minute), Cost: used}}, t0)}, t0)
				if err != nil {
					t.Fatal(err)
				}
				if i == 0 {
					first = l
				} else if !l.Share.Zero() {
					t.Fatalf("shard %d leased %v while shard 0 holds the budget, want nothing", i, l.Share)
				}
			}
			at := t0.Add(3 * time.Minute) // after shard 0's lease expired
			used := 0
			for _, d := range tt.sent {
				used += d.Cost
			}
			if _, err := c.Refresh(Report{Shard: 0, Lease: first, Used: Share{Units: []int{used}}, At: at, Frees: FreesOf(b.Windows, tt.sent, at)}, at); err != nil {
				t.Fatal(err)
			}
			got := c.Spread(at)
			if len(got) != tt.offers {
				t.Fatalf("Spread offered %v, want %d leases", got, tt.offers)
			}
			for _, l := range got {
				if l.Shard != 2 || l.Share.Units[0] <= 1 {
					t.Errorf("Spread offered shard %d %v, want shard 2 room above the unit it holds", l.Shard, l.Share)
				}
			}
		})
	}
}

// TestIdleShardGivesItsLeaseBack: shard 0 takes an hour's whole budget of
// 10 and finishes its work after 3; shard 1 waits on nothing. At its
// refresh shard 0 reports idle while its lease still runs, and the answer
// takes the lease back: the shard acknowledges it at once (an idle shard
// on a lease that lets nothing through reports nothing again), so the
// coordinator stops counting the lease it may have sent on, and Spread
// offers shard 1 what shard 0 did not use, instead of holding it for
// the hour.
func TestIdleShardGivesItsLeaseBack(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	b := Budget{Windows: []limiter.Window{{Limit: 10, Per: limiter.Duration(time.Hour)}}, Concurrency: 4, InFlightFor: limiter.Duration(3 * time.Second)}
	c := newCoordinator(t, b, 2, t0)
	var h Holder
	first, err := c.Refresh(Report{Shard: 0, Used: Share{Units: []int{0}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, nil, t0)}, t0)
	if err != nil {
		t.Fatal(err)
	}
	h.Apply(first, t0)
	if l, err := c.Refresh(Report{Shard: 1, Used: Share{Units: []int{0}}, Queued: 50, At: t0, Frees: FreesOf(b.Windows, nil, t0)}, t0); err != nil || !l.Share.Zero() {
		t.Fatalf("shard 1 leased %v (%v) while shard 0 holds the budget, want nothing", l.Share, err)
	}
	sent := []limiter.Dated{{At: t0.Add(10 * time.Second), Cost: 3}}
	now := h.NextReport(t0.Add(10*time.Second), Idle)
	if now.IsZero() || !now.Before(first.Expires) {
		t.Fatalf("an idle shard on a running lease reports at %v, want before it expires at %v", now, first.Expires)
	}
	for range 3 { // the report, and as many acknowledgements as it takes
		h.Asking(now)
		l, err := c.Refresh(Report{Shard: 0, Lease: h.Lease, Used: Share{Units: []int{3}}, At: now, Frees: FreesOf(b.Windows, sent, now)}, now)
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(simDelivery)
		h.Apply(l, now)
		if next := h.NextReport(now, Idle); next.IsZero() || next.After(now) {
			break
		}
	}
	got := c.Spread(now)
	if len(got) != 1 || got[0].Shard != 1 || got[0].Share.Zero() {
		t.Fatalf("Spread after shard 0 went idle offered %v, want shard 1 a share of what shard 0 left", got)
	}
	if u := got[0].Share.Units[0]; u+3 > 10 {
		t.Errorf("Spread offered shard 1 %d units beside shard 0's 3, want at most the budget's 10", u)
	}
}

// newCoordinator is NewCoordinator of n shards sharing b at t0, with the
// default TTL; it fails tb on an error.
func newCoordinator(tb testing.TB, b Budget, n int, t0 time.Time) *Coordinator {
	tb.Helper()
	c, err := NewCoordinator(b, n, 0, t0)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}
