package shard

import (
	"fmt"
	"hash/fnv"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// Of is the shard of user among n shards (0 <= Of < n): FNV-1a of the
// user ID, so every process and every run agrees. n < 2 means one shard.
func Of(user string, n int) int {
	if n < 2 {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(user))
	return int(h.Sum64() % uint64(n))
}

// Budget is what the coordinator divides: the app's rate windows and
// concurrency cap.
type Budget struct {
	Windows     []limiter.Window `json:"windows"`
	Concurrency int              `json:"concurrency"`
	// InFlightFor is how long a granted request may hold a concurrency
	// slot (the limiter's LeaseTTL): a shard's slots count against the
	// app until that long after its last lease expired.
	InFlightFor limiter.Duration `json:"inFlightFor"`
}

// BudgetOf is the app scope of spec, as a budget to lease out.
func BudgetOf(spec limiter.Spec) Budget {
	ttl := spec.Tuning.LeaseTTL
	if ttl == 0 {
		ttl = limiter.DefaultTuning().LeaseTTL
	}
	return Budget{Windows: append([]limiter.Window(nil), spec.App.Windows...), Concurrency: spec.App.Concurrency, InFlightFor: ttl}
}

// Share is an amount of every app window (in window order) and of the
// app concurrency.
type Share struct {
	Units       []int `json:"units"`
	Concurrency int   `json:"concurrency"`
}

// Zero reports whether the share lets nothing through: some window or
// the concurrency is 0.
func (s Share) Zero() bool {
	if s.Concurrency <= 0 || len(s.Units) == 0 {
		return true
	}
	for _, u := range s.Units {
		if u <= 0 {
			return true
		}
	}
	return false
}

func (s Share) String() string { return fmt.Sprintf("%v/%d", s.Units, s.Concurrency) }

// Lease is a shard's part of the app budget until Expires. Versions of
// one shard's leases only grow; a shard runs on the newest it received.
type Lease struct {
	Shard   int       `json:"shard"`
	Version uint64    `json:"version"`
	Share   Share     `json:"share"`
	Expires time.Time `json:"expires"`
	// Short is set when the share is below half the shard's fair share
	// because other shards still hold larger leases (being taken back,
	// see Coordinator.Reclaim): the shard reports again after RetryAsk
	// rather than a third of the way through the lease.
	Short bool `json:"short,omitempty"`
	// Full is set when the share is below what the shard reported
	// wanting in some dimension (the budget, or other shards'
	// reservations, left no more): a shard starved by it does not ask
	// again before the lease's refresh, and the coordinator sends it more
	// when the budget frees (Coordinator.Spread).
	Full bool `json:"full,omitempty"`
	// Pushed is set on a lease that takes back part of a larger one the
	// shard may still run on: one the coordinator sent unasked
	// (Coordinator.Reclaim), or its answer to a shard that will not
	// report again soon (nothing queued, or a quiet lease). The shard
	// reports at once, so that the coordinator stops reserving the larger
	// lease for it.
	Pushed bool `json:"pushed,omitempty"`
}

// Valid reports whether the lease lets its shard grant at now.
func (l Lease) Valid(now time.Time) bool {
	return l.Version > 0 && now.Before(l.Expires) && !l.Share.Zero()
}

// Report is what a shard tells the coordinator when it asks for a lease.
type Report struct {
	Shard int `json:"shard"`
	// Lease is the lease the shard runs on (the zero Lease: none yet).
	Lease Lease `json:"lease"`
	// Used is what the shard holds now: the units inside each app window
	// and the requests in flight.
	Used Share `json:"used"`
	// Queued is the units the shard's queues hold (its demand beyond
	// what it used).
	Queued int `json:"queued"`
	// At is when the shard took Used and Frees (its time): the
	// coordinator counts what the shard may send after it by its leases.
	At time.Time `json:"at,omitzero"`
	// Frees is when Used leaves each app window (see FreesOf); without
	// it the coordinator holds Used in a window for its whole length.
	Frees [][]int `json:"frees,omitempty"`
}

// FreeSteps is how finely a report says when its units leave an app
// window: in steps of a FreeSteps-th of the window's length.
const FreeSteps = 60

// FreesOf is when the units in counted leave each of windows after now,
// for Report.Frees: Frees[w][k] for k < FreeSteps is the units that leave
// window w within the k-th step of its length after now, and
// Frees[w][FreeSteps] those dated after now (a request in flight, see
// limiter.Limiter.AppCounted), which leave within the in-flight lifetime
// after the window's length. Units already out of a window are left out.
func FreesOf(windows []limiter.Window, counted []limiter.Dated, now time.Time) [][]int {
	out := make([][]int, len(windows))
	for w, win := range windows {
		per := win.Per.D()
		out[w] = make([]int, FreeSteps+1)
		for _, d := range counted {
			leaves := d.At.Add(per).Sub(now)
			switch {
			case leaves <= 0:
			case leaves > per:
				out[w][FreeSteps] += d.Cost
			default:
				// Step k covers (k, k+1] steps of per after now.
				k := int((leaves*FreeSteps - 1) / per)
				out[w][k] += d.Cost
			}
		}
	}
	return out
}

// demand is what the shard would use of each window and of the
// concurrency if it could.
func (r Report) demand(n int) Share {
	d := Share{Units: make([]int, n), Concurrency: r.Used.Concurrency + r.Queued}
	for w := range n {
		if w < len(r.Used.Units) {
			d.Units[w] = r.Used.Units[w]
		}
		d.Units[w] += r.Queued
	}
	return d
}

// UsersPerShard is how many users one limiter shard is sized for. A
// shard's state grows with its users (each holds at most its rate
// windows' limits in its log, its page workers' asks and its
// concurrency's leases), so this bounds every shard's payload:
// TestShardPayloadBoundedAtFullRate in limiter/entity measures the
// busiest shard of 10,000 users after an hour at full rate.
const UsersPerShard = 40

// Count is the number of shards for an install of users users: one per
// UsersPerShard, and a single shard for a small install.
func Count(users int) int {
	return max(1, (users+UsersPerShard-1)/UsersPerShard)
}
