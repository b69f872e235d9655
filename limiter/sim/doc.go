// Package sim is a discrete-event simulator of Graph OneNote migrations:
// an upstream that enforces exact rolling-window limits, seeded latencies
// and workloads, and the policies compared in bench/: the limiter model
// (Ours, water-filling by each user's remaining work, and MaxMin, the same
// limiter told nothing of it), per-call exponential backoff with jitter like the Graph SDK
// (Backoff) and a fixed 30 s queue retry (QueueRetry).
//
// Beside the named scenarios, Generate draws samples from the whole space
// of workloads (users, pages, arrivals, scans, hidden and changing limits,
// outages, throttle headers), Oracle computes each sample's best feasible
// finish (a lower bound no policy beats), and Check holds a run to the
// limiter's targets.
//
// Time is virtual: hours of simulated traffic run in milliseconds to
// seconds. Everything is deterministic for a given seed.
package sim
