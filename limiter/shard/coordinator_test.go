package shard

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// simShard is a shard driven by the test: it sends as much as its lease
// lets it, each request holding a slot for inFlight.
type simShard struct {
	h     Holder
	sends []time.Time // every send
	ends  []time.Time // when each request in flight ends
	dead  bool
	asks  int
	// pushes counts the leases pushed to it (Coordinator.Reclaim).
	pushes int
	// first is the first send after it became busy (0: none yet).
	first time.Duration
}

const inFlight = 3 * time.Second

func (s *simShard) used(b Budget, now time.Time) Share {
	u := Share{Units: make([]int, len(b.Windows))}
	for w, win := range b.Windows {
		u.Units[w] = countSince(s.sends, now.Add(-win.Per.D()))
	}
	for _, e := range s.ends {
		if e.After(now) {
			u.Concurrency++
		}
	}
	return u
}

// forget drops the sends before t and the requests that ended.
func (s *simShard) forget(t time.Time) {
	k := 0
	for k < len(s.sends) && !s.sends[k].After(t) {
		k++
	}
	s.sends = s.sends[k:]
	live := s.ends[:0]
	for _, e := range s.ends {
		if e.After(t) {
			live = append(live, e)
		}
	}
	s.ends = live
}

// countSince counts the sends after t (a send at t-Per has left a window
// ending now).
func countSince(sends []time.Time, t time.Time) int {
	n := 0
	for _, s := range sends {
		if s.After(t) {
			n++
		}
	}
	return n
}

type scenario struct {
	name string
	// busy says whether shard i has work at elapsed time t.
	busy func(i int, t time.Duration) bool
	// silent says whether shard i no longer reports at t (it stopped
	// refreshing); dead ones also stop sending.
	silent func(i int, t time.Duration) bool
	zombie bool // a silent shard keeps sending on the lease it has
	// lose says whether the lease answering shard i's k-th report is
	// lost.
	lose func(i, k int) bool
	// wantUse is the least share of the budget that the busy, live
	// shards together must use over the run's last longest window (400
	// in 10 minutes here; the minute's 60 only in a burst, so a last
	// minute shows the phase of the bursts more than the use).
	wantUse float64
	// wantShare, when set, is the least share of that minute that the
	// named shard must use.
	wantShare map[int]float64
	// budget and run replace the test's budget and run length when set.
	budget *Budget
	run    time.Duration
	// wantFirstSend, when set, is the latest elapsed time by which the
	// named shard must have sent its first request.
	wantFirstSend map[int]time.Duration
	// join shards of another layout (Coordinator.Join) join at joinAt,
	// after the test's shards.
	join   int
	joinAt time.Duration
}

func never(int, time.Duration) bool  { return false }
func keep(int, int) bool             { return false }
func always(int, time.Duration) bool { return true }

func TestCoordinatorNeverOvercommits(t *testing.T) {
	budget := Budget{
		Windows:     []limiter.Window{{Limit: 60, Per: limiter.Duration(time.Minute)}, {Limit: 400, Per: limiter.Duration(10 * time.Minute)}},
		Concurrency: 8,
		InFlightFor: limiter.Duration(inFlight),
	}
	const shards = 4
	const run = 25 * time.Minute
	scenarios := []scenario{
		{name: "all busy", busy: always, silent: never, lose: keep, wantUse: 0.95},
		{name: "one busy, three with a trickle", busy: func(i int, t time.Duration) bool { return i == 0 || t%(2*time.Minute) < time.Second },
			silent: never, lose: keep, wantShare: map[int]float64{0: 0.75}},
		{name: "demand moves from shard 0 to shard 1", busy: func(i int, t time.Duration) bool {
			return (i == 0 && t < 10*time.Minute) || (i == 1 && t >= 10*time.Minute)
		}, silent: never, lose: keep, wantShare: map[int]float64{1: 0.9}},
		{name: "a shard stops refreshing and sending", busy: always,
			silent: func(i int, t time.Duration) bool { return i == 0 && t >= 4*time.Minute }, lose: keep, wantUse: 0.95},
		{name: "a shard stops refreshing but keeps sending on its lease", busy: always, zombie: true,
			silent: func(i int, t time.Duration) bool { return i == 2 && t >= 3*time.Minute }, lose: keep, wantUse: 0.95},
		{name: "half the leases are lost", busy: always, silent: never,
			lose: func(i, k int) bool { return (k+i)%2 == 0 }, wantUse: 0.9},
		// Shard 0, alone, holds every slot; shard 1's first lease is
		// short, the coordinator takes slots back from shard 0, and shard
		// 1 sends within seconds, not at shard 0's next refresh.
		{name: "a shard wakes while another holds every slot", busy: func(i int, t time.Duration) bool {
			return i == 0 || (i == 1 && t >= 2*time.Minute)
		}, silent: never, lose: keep, run: 4 * time.Minute,
			budget:        &Budget{Windows: []limiter.Window{{Limit: 6000, Per: limiter.Duration(time.Minute)}}, Concurrency: 40, InFlightFor: limiter.Duration(inFlight)},
			wantFirstSend: map[int]time.Duration{1: 2*time.Minute + 5*time.Second}},
		{name: "a shard wakes while another holds every slot, half the leases lost", busy: func(i int, t time.Duration) bool {
			return i == 0 || (i == 1 && t >= 2*time.Minute)
		}, silent: never, lose: func(i, k int) bool { return (k+i)%2 == 0 }, run: 4 * time.Minute,
			budget:        &Budget{Windows: []limiter.Window{{Limit: 6000, Per: limiter.Duration(time.Minute)}}, Concurrency: 40, InFlightFor: limiter.Duration(inFlight)},
			wantFirstSend: map[int]time.Duration{1: 2*time.Minute + 20*time.Second}},
		// Workers restarted with 8 shards: the 4 of the old count stay
		// busy with the runs that began before until 12 min, the 8 new
		// ones join at 5 min; the two layouts never over-commit, and
		// the new one gets the budget once the old is done.
		{name: "a layout of 8 shards joins while the 4 of the old one are busy", busy: func(i int, t time.Duration) bool {
			return i >= 4 || t < 12*time.Minute
		}, silent: never, lose: keep, join: 8, joinAt: 5 * time.Minute, wantUse: 0.95},
		{name: "a layout of 8 shards joins, half the leases lost", busy: func(i int, t time.Duration) bool {
			return i >= 4 || t < 12*time.Minute
		}, silent: never, lose: func(i, k int) bool { return (k+i)%2 == 0 }, join: 8, joinAt: 5 * time.Minute, wantUse: 0.9},
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			budget, run := budget, run
			if sc.budget != nil {
				budget = *sc.budget
			}
			if sc.run > 0 {
				run = sc.run
			}
			start := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
			c, err := NewCoordinator(budget, shards, 30*time.Second, start)
			if err != nil {
				t.Fatal(err)
			}
			sim := make([]*simShard, shards+sc.join)
			for i := range sim {
				sim[i] = &simShard{}
			}
			type delivery struct {
				at    time.Time
				shard int
				lease Lease
			}
			var inbox []delivery
			var nextSpread time.Time
			const step = 250 * time.Millisecond
			for el := time.Duration(0); el <= run; el += step {
				now := start.Add(el)
				// Leases sent one step ago arrive.
				var later []delivery
				for _, d := range inbox {
					if d.at.After(now) {
						later = append(later, d)
						continue
					}
					if !sim[d.shard].dead {
						sim[d.shard].h.Apply(d.lease, now)
					}
				}
				inbox = later
				reported := false
				for i, s := range sim {
					if i >= c.Shards() {
						if el < sc.joinAt {
							continue
						}
						if k, err := c.Join(); err != nil || k != i {
							t.Fatalf("Join = %d, %v; want %d", k, err, i)
						}
					}
					silent := sc.silent(i, el)
					if silent && !sc.zombie {
						s.dead = true
					}
					if s.dead {
						continue
					}
					busy := sc.busy(i, el)
					s.forget(now.Add(-budget.Windows[len(budget.Windows)-1].Per.D()))
					u := s.used(budget, now)
					if busy && s.h.Allows(now) {
						for {
							u = s.used(budget, now)
							if !fits(u, s.h.Lease.Share) {
								break
							}
							s.sends = append(s.sends, now)
							s.ends = append(s.ends, now.Add(inFlight))
							if s.first == 0 {
								s.first = el
							}
						}
					}
					if silent {
						continue
					}
					held := u.Concurrency > 0 || u.Units[0] > 0
					if next := s.h.NextReport(now, load(busy || held)); !next.IsZero() && !next.After(now) {
						queued := 0
						if busy {
							queued = 50
						}
						s.h.Asking(now)
						l, err := c.Refresh(Report{Shard: i, Lease: s.h.Lease, Used: u, Queued: queued, At: now, Frees: FreesOf(budget.Windows, dated(s.sends), now)}, now)
						if err != nil {
							t.Fatal(err)
						}
						s.asks++
						reported = true
						if !sc.lose(i, s.asks) {
							inbox = append(inbox, delivery{now.Add(step), i, l})
						}
						for _, p := range c.Reclaim(l, now) {
							sim[p.Shard].pushes++
							if !sc.lose(p.Shard, -sim[p.Shard].pushes) {
								inbox = append(inbox, delivery{now.Add(step), p.Shard, p})
							}
						}
						// The state survives a round trip at any time.
						b, _ := json.Marshal(c)
						c = new(Coordinator)
						if err := json.Unmarshal(b, c); err != nil {
							t.Fatal(err)
						}
					}
				}
				// The coordinator offers what freed after reports and
				// when NextSpread said; these leases are lost as often.
				if reported || !nextSpread.IsZero() && !now.Before(nextSpread) {
					for _, l := range c.Spread(now) {
						sim[l.Shard].pushes++
						if !sc.lose(l.Shard, -sim[l.Shard].pushes) {
							inbox = append(inbox, delivery{now.Add(step), l.Shard, l})
						}
					}
					nextSpread = c.NextSpread(now)
				}
				checkBudget(t, budget, c, sim, now)
			}
			end := start.Add(run)
			total := 0
			for i, s := range sim {
				n := countSince(s.sends, end.Add(-time.Minute))
				total += n
				if want, ok := sc.wantShare[i]; ok && float64(n) < want*float64(budget.Windows[0].Limit) {
					t.Errorf("shard %d sent %d in the last minute, want >= %.0f%% of %d", i, n, 100*want, budget.Windows[0].Limit)
				}
			}
			for i, want := range sc.wantFirstSend {
				if f := sim[i].first; f == 0 || f > want {
					t.Errorf("shard %d first sent at %v, want by %v", i, f, want)
				}
			}
			longest, capacity := budget.Windows[len(budget.Windows)-1].Per.D(), 0
			for w, win := range budget.Windows {
				if k := win.Limit * int((longest+win.Per.D()-1)/win.Per.D()); w == 0 || k < capacity {
					capacity = k
				}
			}
			used := 0
			for _, s := range sim {
				used += countSince(s.sends, end.Add(-longest))
			}
			t.Logf("the shards sent %d in the last %v of the %d the budget allows", used, longest, capacity)
			if sc.wantUse > 0 && float64(used) < sc.wantUse*float64(capacity) {
				t.Errorf("the shards sent %d in the last %v, want >= %.0f%% of the %d the budget allows", used, longest, 100*sc.wantUse, capacity)
			}
		})
	}
}

// fits reports whether one more request fits the lease share given what
// the shard holds.
func fits(u, s Share) bool {
	for w := range s.Units {
		if u.Units[w]+1 > s.Units[w] {
			return false
		}
	}
	return u.Concurrency+1 <= s.Concurrency
}

// checkBudget asserts, at now, that what every shard holds together fits
// the app budget in every window and in concurrency, that each shard
// holds no more than its reservation, and that the reservations add up
// to no more than the budget.
func checkBudget(t *testing.T, b Budget, c *Coordinator, sim []*simShard, now time.Time) {
	t.Helper()
	sum := Share{Units: make([]int, len(b.Windows))}
	for i, s := range sim[:c.Shards()] {
		u := s.used(b, now)
		r := c.Reservation(i, now)
		for w := range b.Windows {
			sum.Units[w] += u.Units[w]
			if u.Units[w] > r.Units[w] {
				t.Fatalf("%s: shard %d holds %d in window %d, more than its reservation %d", now.Format(time.TimeOnly), i, u.Units[w], w, r.Units[w])
			}
		}
		sum.Concurrency += u.Concurrency
		if u.Concurrency > r.Concurrency {
			t.Fatalf("%s: shard %d has %d in flight, more than its reservation %d", now.Format(time.TimeOnly), i, u.Concurrency, r.Concurrency)
		}
	}
	res := c.Reserved(now)
	for w, win := range b.Windows {
		if sum.Units[w] > win.Limit || res.Units[w] > win.Limit {
			t.Fatalf("%s: window %d: shards hold %d, reserved %d, limit %d", now.Format(time.TimeOnly), w, sum.Units[w], res.Units[w], win.Limit)
		}
	}
	if sum.Concurrency > b.Concurrency || res.Concurrency > b.Concurrency {
		t.Fatalf("%s: concurrency: %d in flight, reserved %d, cap %d", now.Format(time.TimeOnly), sum.Concurrency, res.Concurrency, b.Concurrency)
	}
}

func TestFill(t *testing.T) {
	tests := []struct {
		capacity int
		demand   []int
		start    int
		want     []int
	}{
		{60, []int{100, 100, 100, 100}, 0, []int{15, 15, 15, 15}},
		{60, []int{5, 100, 0, 10}, 0, []int{5, 45, 0, 10}},
		{60, []int{5, 5, 0, 5}, 0, []int{20, 20, 0, 20}},
		{3, []int{9, 9, 9, 9}, 1, []int{0, 1, 1, 1}},
		{3, []int{9, 9, 9, 9}, 2, []int{1, 0, 1, 1}},
		{10, []int{0, 0, 0}, 0, []int{0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.capacity, tt.demand, tt.start), func(t *testing.T) {
			got := fill(tt.capacity, tt.demand, tt.start)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("fill = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestOfIsStableAndSpreads(t *testing.T) {
	const n = 16
	counts := make([]int, n)
	for i := range 10_000 {
		u := fmt.Sprintf("user%d@contoso.example", i)
		k := Of(u, n)
		if k != Of(u, n) || k < 0 || k >= n {
			t.Fatalf("Of(%q) = %d, not stable or out of range", u, k)
		}
		counts[k]++
	}
	for k, c := range counts {
		if c < 10_000/n*8/10 || c > 10_000/n*12/10 {
			t.Errorf("shard %d has %d of 10,000 users, want within 20%% of %d", k, c, 10_000/n)
		}
	}
	if Of("x", 1) != 0 || Of("x", 0) != 0 {
		t.Error("one shard (or none) must be shard 0")
	}
}

func load(busy bool) Load {
	if busy {
		return Busy
	}
	return Idle
}

// TestLapsedLeaseStaysLapsed: a lease that lapsed long ago no longer
// counts against the budget when its shard gets a new one. The
// coordinator used to reserve every lease a shard may run on until the
// newest one's expiry, so a new lease revived an old, larger one, and
// the reservations could add up to more than the budget.
func TestLapsedLeaseStaysLapsed(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	b := Budget{Windows: []limiter.Window{{Limit: 100, Per: limiter.Duration(time.Minute)}}, Concurrency: 8, InFlightFor: limiter.Duration(3 * time.Second)}
	c, err := NewCoordinator(b, 2, 30*time.Second, t0)
	if err != nil {
		t.Fatal(err)
	}
	// Shard 0 alone wants everything and gets all 8 slots.
	old, err := c.Refresh(Report{Shard: 0, Queued: 50}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if old.Share.Concurrency != 8 {
		t.Fatalf("first lease %v, want all 8 slots", old.Share)
	}
	// Its lease lapses; two windows later it reports on it again, wanting
	// one unit, while shard 1 has taken the slots meanwhile.
	later := t0.Add(3 * time.Minute)
	if _, err := c.Refresh(Report{Shard: 1, Queued: 50}, later.Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Refresh(Report{Shard: 0, Lease: old, Queued: 1}, later); err != nil {
		t.Fatal(err)
	}
	if got := c.Reservation(0, later).Concurrency; got > 2 {
		t.Errorf("shard 0 reserves %d slots after its 8-slot lease lapsed 2m30s ago, want its new lease's (at most 2)", got)
	}
	if r := c.Reserved(later); r.Concurrency > b.Concurrency || r.Units[0] > b.Windows[0].Limit {
		t.Errorf("reserved %v, more than the budget %d/%d", r, b.Windows[0].Limit, b.Concurrency)
	}
}
