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
	budget := Budget{Windows: []limiter.Window{{Limit: 10_000_000, Per: limiter.Duration(time.Minute)}}, Concurrency: 1000, InFlightFor: limiter.Duration(3 * time.Second)}
	const run = 90 * time.Second
	m := simulateShards(t, budget, run)
	t.Logf("%d active shards over %v: %d reports, %d short leases, %d pushed leases; the slowest first send %v after waking; the coordinator's state at most %d bytes", m.active, run, m.reports, m.shorts, m.pushes, m.worstFirst, m.state)
	if m.pushes > 0 || m.shorts > 0 {
		t.Errorf("%d short leases and %d pushed leases, want none: the budget is ample", m.shorts, m.pushes)
	}
	if max := m.active * 4; m.reports > max {
		t.Errorf("%d reports, want at most %d (4 a shard in %v)", m.reports, max, run)
	}
	if m.worstFirst > 2*(simStep+simDelivery) {
		t.Errorf("a shard's first send came %v after it woke, want within %v (one report and its lease)", m.worstFirst, 2*(simStep+simDelivery))
	}
}

// TestFewMessagesWhileTheBudgetIsSpent: the same 40 shards under the
// OneNote app budget (240 a minute, 800 an hour, 20 at once), which their
// work exceeds many times: every busy shard is starved by its lease for
// most of the run. A starved shard whose lease the budget capped waits
// for the coordinator to offer more (Coordinator.Spread) rather than
// asking: at most 3 reports and leases a shard a minute (1.9 now; 2.8
// before a lease that can grant nothing lasted until the budget frees,
// 8.4 when such a shard asked every 10 s, 35.2 when it asked every
// RetryAsk).
func TestFewMessagesWhileTheBudgetIsSpent(t *testing.T) {
	budget := Budget{Windows: []limiter.Window{{Limit: 240, Per: limiter.Duration(time.Minute)}, {Limit: 800, Per: limiter.Duration(time.Hour)}}, Concurrency: 20, InFlightFor: limiter.Duration(3 * time.Second)}
	const run = 10 * time.Minute
	m := simulateShards(t, budget, run)
	perMinute := float64(m.reports+m.pushes+m.spreads) / float64(m.active) / run.Minutes()
	t.Logf("%d active shards over %v: %d reports, %d short leases, %d pushed leases, %d spread (%.1f messages a shard a minute); %d Graph requests sent; the coordinator's state at most %d bytes", m.active, run, m.reports, m.shorts, m.pushes, m.spreads, perMinute, m.sent, m.state)
	if perMinute > 3 {
		t.Errorf("%.1f reports, pushed and spread leases a shard a minute, want at most 3", perMinute)
	}
	if m.sent < 800 {
		t.Errorf("%d Graph requests sent in %v, want the app hour's 800", m.sent, run)
	}
}

// TestMessagesPerGraphRequestWhileTheBudgetIsSpent: the same 40 shards
// under the OneNote app budget for two hours, in real time, as a
// migration of many users runs for hours: the budget, not the work,
// decides how many Graph requests go, so the protocol's messages per
// Graph request are its cost in the unit (limiter events per
// Graph request; a message is a signal and a workflow task on one side,
// about 7 history events). It asserts that the budget is used (the app
// hour's 800 an hour, as its windows free) and that the second hour costs
// at most 2.5 messages a Graph request: 1.3 now, against 5.9 when a
// starved shard refreshed every 40 s through the 55 minutes of every hour
// in which nothing frees (a lease that can grant nothing now lasts until
// a TTL before the budget may free), and 21.9 when it asked every 10 s
// (bench/results/limiter-scale.md). The time-scaled benchmark
// (onenote-x60) does not show it: it scales the windows, not the
// protocol's intervals.
func TestMessagesPerGraphRequestWhileTheBudgetIsSpent(t *testing.T) {
	if testing.Short() {
		t.Skip("two simulated hours: about 10 s")
	}
	budget := Budget{Windows: []limiter.Window{{Limit: 240, Per: limiter.Duration(time.Minute)}, {Limit: 800, Per: limiter.Duration(time.Hour)}}, Concurrency: 20, InFlightFor: limiter.Duration(3 * time.Second)}
	first := simulateShards(t, budget, 65*time.Minute)
	both := simulateShards(t, budget, 125*time.Minute)
	msgs := func(m simMessages) int { return m.reports + m.pushes + m.spreads }
	secondHour := float64(msgs(both)-msgs(first)) / float64(both.sent-first.sent)
	t.Logf("%d active shards: %d Graph requests in 2h5m (%d in the first 65 min); %d messages (%.1f a Graph request), %.1f a Graph request in the last hour; %d reports, %d pushed, %d spread, %d timer wakes of the coordinator",
		both.active, both.sent, first.sent, msgs(both), float64(msgs(both))/float64(both.sent), secondHour, both.reports, both.pushes, both.spreads, both.wakes)
	// The windows let 800 go at once, the next 800 as they leave the
	// hour, and the third 800 as the first hour's sends leave it again.
	if want := 2350; both.sent < want {
		t.Errorf("%d Graph requests in 2h5m, want at least %d: the budget went unused", both.sent, want)
	}
	if secondHour > 2.5 {
		t.Errorf("%.1f messages a Graph request in the second hour, want at most 2.5", secondHour)
	}
}

// TestBudgetUsedWhenWindowsAreShorterThanALease: the OneNote app budget
// 60 times faster (240 a second, 800 a minute, as the time-scaled
// benchmarks run it), so its windows free within a lease's 2 minutes.
// A starved shard, which reports only at its refresh, gets leases no
// longer than the longest window (Coordinator.life): the budget's 800 a
// minute are used (3,117 of 4,000 in 5 minutes with 2-minute leases),
// for fewer messages than when starved shards asked every 10 s (0.51 a
// Graph request then, for 3,511).
func TestBudgetUsedWhenWindowsAreShorterThanALease(t *testing.T) {
	budget := Budget{Windows: []limiter.Window{{Limit: 240, Per: limiter.Duration(time.Second)}, {Limit: 800, Per: limiter.Duration(time.Minute)}}, Concurrency: 20, InFlightFor: limiter.Duration(3 * time.Second)}
	const run = 5 * time.Minute
	m := simulateShards(t, budget, run)
	perRequest := float64(m.reports+m.pushes+m.spreads) / float64(m.sent)
	t.Logf("%d active shards over %v: %d Graph requests; %d reports, %d pushed, %d spread (%.2f a Graph request), %d timer wakes of the coordinator", m.active, run, m.sent, m.reports, m.pushes, m.spreads, perRequest, m.wakes)
	if want := 3800; m.sent < want {
		t.Errorf("%d Graph requests in %v, want at least %d of the budget's 4,000", m.sent, run, want)
	}
	if perRequest > 0.5 {
		t.Errorf("%.2f messages a Graph request, want at most 0.5", perRequest)
	}
}

const (
	simStep     = 50 * time.Millisecond
	simDelivery = 50 * time.Millisecond
)

// simMessages is what simulateShards counts.
type simMessages struct {
	active, reports, shorts, pushes, sent int
	// spreads are leases Coordinator.Spread offered, wakes the times its
	// timer woke the coordinator (NextSpread came before any report).
	spreads, wakes int
	worstFirst     time.Duration
	// state is the largest coordinator state seen after a report.
	state int
}

// simulateShards runs 40 of 250 shards, woken one after another (a user's
// migration each, the dev-server benchmark's shape), each with 5 page
// workers asking all the time and a Graph request taking 300 ms, under
// budget for run; a report's lease arrives a delivery later.
func simulateShards(t *testing.T, budget Budget, run time.Duration) simMessages {
	t.Helper()
	const (
		shards  = 250
		active  = 40
		workers = 5
		graph   = 300 * time.Millisecond
	)
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
	var nextSpread time.Time
	m := simMessages{active: active}
	for el := time.Duration(0); el <= run; el += simStep {
		now := start.Add(el)
		var later []msg
		for _, d := range inbox {
			if d.at.After(now) {
				later = append(later, d)
				continue
			}
			sims[d.shard].h.Apply(d.lease, now)
		}
		inbox = later
		reported := false
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
				u := Share{Concurrency: len(s.ends)}
				for _, w := range budget.Windows {
					u.Units = append(u.Units, countSince(s.sends, now.Add(-w.Per.D())))
				}
				return u
			}
			for s.h.Allows(now) && len(s.ends) < workers && fits(used(), s.h.Lease.Share) {
				s.sends = append(s.sends, now)
				s.ends = append(s.ends, now.Add(graph))
				m.sent++
				if s.first == 0 {
					s.first = el - s.wake + simStep // a send at the step it became possible
				}
			}
			queued := workers - len(s.ends)
			starved := queued > 0 && !(s.h.Allows(now) && fits(used(), s.h.Lease.Share))
			if next := nextReport(&s.h, now, true, starved); next.IsZero() || next.After(now) {
				continue
			}
			s.h.Asking(now)
			l, err := c.Refresh(Report{Shard: i, Lease: s.h.Lease, Used: used(), Queued: queued, At: now, Frees: FreesOf(budget.Windows, dated(s.sends), now)}, now)
			if err != nil {
				t.Fatal(err)
			}
			m.reports++
			reported = true
			if l.Short {
				m.shorts++
			}
			inbox = append(inbox, msg{now.Add(simDelivery), i, l})
			for _, p := range c.Reclaim(l, now) {
				m.pushes++
				inbox = append(inbox, msg{now.Add(simDelivery), p.Shard, p})
			}
			checkReserved(t, budget, c, now)
			b, err := c.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			m.state = max(m.state, len(b))
		}
		if reported || !nextSpread.IsZero() && !now.Before(nextSpread) {
			for _, l := range c.Spread(now) {
				m.spreads++
				inbox = append(inbox, msg{now.Add(simDelivery), l.Shard, l})
			}
			if !reported {
				m.wakes++
			}
			nextSpread = c.NextSpread(now)
		}
	}
	for _, s := range sims {
		if s != nil && s.first > 0 {
			m.worstFirst = max(m.worstFirst, s.first)
		}
	}
	return m
}

// dated is sends as the units a shard's windows count, one each.
func dated(sends []time.Time) []limiter.Dated {
	out := make([]limiter.Dated, len(sends))
	for i, t := range sends {
		out[i] = limiter.Dated{At: t, Cost: 1}
	}
	return out
}

// checkReserved fails t if the coordinator's reservations add up to more
// than the budget.
func checkReserved(t *testing.T, b Budget, c *Coordinator, now time.Time) {
	t.Helper()
	r := c.Reserved(now)
	for w, win := range b.Windows {
		if r.Units[w] > win.Limit {
			t.Fatalf("window %d: reserved %d of %d", w, r.Units[w], win.Limit)
		}
	}
	if r.Concurrency > b.Concurrency {
		t.Fatalf("concurrency: reserved %d of %d", r.Concurrency, b.Concurrency)
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
