// Package sim is a discrete-event simulator of Graph OneNote migrations:
// an upstream that enforces exact rolling-window limits, seeded latencies
// and workloads, and the policies compared in bench/: the limiter model
// (Ours, water-filling by each user's remaining work, and MaxMin, the same
// limiter told nothing of it), per-call exponential backoff with jitter like the Graph SDK
// (Backoff) and a fixed 30 s queue retry (QueueRetry).
//
// Time is virtual: hours of simulated traffic run in milliseconds to
// seconds. Everything is deterministic for a given seed.
package sim
