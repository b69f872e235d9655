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
	// HitAt is when Hit was set. Throttles within a cooldown of it are
	// one episode: Hit keeps the lowest count of the episode.
	HitAt int64 `json:"hitAt,omitempty"`
	// Seen is the count the window held at the latest throttle blamed on
	// its scope, whichever window took the blame: a window throttled at
	// that count again binds (scopeView.again). SeenAt is when that
	// throttle's episode began (see see).
	Seen   int   `json:"seen,omitempty"`
	SeenAt int64 `json:"seenAt,omitempty"`
}

// see records a throttle blamed on the window's scope at count c. Throttles
// within a cooldown of the episode's first are one episode: the requests
// in flight when the first came back. SeenAt stays at its first, so
// the breaker's probe a cooldown later is a new episode however late the
// last of them came back (small-83: the user hour hidden at 198 refused
// the probe at 202, one on from the 201 of the episode, but the episode's
// last throttle was 9.95 s before, under a cooldown: the hour was not
// singled out, and the minute, its proof reset, was walked down 77 -> 44).
func (a *adapted) see(c int, t *Tuning, now int64) {
	if a.SeenAt == 0 || now-a.SeenAt > int64(t.Cooldown) {
		a.SeenAt = now
	}
	a.Seen = c
}

// hit records a throttle blamed on the window at count c: the lowest
// count of the episode, or c when the last episode is over.
func (a *adapted) hit(c int, t *Tuning, now int64) {
	if a.Hit == 0 || c < a.Hit || now-a.HitAt > int64(t.Cooldown) {
		a.Hit, a.HitAt = c, now
	}
}

// prove records a success at count c (including the request) of a
// request granted at granted. A success granted before the latest
// lowering at a count above the lowered limit undoes that much of it at
// once: upstream took c then, and the lowering went too far (it went to
// the count proven when the throttle came back, while successes at higher
// counts were still in flight, or it blamed this limit for another's
// throttle). It rises no higher than the lowest count throttled (Hit):
// a success above it that was sent with the throttled requests shows the
// limit changed under them, not that it is higher. The lowering counts as
// a strike still.
func (a *adapted) prove(c int, granted, per, now int64) {
	if c >= a.proven(per, now) {
		a.Proven, a.ProvenAt = c, now
	}
	if a.Lowered > 0 && granted <= a.At && c > a.Lowered {
		if a.Hit > 0 {
			c = min(c, a.Hit)
		}
		a.Lowered = max(a.Lowered, c)
		return
	}
	if a.Lowered > 0 && granted > a.At && c > a.Lowered {
		// Sent after the lowering, above it (the limit crept back):
		// upstream takes c now, so the lowering was too low. It is
		// unlearned that far, and its strike with it, so that a
		// mistaken lowering does not lengthen the next quiet period.
		a.Lowered = c
		a.Strikes = max(0, a.Strikes-1)
	}
}

// raise unlearns a lowering up to to, the limit upstream showed it has
// now (at most the spec's: at or above it the lowering is gone). The
// strike goes with it, as a success above the lowering takes it back
// (prove), and a throttled count under the new limit (Hit) no longer
// names this window.
func (a *adapted) raise(spec, to int) {
	if a.Lowered == 0 || to <= a.Lowered {
		return
	}
	a.Lowered = min(to, spec)
	a.Strikes = max(0, a.Strikes-1)
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
	// What succeeded above the new limit before it says nothing of the
	// limit now (upstream may have lowered it), but what succeeded up to
	// it still proves that much: a later throttle at a lower count is
	// not this window's doing unless nothing else could have caused it
	// (lowerBusiest), so the limit does not ratchet down a unit with
	// every throttle another window caused, once each time the window
	// fills. A second lowering within MaxCooldown of the last shows the
	// limit falling (upstream lowered it under a full window, and the
	// probes walk it down as the window slides): what was taken before
	// the fall proves nothing then, and the proof starts again.
	if a.Lowered > 0 && now-a.At <= int64(t.MaxCooldown) {
		a.Proven, a.ProvenAt = 0, 0
	} else {
		a.Proven = min(a.Proven, to)
	}
	a.Lowered = to
	a.At = now
	a.Strikes = min(a.Strikes+1, maxStrikes)
	return true
}

// undo takes back a lowering made at or after at, to from, the effective
// limit before it (at or above spec: no lowering), with its strike and
// the throttled count it recorded (Hit): the throttle was another
// window's (Limiter.unlearnUser).
func (a *adapted) undo(from, spec int, at int64) {
	if a.Lowered == 0 || a.At < at {
		return
	}
	if from >= spec {
		a.Lowered = 0
	} else {
		a.Lowered = from
	}
	a.Strikes = max(0, a.Strikes-1)
	if a.HitAt >= at {
		a.Hit, a.HitAt = 0, 0
	}
}
