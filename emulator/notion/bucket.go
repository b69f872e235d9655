package notion

import (
	"math"
	"time"
)

// bucket is a token bucket: it holds up to burst tokens and refills at
// rate tokens a second. The zero value starts full on first use.
type bucket struct {
	tokens  float64
	last    time.Time
	started bool
}

// refill adds the tokens earned since the last call (a clock that goes
// backwards earns nothing).
func (b *bucket) refill(now time.Time, rate float64, burst int) {
	if !b.started {
		b.tokens, b.last, b.started = float64(burst), now, true
		return
	}
	if elapsed := now.Sub(b.last).Seconds(); elapsed > 0 {
		b.tokens = math.Min(float64(burst), b.tokens+elapsed*rate)
		b.last = now
	}
}

// wait is how many whole seconds (at least 1) pass before one token is
// available.
func (b *bucket) wait(rate float64) int {
	return max(int(math.Ceil((1-b.tokens)/rate)), 1)
}
