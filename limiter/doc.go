// Package limiter is the pure model of the Graph OneNote rate limits that
// the limiter entity runs.
//
// A Limiter holds a spec table (rate windows and concurrency caps per user
// and per app), a sliding log of every request granted, the queued
// requests per user and lane, the live leases, the breakers and a retry
// budget. It never reads the clock: every method takes now. It starts no
// goroutines and never lets map order reach a decision, so the same inputs
// at the same times always give the same grants. Its whole state
// round-trips through encoding/json (MarshalJSON, UnmarshalJSON) so that a
// Temporal workflow can carry it across continue-as-new.
//
// The typical cycle, as driven by the entity:
//
//	l.Enqueue(req, now)            // an acquire signal
//	for _, g := range l.Grant(now) // grants every request that may leave now
//		signal(g)
//	l.Release(leaseID, outcome, now) // a release signal, with what upstream said
//	timer(l.NextWakeup(now))       // when to call Grant again
//
// A Limiter is not safe for concurrent use.
//
// Schedule is the model of a resource limited by rate alone (Notion's per
// integration token): it hands out send slots, possibly in the future,
// such that no more than N fall in any rolling window of each PaceSpec
// window (a sliding log, like Limiter's), and holds every slot not yet
// handed out during a pause (upstream's Retry-After). It too is pure and
// round-trips through JSON.
package limiter
