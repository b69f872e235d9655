package shard

import "time"

// RetryAsk is how long after a short lease, or one that starves its
// work, a shard asks again.
const RetryAsk = 2 * time.Second

// AnswerWait is how long a shard waits for the answer to a report before
// it reports again. Answers are lost only when a workflow is replaced
// (the coordinator started anew), but they are slow when the worker is
// busy: a busy worker started the coordinator's first task 3.1 s after
// its first report on the dev server, and shards that asked again every
// RetryAsk meanwhile sent 83 reports for 35 leases.
const AnswerWait = 10 * time.Second

// Holder is a shard's side of the lease protocol: the lease it runs on
// and when it last asked for one. The zero Holder holds no lease.
type Holder struct {
	Lease Lease `json:"lease"`
	// Granted is when the lease arrived (the shard's time).
	Granted time.Time `json:"granted,omitzero"`
	// Asked is when the shard last reported.
	Asked time.Time `json:"asked,omitzero"`
}

// Apply adopts l at now if it is newer than the lease held, and reports
// whether it did. Older and repeated leases are ignored.
func (h *Holder) Apply(l Lease, now time.Time) bool {
	if l.Version <= h.Lease.Version {
		return false
	}
	h.Lease, h.Granted = l, now
	return true
}

// Allows reports whether the shard may grant at now.
func (h *Holder) Allows(now time.Time) bool { return h.Lease.Valid(now) }

// Asking records a report sent at now.
func (h *Holder) Asking(now time.Time) { h.Asked = now }

// Awaiting reports whether the shard's last report is not answered yet.
func (h *Holder) Awaiting() bool { return !h.Asked.IsZero() && h.Asked.After(h.Granted) }

// Load is what a shard has to do, as far as its lease is concerned.
type Load int

const (
	// Idle: nothing queued, in flight or inside a window.
	Idle Load = iota
	// Busy: work queued or in flight, or units still inside a window,
	// and the lease lets the queued work through.
	Busy
	// Starved: work queued that the lease does not let through (a
	// window or the concurrency of the share is used up).
	Starved
)

// NextReport is when the shard should report next, given its load: the
// zero time for never (idle with nothing leased). A lease is refreshed a
// third of the way through its life; without a valid lease a busy shard
// asks at once, and again AnswerWait after an ask that was not answered. A
// pushed lease is acknowledged at once, and a shard on a short lease, or
// starved by a lease that gave it all it wanted when it asked (its work
// grew since), asks again RetryAsk after it came. A lease the budget left
// below the shard's demand (Lease.Full) is not asked about again before
// its refresh, starved or not: the coordinator sends the shard more
// unasked when the budget frees (Coordinator.Spread), so while the app's
// budget is spent a starved shard reports once a refresh, not every few
// seconds.
func (h *Holder) NextReport(now time.Time, load Load) time.Time {
	expired := !now.Before(h.Lease.Expires)
	asked := h.Awaiting()
	if h.Lease.Pushed && !expired && !asked {
		// Even an idle shard acknowledges: until it does, the coordinator
		// keeps what it took back reserved for this shard.
		return now
	}
	if load == Idle && (expired || h.Lease.Share.Zero()) {
		return time.Time{}
	}
	if asked {
		return h.Asked.Add(AnswerWait)
	}
	if expired {
		return now
	}
	if load != Idle && h.Lease.Short || load == Starved && !h.Lease.Full {
		return h.Granted.Add(RetryAsk)
	}
	return h.Granted.Add(h.Lease.Expires.Sub(h.Granted) / 3)
}
