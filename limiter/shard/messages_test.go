package shard

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestFewMessagesWhileTheBudgetIsAmple: 40 of 250 shards wake one after
// another (a user's migration each, the dev-server benchmark's shape)
// under a budget none of them comes near. Each shard should cost the
// coordinator about one report and one lease, and send its first request
// within a delivery of waking: no shard's lease comes out short, so no
// lease is pushed (taken back) and nobody waits RetryAsk for a second
// one. On the old coordinator, which spread the whole budget over the
// shards that wanted any, every newcomer found the budget given away:
// its lease came short, every shard before it had part of its lease
// pushed back, and it waited RetryAsk for its own.
func TestFewMessagesWhileTheBudgetIsAmple(t *testing.T) {
	const (
		shards   = 250
		active   = 40
		workers  = 5 // a user's page workers: its asks at once
		step     = 50 * time.Millisecond
		delivery = 50 * time.Millisecond
		graph    = 300 * time.Millisecond // one Graph request
		run      = 90 * time.Second
	)
	budget := Budget{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000, InFlightFor: limiter.Duration(3 * time.Second)}
	start := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	c, err := NewCoordinator(budget, shards, 0, start)
	if err != nil {
		t.Fatal(err)
	}
	type sim struct {
		h     Holder
		wake  time.Duration
		sends []time.Time
		ends  []time.Time
		first time.Duration // first send after waking (0: none)
	}
	sims := make([]*sim, shards)
	for i := range active {
		sims[i*shards/active] = &sim{wake: time.Duration(i) * 250 * time.Millisecond}
	}
	type msg struct {
		at    time.Time
		shard int
		lease Lease
	}
	var inbox []msg
	reports, pushes, shorts := 0, 0, 0
	for el := time.Duration(0); el <= run; el += step {
		now := start.Add(el)
		var later []msg
		for _, m := range inbox {
			if m.at.After(now) {
				later = append(later, m)
				continue
			}
			sims[m.shard].h.Apply(m.lease, now)
		}
		inbox = later
		for i, s := range sims {
			if s == nil || el < s.wake {
				continue
			}
			live := s.ends[:0]
			for _, e := range s.ends {
				if e.After(now) {
					live = append(live, e)
				}
			}
			s.ends = live
			used := func() Share {
				return Share{Units: []int{countSince(s.sends, now.Add(-time.Minute))}, Concurrency: len(s.ends)}
			}
			for s.h.Allows(now) && len(s.ends) < workers && fits(used(), s.h.Lease.Share) {
				s.sends = append(s.sends, now)
				s.ends = append(s.ends, now.Add(graph))
				if s.first == 0 {
					s.first = el - s.wake + step // a send at the step it became possible
				}
			}
			queued := workers - len(s.ends)
			starved := queued > 0 && !(s.h.Allows(now) && fits(used(), s.h.Lease.Share))
			if next := nextReport(&s.h, now, true, starved); next.IsZero() || next.After(now) {
				continue
			}
			s.h.Asking(now)
			l, err := c.Refresh(Report{Shard: i, Lease: s.h.Lease, Used: used(), Queued: queued}, now)
			if err != nil {
				t.Fatal(err)
			}
			reports++
			if l.Short {
				shorts++
			}
			inbox = append(inbox, msg{now.Add(delivery), i, l})
			for _, p := range c.Reclaim(l, now) {
				pushes++
				inbox = append(inbox, msg{now.Add(delivery), p.Shard, p})
			}
		}
	}
	worst := time.Duration(0)
	for _, s := range sims {
		if s != nil {
			if s.first == 0 {
				t.Fatalf("a shard woken at %v never sent", s.wake)
			}
			worst = max(worst, s.first)
		}
	}
	t.Logf("%d active shards over %v: %d reports, %d short leases, %d pushed leases; the slowest first send %v after waking", active, run, reports, shorts, pushes, worst)
	if pushes > 0 || shorts > 0 {
		t.Errorf("%d short leases and %d pushed leases, want none: the budget is ample", shorts, pushes)
	}
	if max := active * 4; reports > max {
		t.Errorf("%d reports, want at most %d (4 a shard in %v)", reports, max, run)
	}
	if worst > 2*(step+delivery) {
		t.Errorf("a shard's first send came %v after it woke, want within %v (one report and its lease)", worst, 2*(step+delivery))
	}
}

// nextReport is when h reports, given whether the shard is busy and
// whether its queued work is starved by its lease.
func nextReport(h *Holder, now time.Time, busy, starved bool) time.Time {
	load := Idle
	if starved {
		load = Starved
	} else if busy {
		load = Busy
	}
	return h.NextReport(now, load)
}
