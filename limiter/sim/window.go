package sim

import "time"

// window is the upstream's own exact rolling-window log of one limit,
// independent of the model's: an arrival at a counts at t iff a > t-per.
type window struct {
	limit int
	per   time.Duration
	times []time.Time
	head  int
	peak  int // largest count ever seen
}

func (w *window) advance(now time.Time) {
	edge := now.Add(-w.per)
	for w.head < len(w.times) && !w.times[w.head].After(edge) {
		w.head++
	}
	if w.head > 1024 && 2*w.head > len(w.times) {
		w.times = append(w.times[:0], w.times[w.head:]...)
		w.head = 0
	}
}

func (w *window) count(now time.Time) int {
	w.advance(now)
	return len(w.times) - w.head
}

func (w *window) add(now time.Time) {
	w.advance(now)
	w.times = append(w.times, now)
	w.peak = max(w.peak, len(w.times)-w.head)
}

// freeAt is when one more arrival fits.
func (w *window) freeAt(now time.Time) time.Time {
	n := w.count(now)
	if n < w.limit {
		return now
	}
	return w.times[w.head+n-w.limit].Add(w.per)
}
