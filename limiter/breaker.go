package limiter

// BreakerState is the state of a scope's hard breaker.
type BreakerState uint8

const (
	// Closed lets requests through.
	Closed BreakerState = iota
	// Open lets nothing through until its cooldown ends.
	Open
	// HalfOpen lets one probe through; its outcome closes or reopens it.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s BreakerState) String() string {
	switch s {
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return "closed"
}

// breaker is a hard breaker of one scope. Open with Until in the past
// means half-open.
type breaker struct {
	Open     bool   `json:"open,omitempty"`
	Until    int64  `json:"until,omitempty"`
	Cooldown int64  `json:"cooldown,omitempty"`
	Probe    string `json:"probe,omitempty"` // lease ID of the probe in flight
	Reason   string `json:"reason,omitempty"`
}

func (b *breaker) state(now int64) BreakerState {
	switch {
	case !b.Open:
		return Closed
	case now < b.Until:
		return Open
	}
	return HalfOpen
}

// admit reports whether a request may pass now, whether it must be the
// probe, and if not, until when it is blocked (0: until the probe ends).
func (b *breaker) admit(now int64) (ok, probe bool, until int64) {
	switch b.state(now) {
	case Closed:
		return true, false, 0
	case Open:
		return false, false, b.Until
	}
	if b.Probe == "" {
		return true, true, 0
	}
	return false, false, 0
}

// trip opens a closed breaker for the base cooldown. An open breaker is
// left alone: throttles of requests sent before it opened say nothing new.
func (b *breaker) trip(now int64, t *Tuning, reason string) {
	if b.Open {
		return
	}
	b.Open = true
	b.Cooldown = int64(t.Cooldown)
	b.Until = now + b.Cooldown
	b.Reason = reason
	b.Probe = ""
}

// probeFailed reopens the breaker with a doubled cooldown, at most limit.
func (b *breaker) probeFailed(now int64, t *Tuning, reason string, limit int64) {
	b.Open = true
	b.Cooldown = min(max(2*b.Cooldown, int64(t.Cooldown)), limit)
	b.Until = now + b.Cooldown
	b.Reason = reason
	b.Probe = ""
}

func (b *breaker) close() { *b = breaker{} }
