package limiter

import "math"

// adapted is an effective limit below the spec after upstream showed the
// real limit is lower. It creeps back towards the spec: after a quiet
// period (doubling with each strike) it rises by a step every interval.
// The value is a pure function of time, so nothing needs a timer.
type adapted struct {
	Lowered int   `json:"lowered,omitempty"` // 0: not lowered
	At      int64 `json:"at,omitempty"`      // when it was last lowered
	Strikes int   `json:"strikes,omitempty"` // how often it was lowered
	// Proven is the highest count at which a request succeeded, at
	// ProvenAt: the real limit was at least that high then.
	Proven   int   `json:"proven,omitempty"`
	ProvenAt int64 `json:"provenAt,omitempty"`
	// Hit is the count the window held at the latest throttle blamed on
	// it: a later throttle at that count or above is most likely its
	// doing too, whatever the window's limit has crept back to.
	Hit int `json:"hit,omitempty"`
}

// prove records a success at count c (including the request).
func (a *adapted) prove(c int, per, now int64) {
	if c >= a.proven(per, now) {
		a.Proven, a.ProvenAt = c, now
	}
}

// proven is the count known to succeed, remembered for two window
// lengths (the real limit may drop later).
func (a adapted) proven(per, now int64) int {
	if now-a.ProvenAt >= 2*per {
		return 0
	}
	return a.Proven
}

// probing reports whether granting up to count c goes above the level
// last throttled while the limit creeps back.
func (a adapted) probing(c, spec int, t *Tuning, now int64) bool {
	return a.Lowered > 0 && c > a.Lowered && a.limit(spec, t, now) > a.Lowered
}

const maxStrikes = 5

// limit is the effective limit at now for a spec limit of spec.
func (a adapted) limit(spec int, t *Tuning, now int64) int {
	if a.Lowered == 0 || a.Lowered >= spec {
		return spec
	}
	quiet := int64(t.AdaptQuiet) << max(0, a.Strikes-1)
	since := now - a.At - quiet
	if since < 0 {
		return a.Lowered
	}
	every := max(1, int64(t.AdaptEvery))
	step := max(1, int(math.Ceil(t.AdaptStep*float64(spec))))
	steps := since/every + 1
	if steps > int64(spec) {
		return spec
	}
	return min(spec, a.Lowered+int(steps)*step)
}

// lower sets the effective limit to to (at least 1 and the floor) if that is below the
// current one, and reports whether it changed.
func (a *adapted) lower(spec, to int, t *Tuning, now int64) bool {
	to = max(1, to, int(math.Ceil(t.AdaptFloor*float64(spec))))
	if to >= a.limit(spec, t, now) {
		return false
	}
	a.Lowered = to
	a.At = now
	a.Strikes = min(a.Strikes+1, maxStrikes)
	return true
}
