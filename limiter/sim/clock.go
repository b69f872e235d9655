package sim

import (
	"container/heap"
	"time"
)

// Epoch is the simulated time at which every run starts.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// event is a callback due at a time; seq breaks ties in schedule order.
type event struct {
	at  time.Time
	seq uint64
	fn  func()
}

type eventHeap []event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	return h[i].seq < h[j].seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// clock is the virtual clock and its event queue.
type clock struct {
	now    time.Time
	events eventHeap
	seq    uint64
}

// at schedules fn at t (not before now).
func (c *clock) at(t time.Time, fn func()) {
	if t.Before(c.now) {
		t = c.now
	}
	c.seq++
	heap.Push(&c.events, event{t, c.seq, fn})
}

// after schedules fn d from now.
func (c *clock) after(d time.Duration, fn func()) { c.at(c.now.Add(d), fn) }

// run processes events until none is left, until is passed, or done
// reports true.
func (c *clock) run(until time.Time, done func() bool) {
	for c.events.Len() > 0 && !done() {
		e := heap.Pop(&c.events).(event)
		if e.at.After(until) {
			c.now = until
			return
		}
		c.now = e.at
		e.fn()
	}
}

// since is the simulated time elapsed since Epoch.
func (c *clock) since() time.Duration { return c.now.Sub(Epoch) }
