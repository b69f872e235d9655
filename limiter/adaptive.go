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
	// RiseAt is when the latest rise probe of the window was refused,
	// RiseFails how many were refused in a row since one succeeded, and
	// RiseStep how many units above the learned limit the next may take
	// (0: one). See riseFrom.
	RiseAt    int64 `json:"riseAt,omitempty"`
	RiseFails int   `json:"riseFails,omitempty"`
	RiseStep  int   `json:"riseStep,omitempty"`
	// Peak is the highest count proven to succeed within the scope's
	// longest window, at PeakAt: what the window took, remembered
	// longer than Proven (see scopeView.underPeak). Kept for the app's
	// windows and the users' shared proof (state.UserProof), never in
	// a user's own state.
	Peak   int   `json:"peak,omitempty"`
	PeakAt int64 `json:"peakAt,omitempty"`
}

// peak is the highest count proven to succeed within long (the scope's
// longest window) of now, or 0.
func (a adapted) peak(long, now int64) int {
	if now-a.PeakAt >= long {
		return 0
	}
	return a.Peak
}

// provePeak records a success at count c in the window's peak.
func (a *adapted) provePeak(c int, long, now int64) {
	if c >= a.peak(long, now) {
		a.Peak, a.PeakAt = c, now
	}
}

// The rise probe. A limit that upstream raises during a run, without
// headers to say so, shows only when a request goes above the limit
// learned before: the creep (limit) raises it only after a quiet that
// doubles with each strike, four to eight hours once a fall was walked
// down, and until then the window binds under room upstream would give
// (full-79, 131: users idled 56 minutes an hour). So a window longer
// than MaxCooldown, learned under its spec, that binds with work waiting
// lets a request go above its learned limit:
//   - after a clean cooldown at the learned limit: a cooldown since it was
//     last lowered or throttled, and since its last refused rise probe,
//     a cooldown doubled for each refused in a row, at most the window's
//     length (riseFrom): a bound hour is probed when its scope first goes
//     idle at the learned limit, then at 20 s, 40 s, ... up to once an
//     hour while it stays there;
//   - one probe in flight in the limiter (state.RiseProbe), a unit above
//     the learned limit. The first goes with nothing else of its scope in
//     flight; a success raises the learned limit to its count
//     (adapted.prove, shared with every user for the user table:
//     Limiter.riseProved) and the next goes at once, beside the scope's
//     other requests, a request of several units taking up to a step
//     that doubles with each success (RiseStep). The climb is one unit a
//     round trip, unless the creep has reached further;
//   - while the limiter's rise budget holds a token (state.RiseTokens):
//     from the first throttle on, every success earns riseRatio, every
//     throttle of any kind costs one, at most riseBurst are kept. The
//     probes that find nothing then cost at most riseRatio of the
//     requests beyond the throttles already taken, whatever the windows'
//     lengths: the throttled target (1% after the first throttle) keeps
//     the other half;
//   - only while upstream has sent no throttle headers (state.Headers):
//     with them a rise shows in the percentages (Limiter.soft).
//
// A minute window is not probed: its probes would come every minute, a
// throttle in every few dozen requests where the budget allows, and a
// minute learned too low idles its users seconds a minute, not an hour.
// A rise that comes while the scope is already idle at its learned limit
// is found at the next probe, at most a window's length on (the stall
// property still counts that idle: probing every two cooldowns through
// an idle hour would cost some 170 throttles an hour).
//
// A refused rise probe says the learned limit still holds: it lowers
// nothing, trips no breaker and is blamed on no scope (a throttle of the
// app hour's probe would otherwise be inferred the user's), and only
// backs the window's probes off (Limiter.riseRefused).
const (
	riseRatio = 0.005
	riseBurst = 2.0
)

// riseFrom is the earliest time window a (spec limit spec, length per)
// may take a rise probe, or never when it is not learned under its spec.
func (a adapted) riseFrom(spec int, per int64, t *Tuning, now int64) int64 {
	if a.Lowered == 0 || per <= int64(t.MaxCooldown) || a.limit(spec, t, now) >= spec {
		return never
	}
	cool := int64(t.Cooldown)
	at := max(a.At, a.HitAt) + cool
	if a.RiseAt > 0 {
		at = max(at, a.RiseAt+min(cool<<min(a.RiseFails, 30), max(cool, per)))
	}
	return at
}

// riseStep is how many units above its learned limit the window's next
// rise probe may take.
func (a adapted) riseStep() int { return max(1, a.RiseStep) }

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
	a.Peak = min(a.Peak, to) // what was taken before a fall says nothing of the limit now
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
