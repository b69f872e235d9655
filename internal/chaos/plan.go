package chaos

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// Kind is what a chaos event does, and for a kill, when exactly it
// strikes.
type Kind string

// The kinds of events.
const (
	// KillDuringGraph kills the worker while a Graph request of it is in
	// flight: the emulator has answered, the worker never sees the answer.
	KillDuringGraph Kind = "kill during a Graph request"
	// KillDuringNotionWrite kills the worker while a Notion write of it
	// (a page, block, property or file upload request) is in flight: the
	// emulator has applied it, the worker never sees the answer.
	KillDuringNotionWrite Kind = "kill during a Notion write"
	// KillAnytime kills the worker at a random moment.
	KillAnytime Kind = "kill at a random moment"
	// KillDuringRefresh kills the worker inside a token refresh: the
	// identity platform has answered (and issued new tokens), the worker
	// never sees the answer, so it cannot store them.
	KillDuringRefresh Kind = "kill during a token refresh"
	// KillAfterRefresh kills the worker a few milliseconds after the
	// identity platform's answer reached it: before, during or after it
	// wrote the new tokens to its token file.
	KillAfterRefresh Kind = "kill right after a token refresh"
	// ServerRestart stops the Temporal dev server and starts it again on
	// the same database file.
	ServerRestart Kind = "Temporal server restart"
)

// Event is one planned disruption. It fires once the migration has made
// At Graph requests (the run's clock: it only moves while the migration
// makes progress, so events spread over the work, not over wall time).
type Event struct {
	Kind Kind
	// At is the Graph request count at which the event fires.
	At int64
	// Delay is how long a KillAnytime waits after At is reached, or a
	// KillAfterRefresh after the refresh answer.
	Delay time.Duration
	// Pause is how long a killed worker stays down before it restarts.
	Pause time.Duration
	// Skip is how many matching requests a trap lets through before the
	// one it kills the worker in.
	Skip int
}

// String describes the event for a log line.
func (e Event) String() string {
	return fmt.Sprintf("%s at %d Graph requests", e.Kind, e.At)
}

// maxSkip bounds Event.Skip: a page's Notion writes are an upload or two
// per file, the row, a few appends and the status update.
const maxSkip = 8

// Plan draws the events of a run from seed: kills at uniformly random
// points between 3% and 90% of the expected Graph requests, a third of
// each kind (in random order), and restarts spread evenly with jitter.
// The same arguments always give the same plan.
func Plan(seed uint64, kills, restarts int, expectedRequests int64) []Event {
	rng := rand.New(rand.NewPCG(seed, 0xc4a05))
	span := func(lo, hi float64) int64 {
		return max(1, int64((lo+rng.Float64()*(hi-lo))*float64(expectedRequests)))
	}
	kinds := []Kind{KillDuringGraph, KillDuringNotionWrite, KillAnytime}
	var events []Event
	for i := range kills {
		events = append(events, Event{Kind: kinds[i%len(kinds)], At: span(0.03, 0.90),
			Delay: time.Duration(rng.IntN(1500)) * time.Millisecond,
			Pause: time.Duration(200+rng.IntN(1800)) * time.Millisecond, Skip: rng.IntN(maxSkip + 1)})
	}
	// Shuffle the kinds over the kill points.
	rng.Shuffle(len(events), func(i, j int) { events[i].Kind, events[j].Kind = events[j].Kind, events[i].Kind })
	for k := range restarts {
		mid := float64(k+1) / float64(restarts+1)
		jitter := 0.25 / float64(restarts+1)
		events = append(events, Event{Kind: ServerRestart, At: span(max(0.05, mid-jitter), min(0.9, mid+jitter))})
	}
	slices.SortStableFunc(events, func(a, b Event) int {
		if a.At != b.At {
			return int(a.At - b.At)
		}
		// A restart after a kill at the same point.
		return boolInt(a.Kind == ServerRestart) - boolInt(b.Kind == ServerRestart)
	})
	return events
}

// maxAfterRefreshDelay bounds how long after a refresh answer a
// KillAfterRefresh strikes: the worker decodes the answer, then encrypts,
// writes, syncs and renames its token file, which takes more than 10 ms
// on a loaded machine (kills at 2-10 ms all came before the write), so
// kills drawn up to this bound land before, during and after the write.
const maxAfterRefreshDelay = 100 * time.Millisecond

// PlanRefreshKills draws n kills timed inside token refreshes, at
// uniformly random points between 3% and 90% of the expected Graph
// requests, alternately during a refresh and right after one (at a
// random delay up to maxAfterRefreshDelay). The same arguments always
// give the same plan.
func PlanRefreshKills(seed uint64, n int, expectedRequests int64) []Event {
	rng := rand.New(rand.NewPCG(seed, 0x7e4e5))
	kinds := []Kind{KillDuringRefresh, KillAfterRefresh}
	var events []Event
	for i := range n {
		e := Event{Kind: kinds[i%len(kinds)], At: max(1, int64((0.03+rng.Float64()*0.87)*float64(expectedRequests))),
			Pause: time.Duration(200+rng.IntN(1800)) * time.Millisecond}
		if e.Kind == KillAfterRefresh {
			e.Delay = time.Duration(rng.Int64N(int64(maxAfterRefreshDelay)))
		}
		events = append(events, e)
	}
	return events
}

// merge returns the events of plans in the order they fire, restarts
// after kills at the same point.
func merge(plans ...[]Event) []Event {
	var events []Event
	for _, p := range plans {
		events = append(events, p...)
	}
	slices.SortStableFunc(events, func(a, b Event) int {
		if a.At != b.At {
			return int(a.At - b.At)
		}
		return boolInt(a.Kind == ServerRestart) - boolInt(b.Kind == ServerRestart)
	})
	return events
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
