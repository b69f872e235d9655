package limiter

import (
	"math"
	"sort"
)

// scopeState is the accounting of one scope: the app, or one user.
type scopeState struct {
	Log      rollingLog `json:"log"`
	InFlight int        `json:"inFlight,omitempty"`
	Limits   []adapted  `json:"limits"`
	Conc     adapted    `json:"conc"`
	Breaker  breaker    `json:"breaker"`
	LastFG   int64      `json:"lastFG,omitempty"` // last foreground enqueue
	// FGDone is when the scope's (a user's) last foreground lease was
	// released, and FGLag how long its scan had waited in the queue in
	// all by that request's grant (see Limiter.fgOrigin).
	FGDone int64 `json:"fgDone,omitempty"`
	FGLag  int64 `json:"fgLag,omitempty"`
	// FG logs the foreground units enqueued, over the scope's windows: the
	// demand the foreground reserve follows (see demand).
	FG rollingLog `json:"fg,omitzero"`
	// RefusedAt is when a request of the scope was last throttled (the
	// app's: last throttled by the app's own windows, appRefusedAgain);
	// OKAt is the grant time of the latest success in the scope (see
	// refusedAgain).
	RefusedAt int64 `json:"refusedAt,omitempty"`
	OKAt      int64 `json:"okAt,omitempty"`
	// fgMemo is demand's last answer, per window: a decision asks for it
	// at one time many times over.
	fgMemo demandMemo
}

// demandMemo remembers the demand per window at one time and log lengths.
type demandMemo struct {
	at, len, log int64
	d            []int
	next         int64 // when a shortfall next steps down
}

// scopeView binds a scopeState to its spec for one decision.
type scopeView struct {
	st   *scopeState
	spec *ScopeSpec
	pers []int64
	t    *Tuning
	// hold, when set, is room per window kept for other users'
	// background (see Limiter.computeHolds).
	hold []int
	// peers, when set (a user's scope, at a throttle), is per window the
	// highest count recently proven to succeed in any user's scope
	// (state.UserProof): one user table holds for every user, so a user
	// window under what another user's took is not what refused it
	// (small-129: a user's hour at 173, under the 193 other users had
	// taken, was blamed for the app hour's throttle and lowered to 172, and
	// the user idled 22 minutes).
	peers []adapted
	// byPeak, when set (at a throttle), says the scope was blamed for
	// being at its peak against the other under its own (underPeak):
	// its windows under their peak are not blamed either (lowerBusiest).
	byPeak bool
	// rise is whether the limiter's rise budget lets a rise probe go
	// (see riseFrom).
	rise bool
	// table, when set (a user's scope, at a report or a throttle), is per
	// window what the other users learned of it (Limiter.tableLimits):
	// 0 where none learned it lower than the spec.
	table []int
}

// riseAt is when window w, holding c units, may take cost more units of
// lane above its learned limit as a rise probe (see riseFrom): never when
// it may not, now or later when it may.
func (v scopeView) riseAt(w int, lane Lane, c, cost int, now int64) int64 {
	a := &v.st.Limits[w]
	if !v.rise || (v.hold != nil && v.hold[w] > 0) {
		return never
	}
	spec := v.spec.Windows[w].Limit
	n := a.limit(spec, v.t, now)
	step := a.riseStep()
	// The first probe is one request alone, whatever the window holds
	// (a refused probe's units stay in it); after a success, the next
	// go up to step above the limit the success raised. Background
	// reaches the learned limit through the foreground reserve, a request
	// at a time, as a probe's way up: a reserve (any scans) otherwise
	// kept background, which meets its limit less the reserve, from ever
	// probing (full-919: 6 minutes' stall to 7 s; full-939: 1.039x to
	// 1.002x).
	if v.effLimit(w, Foreground, now) != n || cost > step || step == 1 && v.st.InFlight > 0 || step > 1 && c+cost > n+step {
		return never
	}
	return max(now, a.riseFrom(spec, v.pers[w], v.t, now))
}

// proven is the count recently proven to succeed in window w: the
// scope's own, or its peers' when higher.
func (v scopeView) proven(w int, now int64) int {
	p := v.st.Limits[w].proven(v.pers[w], now)
	if w < len(v.peers) {
		p = max(p, v.peers[w].proven(v.pers[w], now))
	}
	return p
}

func newScopeState(n int) scopeState {
	s := scopeState{Limits: make([]adapted, n)}
	s.Log.reset(n)
	s.FG.reset(n)
	return s
}

// effLimit is window w's effective limit for lane: all of the adapted
// limit for foreground; for background, that less the reserve (at most
// half the limit), held while foreground was seen within ReserveIdle: the
// base reserve (Tuning.Reserve) and the foreground demand expected in the
// window that has not arrived yet (see demand).
func (v scopeView) effLimit(w int, lane Lane, now int64) int {
	n := v.st.Limits[w].limit(v.spec.Windows[w].Limit, v.t, now)
	if lane == Foreground || !v.reserving(now) {
		return n
	}
	r := int(v.t.Reserve*float64(n)+0.999999) + v.demand(w, now)
	return max(1, n-min(r, n/2))
}

// demandHold is how many of the shortest windows the foreground rate is
// remembered for, beyond the window itself: the busiest shortest window
// ending within the last one. The count of the short window alone dips
// whenever a scan's first request leaves it before the next scan's
// arrives, and background would fill what the next scans need.
const demandHold = 1

// demand is the room window w holds for foreground beyond the base
// reserve. It is held only while foreground is sustained: some came in
// each of the last two shortest windows (sustained). One scan, or scans
// minutes apart, are served from the base reserve; extrapolated to the
// hour, one scan of three held 177 of the app's 800 for two minutes, and
// background under a hidden limit idled while the hour had room
// (small-95: 61 s, with the scans 22 minutes apart).
//
// While it is sustained, the scope is expected to keep its rate (the
// busiest shortest window within the hold): rate units in each shortest
// window from now on, the current one's less the units already asked for
// in it (here). By τ from now that is F(τ) = rate·⌈τ/shortest⌉ − here.
// A window longer than the hold expects no more than its own pace: the
// foreground it logged (seen), spread over the shortest windows since
// the oldest of it (span, at least the hold's), so F(τ) = min(rate·k,
// ⌈seen·k/span⌉) − here with k = ⌈τ/shortest⌉. The peak minute of a
// burst times 60 is not the hour's demand: a burst of scans two minutes
// running held up to half the app hour (the cap) for a minute while
// background idled (full-76, 137, 165, 182, 188, 199, 217, 258: stalls of
// 21 to 58 s); a steady rate's pace is its rate, so twenty people
// scanning one a minute still hold what the hour will want.
// The window frees room by itself as its units leave: D(τ) of them by τ
// from now, known from the log. Background granted now stays in the
// window for all of it, so the room to hold is the worst shortfall, max
// over τ up to the window's length of F(τ) − D(τ), at least 0
// (rollingLog.shortfall). For the shortest window that is rate − here,
// the peak less what the window holds.
//
// A window that drains as fast as the scans come holds nothing beyond the
// base reserve: background takes what leaves, and the scans take the base
// reserve and what leaves after them. A window that will not drain in
// time (background filled the hour in a run's first minutes) holds what
// the scans will want before it does: twenty people scanning one a
// minute, 3 requests each, hold 3 a minute until the hour slides.
func (v scopeView) demand(w int, now int64) int {
	fg, m := &v.st.FG, &v.st.fgMemo
	if m.d != nil && m.at == now && m.len == int64(len(fg.entries)) && m.log == int64(len(v.st.Log.entries)) {
		return m.d[w]
	}
	fg.advance(v.pers, now)
	s := shortest(v.pers)
	rate := 0
	if v.sustained(now) {
		rate = fg.peak(v.pers[s], demandHold*v.pers[s], now)
		v.st.Log.advance(v.pers, now)
	}
	m.d, m.next = m.d[:0], never
	for x, per := range v.pers {
		d := 0
		if rate > 0 {
			var next int64
			seen, span := v.seen(x, now)
			if span == 0 { // the rate alone
				seen, span = rate, 1
			}
			d, next = v.st.Log.shortfall(x, per, rate, v.pers[s], fg.count(s), seen, span, now)
			if d > 0 {
				m.next = min(m.next, next)
			}
		}
		m.d = append(m.d, d)
	}
	m.at, m.len, m.log = now, int64(len(fg.entries)), int64(len(v.st.Log.entries))
	return m.d[w]
}

// seen is the foreground logged over window w's length and the periods
// of the shortest window since the oldest of it (at least the rate's:
// the hold and the shortest window): the pace the window expects (see
// demand). A window no longer than the rate's follows the rate alone: a
// span of 0.
func (v scopeView) seen(w int, now int64) (int, int64) {
	fg, s := &v.st.FG, v.pers[shortest(v.pers)]
	least := int64(1 + demandHold)
	if v.pers[w] <= least*s || fg.start[w] >= len(fg.entries) {
		return 0, 0
	}
	return fg.count(w), max(least, (now-fg.entries[fg.start[w]].at+s-1)/s)
}

// demandEnds is when the demand may next fall (never when no foreground
// is logged): a foreground unit leaving the rate's hold or the last
// shortest window (the rate stops being sustained), or a window's
// shortfall falling as its expected foreground steps down.
func (v scopeView) demandEnds(now int64) int64 {
	fg := &v.st.FG
	fg.advance(v.pers, now)
	at := never
	s := v.pers[shortest(v.pers)]
	hold := s + demandHold*s
	if i := sort.Search(len(fg.entries), func(i int) bool { return fg.entries[i].at > now-hold }); i < len(fg.entries) {
		at = min(at, fg.entries[i].at+hold)
		if j := sort.Search(len(fg.entries), func(i int) bool { return fg.entries[i].at > now-s }); j < len(fg.entries) {
			at = min(at, fg.entries[j].at+s)
		}
		// A longer window's pace falls as its span grows a period, and
		// when a unit leaves it (see seen).
		for w, per := range v.pers {
			if per > hold && fg.start[w] < len(fg.entries) {
				first := fg.entries[fg.start[w]].at
				_, span := v.seen(w, now)
				at = min(at, first+per, first+span*s+1)
			}
		}
		v.demand(0, now)
		at = min(at, v.st.fgMemo.next)
	}
	return at
}

// sustained reports whether foreground came in each of the last two
// shortest windows: a rate, not one burst, which the longer windows hold
// room for (see demand).
func (v scopeView) sustained(now int64) bool {
	per := v.pers[shortest(v.pers)]
	return v.st.FG.countAt(per, now) > 0 && v.st.FG.countAt(per, now-per) > 0
}

func shortest(pers []int64) int {
	w := 0
	for i, p := range pers {
		if p < pers[w] {
			w = i
		}
	}
	return w
}

// reserving reports whether the window reserve is held at now: foreground
// work was enqueued in this scope within ReserveIdle.
func (v scopeView) reserving(now int64) bool {
	return v.st.LastFG != 0 && now < v.reserveEnds()
}

// reserveEnds is when the window reserve lapses.
func (v scopeView) reserveEnds() int64 { return v.st.LastFG + int64(v.t.ReserveIdle) }

// effConc is the effective concurrency cap for lane. While a lowered
// cap creeps back, the slots above the learned cap go one at a time
// (concProbe): the creep is a guess, not a proof.
func (v scopeView) effConc(lane Lane, now int64) int {
	n := v.st.Conc.limit(v.spec.Concurrency, v.t, now)
	return min(laneLimit(n, lane, v.t.Reserve), v.concProbe(n, lane))
}

// concProbe is the most a lane may have in flight while the scope's
// lowered concurrency cap has crept back to n above its learned level
// (Lowered): one slot above that level for background, and the lane
// reserve above that for foreground; without a creep, no bound. A
// success with the extra slot in flight proves it (adapted.prove raises
// Lowered) and the next slot goes. A crept cap taken whole sent every
// slot above the real cap at once, a throttle for each: a user arriving
// after the cap crept back paid two throttles where the real cap is 2
// of 5 (full-189: 1.12% throttled).
func (v scopeView) concProbe(n int, lane Lane) int {
	a := v.st.Conc
	if a.Lowered == 0 || n <= a.Lowered {
		return n
	}
	if lane == Foreground {
		return a.Lowered + 1 + (n - laneLimit(n, Background, v.t.Reserve))
	}
	return a.Lowered + 1
}

// laneLimit is what a lane may use of limit n: all of it for
// foreground; n minus the reserve (rounded up, at least 1 left) for
// background.
func laneLimit(n int, lane Lane, reserve float64) int {
	if lane == Foreground {
		return n
	}
	r := int(reserve*float64(n) + 0.999999)
	return max(1, n-r)
}

// fits reports whether cost units and slots fit now in every window and
// the concurrency cap (the log must be advanced to now).
func (v scopeView) fits(lane Lane, cost, slots int, now int64) bool {
	for w := range v.pers {
		lim := v.effLimit(w, lane, now)
		c := v.st.Log.count(w)
		if c+cost > lim && !(cost > lim && c == 0) {
			if v.riseAt(w, lane, c, cost, now) > now {
				return false
			}
			continue // a rise probe: the hold is 0 (riseAt)
		}
		if v.hold != nil && c+cost+v.hold[w] > lim {
			return false
		}
		// Above the level last throttled, probe one request at a time so
		// a wrong guess costs one throttle, not one per slot.
		if v.st.InFlight > 0 && v.st.Limits[w].probing(c+cost, v.spec.Windows[w].Limit, v.t, now) {
			return false
		}
	}
	return v.st.InFlight+slots <= max(v.effConc(lane, now), slots)
}

// above is the windows (bit w for window w) in which cost units on
// counts go above a learned limit under its spec: a rise probe (see
// riseFrom).
func (v scopeView) above(counts []int, cost int, now int64) uint64 {
	var out uint64
	for w, c := range counts {
		a := v.st.Limits[w]
		spec := v.spec.Windows[w].Limit
		if n := a.limit(spec, v.t, now); w < 64 && a.Lowered > 0 && n < spec && c+cost > n {
			out |= 1 << w
		}
	}
	return out
}

// rateFreeAt is the earliest time at which cost fits in every window: the
// maximum over the windows.
func (v scopeView) rateFreeAt(lane Lane, cost int, now int64) int64 {
	at := now
	for w, per := range v.pers {
		lim := v.effLimit(w, lane, now)
		if v.hold != nil {
			lim = max(1, lim-v.hold[w])
		}
		f := v.st.Log.freeAt(w, per, lim, cost, now)
		if f > now {
			f = min(f, v.riseAt(w, lane, v.st.Log.count(w), cost, now))
		}
		at = max(at, f)
	}
	return at
}

// concFull reports whether slots do not fit in the concurrency cap now.
func (v scopeView) concFull(lane Lane, slots int, now int64) bool {
	return v.st.InFlight+slots > max(v.effConc(lane, now), slots)
}

// limits is each window's effective limit (the adapted one, without the
// reserve) at now.
func (v scopeView) limits(now int64) []int {
	out := make([]int, len(v.pers))
	for w := range out {
		out[w] = v.st.Limits[w].limit(v.spec.Windows[w].Limit, v.t, now)
	}
	return out
}

// counts fills out (one element per window) with each window's count.
func (v scopeView) counts(out []int) []int {
	for w := range out {
		out[w] = v.st.Log.count(w)
	}
	return out
}

// provenShare is how full, relative to the fullest window, a window the
// proven rule leaves must be to take the blame for a throttle (see
// lowerBusiest).
const provenShare = 0.7

// lowerBusiest lowers the effective limit of the window(s) that were
// fullest when a request was granted to the count they held then. It
// reports whether anything changed.
//
// A window that has recently let a request through at a higher count is
// not to blame, and neither is one holding less than the adaptation
// floor of its limit (no real limit is believed to be that low). When
// that leaves no window, the fullest window at or above its floor is
// blamed after all: the model's counts blur against upstream's (requests
// in flight are counted from their grant, every window is padded, and a
// request whose send time is unknown is counted from its release), so a
// count a unit or two under the proven one is no proof of room. Nor is a
// window to blame that the proven rule leaves when it is far emptier than
// the fullest one it let off (under provenShare of its share of the
// limit): the counts blur by the requests in flight and the window's
// padding, so a few units under a proven count say less than a window at
// a third of its limit does. The fullest window is blamed then, unless
// it is longer than every window the proof left (longerOnly).
//
// A window is lowered to the highest count recently proven to succeed in
// it when that is below the count it held (upstream let that many through,
// so lowering further would ratchet), else to the count it held. Before
// all that, a window throttled at the very count it held at the scope's
// previous throttle is blamed alone (see again). A window
// lowered earlier that holds less than its floor at this throttle cannot
// have caused it: its lowering was a mistake and is undone.
func (v scopeView) lowerBusiest(before []int, now int64) bool {
	if len(before) != len(v.pers) {
		return false
	}
	ratios, best := v.blame(before, true, now)
	if v.byPeak {
		best = v.peakLeft(before, ratios, now)
	}
	if all, bestAll := v.blame(before, false, now); best < provenShare*bestAll && !v.longerOnly(all, bestAll, ratios) {
		ratios, best = all, bestAll
	} else {
		ratios, best = v.shortestLeft(before, ratios, best, now)
	}
	if again := v.again(before, now); again != nil {
		ratios, best = again, 1
	}
	for w, c := range before {
		v.st.Limits[w].see(c, v.t, now)
	}
	changed := false
	for w, c := range before {
		a := &v.st.Limits[w]
		spec := v.spec.Windows[w].Limit
		if best >= 0 && ratios[w] >= best-0.05 {
			to := c
			if p := a.proven(v.pers[w], now); p > 0 && p < c {
				to = p
			}
			changed = a.lower(spec, to, v.t, now) || changed
			a.hit(c, v.t, now)
			continue
		}
		if best >= 0 && a.Lowered > 0 && float64(c) < v.t.AdaptFloor*float64(spec) {
			a.Lowered = 0
			changed = true
		}
	}
	return changed
}

// longerOnly reports whether every window the fullness rule would blame
// (ratios all, best bestAll) is longer than the shortest window the
// proven rule left (ratios left): the cheaper wrong guess then stands
// against fullness, as in shortestLeft. A window under its proof, though
// the fullest by believed limits, costs the rest of its length when
// blamed wrongly, and is lowered under what it took: full-159, a user
// hour learned at 133 held 132 (under the 134 and 135 it and another
// user took) when the user's minute, hidden at 72, refused at 72, its
// highest count yet, and at 60% of its believed 120; the hour was lowered
// to 132, and so an hour later to 131, a unit an hour, and the user
// idled 29 minutes an hour.
func (v scopeView) longerOnly(all []float64, bestAll float64, left []float64) bool {
	s := int64(-1)
	for w, r := range left {
		if r >= 0 && (s < 0 || v.pers[w] < s) {
			s = v.pers[w]
		}
	}
	if s < 0 {
		return false
	}
	for w, r := range all {
		if r >= bestAll-0.05 && v.pers[w] <= s {
			return false
		}
	}
	return true
}

// shortestLeft narrows the blame ratios that the proven rule left (each
// window at or above the count recently proven to succeed in it) to the
// shortest of those windows when it left more than one, each with a proof
// (a window that proved nothing may be anywhere under its count): the counts say
// nothing of which binds, and fullness by believed limits is no better a
// guess, but the costs of a wrong guess differ. A window lowered to its
// count lets nothing through until it slides: a wrong minute costs a
// minute, and the probe after it, refused by the hour, names the hour (the
// minute now under its proof); a wrong hour costs the rest of the hour
// (small-285: an app minute hidden at 88 refused a request at 90, the app
// hour, at 683 of 800 and fuller by believed limits, was lowered, and
// every user idled 52 minutes). A window that what was learned before
// names (named: its probe above the level it was refused at refused, or
// at the limit the other users learned of it) is blamed before a shorter
// one it does not name.
func (v scopeView) shortestLeft(before []int, ratios []float64, best float64, now int64) ([]float64, float64) {
	s, p := -1, -1
	for w, r := range ratios {
		if r < 0 {
			continue
		}
		if v.proven(w, now) == 0 {
			return ratios, best
		}
		if s < 0 || v.pers[w] < v.pers[s] {
			s = w
		}
		if v.named(w, before[w], now) && (p < 0 || v.pers[w] < v.pers[p]) {
			p = w
		}
	}
	if p >= 0 && !v.named(s, before[s], now) {
		s = p
	}
	if s < 0 || countLeft(ratios) == 1 {
		return ratios, best
	}
	out := make([]float64, len(ratios))
	for w := range out {
		out[w] = -1
	}
	out[s] = 1
	return out, 1
}

// probeRefused reports whether window w, holding c before the request
// (as before in lowerBusiest), was probing above the level it was
// refused at: its limit crept back above its lowering, the request took
// it above the lowering, and c is at or above the count of the throttle
// blamed on it (Hit), which nothing since has proven wrong (no success
// above it within two of its lengths: a limit that rose took more, and
// the Hit of the old limit says nothing of the new). A throttle then is
// the probe's answer, whatever the shorter windows' counts: the window
// refused at that count before, and fits sends one request at a time up
// there for this very answer.
// Narrowed to the shortest window instead, a minute at its own short
// proof was lowered (to its floor, 30 of 120) while the hour, crept from
// 204 to 224, refused at 205 again: the user idled 35 to 48 s a minute
// until the next probe named the hour (full-271; full-95). Without the
// proof's check, an hour whose limit rose (236 to 318) and crept up to
// 298 by successes was blamed for the minute's throttle at its new 60,
// with the Hit of the old limit, and lowered: 21 min idle (full-192).
func (v scopeView) probeRefused(w, c int, now int64) bool {
	a := v.st.Limits[w]
	return a.probing(c+1, v.spec.Windows[w].Limit, v.t, now) && c >= a.Hit && a.proven(v.pers[w], now) <= a.Hit
}

// named reports whether window w, holding c before the request, is
// named by what the scope learned before as the one a throttle now
// refused: its probe above the level it was refused at (probeRefused),
// or, for a user's window, the limit the other users learned of it
// (table), which c reached while its own limit is still above that. One
// user table holds for every user, but a user arriving after the others
// learned a window starts from the spec: small-129's u04, its hour at 400
// beside the others' 193, was refused at 194 of its hour and 52 of its
// minute; the proof left both, the minute (the shorter) was lowered to
// 51 and shared with every user, and they idled 34 s a minute.
func (v scopeView) named(w, c int, now int64) bool {
	if v.probeRefused(w, c, now) {
		return true
	}
	if w >= len(v.table) || v.table[w] == 0 {
		return false
	}
	return c >= v.table[w] && v.st.Limits[w].limit(v.spec.Windows[w].Limit, v.t, now) > v.table[w]
}

// shortestProven is the length of the shortest window the counts proven
// to succeed leave as the cause of a throttle granted at counts before,
// when they leave any and each window they leave proved a count (see
// cheaperScope).
func (v scopeView) shortestProven(before []int, now int64) (int64, bool) {
	if len(before) != len(v.pers) {
		return 0, false
	}
	ratios, _ := v.blame(before, true, now)
	s := int64(-1)
	for w, r := range ratios {
		if r < 0 {
			continue
		}
		if v.proven(w, now) == 0 {
			return 0, false
		}
		if s < 0 || v.pers[w] < s {
			s = v.pers[w]
		}
	}
	return s, s >= 0
}

// countLeft is how many windows blame ratios leave as possible causes.
func countLeft(ratios []float64) int {
	n := 0
	for _, r := range ratios {
		if r >= 0 {
			n++
		}
	}
	return n
}

// again returns blame ratios (1 for the blamed, -1 for the others) when
// some but not all of the scope's windows are throttled at the very
// count they held at the scope's previous throttle, more than a cooldown
// ago and within two of their lengths, at or above their floor: a window
// that refuses at the same count again and again is the one that binds,
// whatever its believed limit says (a minute hidden at 64, believed at
// 120, looks half empty, while the hour it throttles, lowered to its
// count at the last throttle, looks full and was walked down throttle by
// throttle as it slid: 344 to 205 in an hour, then a 56 min stall). A
// count one unit on from the last, above what the window proved, is the
// same count: the counts blur by the requests in flight, and a window
// that let nothing through beyond its proof refused again (small-120: a
// user hour hidden at 177 refused at 177 and 178 while the minute, held
// at 88 and 70, looked the fuller and was walked down to 31). So is any
// count from the level the window was lowered to up to the count it held
// then, though the creep has lifted its limit since: upstream let that
// level through and refused the next (full-639: a user hour hidden at
// 272, refused at 273 and lowered to 272, crept to 392 and refused at
// 272 an hour later; the minute, at 59 of 120, was lowered instead, and
// the user idled 28 s a minute). It returns nil when that does not
// single windows out.
//
// A window under the count recently proven to succeed in it is not
// singled out while another window of the scope is at or above its own
// proof: upstream took more in it, so the other refused (underProof). The
// memory of the same count is two window lengths, so an hour remembers
// its count for two hours and a minute for two minutes: a minute
// refusing at its limit an hour after the last throttle, with the hour a
// unit under the count it proved (the unit in flight at the last one),
// singled out the hour, which was lowered under its proof a unit a
// throttle, an hour at a time (full-69: a user hour hidden at 318 walked
// to 317 while the minute, hidden at 113, refused at 113; every hour
// after, the user idled 57 minutes one unit short).
func (v scopeView) again(before []int, now int64) []float64 {
	var out []float64
	n := 0
	under := v.underProof(before, now)
	for w, c := range before {
		a := v.st.Limits[w]
		spec := v.spec.Windows[w].Limit
		sameCount := c == a.Seen || c == a.Seen+1 && c > a.proven(v.pers[w], now) ||
			a.Lowered > 0 && c >= a.Lowered && c <= a.Hit
		same := a.Seen > 0 && sameCount && !under[w] && now-a.SeenAt > int64(v.t.Cooldown) &&
			now-a.SeenAt <= 2*v.pers[w] && float64(c) >= v.t.AdaptFloor*float64(spec)
		if !same {
			continue
		}
		if out == nil {
			out = make([]float64, len(before))
			for i := range out {
				out[i] = -1
			}
		}
		out[w] = 1
		n++
	}
	if n == len(before) {
		return nil
	}
	return out
}

// underProof reports per window whether its count in before is under
// the count recently proven to succeed in it while some other window of
// the scope is at or above its own (a window that proved nothing is at
// its proof): a throttle at those counts is not the former's doing. When
// every window is under its proof, none is marked: the proof is stale
// then (the limits fell), and it says nothing of which window refused.
func (v scopeView) underProof(before []int, now int64) []bool {
	out := make([]bool, len(before))
	atProof := false
	for w, c := range before {
		out[w] = c < v.proven(w, now)
		atProof = atProof || !out[w]
	}
	if !atProof {
		clear(out)
	}
	return out
}

// blame rates each window of the scope as the cause of a throttle granted
// at counts before: its count over its effective limit, or over the count
// of the latest throttle blamed on it when that is lower (a window that
// reached the level it was throttled at before binds again), or -1 when
// it cannot be to blame (under the adaptation floor; with useProven,
// under a count recently proven to succeed). It returns the ratios and
// the best.
func (v scopeView) blame(before []int, useProven bool, now int64) ([]float64, float64) {
	best := -1.0
	ratios := make([]float64, len(before))
	for w, c := range before {
		ratios[w] = -1
		spec := v.spec.Windows[w].Limit
		if float64(c) < v.t.AdaptFloor*float64(spec) {
			continue
		}
		if useProven && c < v.proven(w, now) {
			continue
		}
		lim := v.st.Limits[w].limit(spec, v.t, now)
		if h := v.st.Limits[w].Hit; h > 0 && h < lim {
			lim = h
		}
		ratios[w] = float64(c) / float64(lim)
		best = max(best, ratios[w])
	}
	return ratios, best
}

// provePeak records a success at counts before plus cost in the
// windows' peaks: the app's (a user's are the users' shared ones,
// Limiter.proveShared, so that a user's state holds none).
func (v scopeView) provePeak(before []int, cost int, now int64) {
	long := v.pers[longest(v.pers)]
	for w, c := range before {
		if w < len(v.st.Limits) {
			v.st.Limits[w].provePeak(c+cost, long, now)
		}
	}
}

// underPeak reports whether every window of the scope that could have
// caused a throttle granted at counts before (see blame, with the proven
// rule) held less than its peak: the most it took within the scope's
// longest window (for a user, the most any user took: one user table).
// Such a window refused only if its limit fell since; one at its highest
// count yet may simply have met it.
func (v scopeView) underPeak(before []int, now int64) bool {
	ratios, _ := v.blame(before, true, now)
	for w, r := range ratios {
		if r >= 0 && before[w] >= v.peakOf(w, now) {
			return false
		}
	}
	return true
}

// peakOf is the peak of window w: the most it took within the scope's
// longest window (for a user, the most any user took).
func (v scopeView) peakOf(w int, now int64) int {
	long := v.pers[longest(v.pers)]
	p := v.st.Limits[w].peak(long, now)
	if w < len(v.peers) {
		p = max(p, v.peers[w].peak(long, now))
	}
	return p
}

// peakLeft drops from ratios (see blame) the windows under their peak
// (peakOf), for a scope blamed by its peak (scopeView.byPeak), and
// returns the best ratio left.
func (v scopeView) peakLeft(before []int, ratios []float64, now int64) float64 {
	best := -1.0
	for w := range ratios {
		if ratios[w] >= 0 && before[w] < v.peakOf(w, now) {
			ratios[w] = -1
		}
		best = max(best, ratios[w])
	}
	return best
}

// plausible reports whether any window of the scope could have caused a
// throttle granted at counts before (see blame; with useProven, only a
// window at or above the count recently proven to succeed in it).
func (v scopeView) plausible(before []int, useProven bool, now int64) bool {
	if len(before) != len(v.pers) {
		return false
	}
	_, best := v.blame(before, useProven, now)
	return best >= 0
}

// prove records a success granted at granted at counts before
// (excluding it).
func (v scopeView) prove(before []int, cost int, granted, now int64) {
	for w, c := range before {
		if w < len(v.st.Limits) {
			v.st.Limits[w].prove(c+cost, granted, v.pers[w], now)
		}
	}
}

// bindingRatio is the highest blame ratio of the scope's windows at
// counts before (see blame, without the proven rule: plausibleScope has
// applied it), or -1 when none could be to blame. At 1 or more a window held at least its effective limit or
// the level it was last throttled at: it binds.
func (v scopeView) bindingRatio(before []int, now int64) float64 {
	if len(before) != len(v.pers) {
		return -1
	}
	_, best := v.blame(before, false, now)
	return best
}

// concMemory is how long a success proves the concurrency it was granted
// at: concurrency is a count at an instant, so the proof is short-lived.
func (v scopeView) concMemory() int64 { return int64(v.t.LeaseTTL) }

// proveConc records a success granted at granted with before requests in
// flight (excluding its slots). A count no higher than the floor proves
// nothing concPlausible asks (and undoes no lowering, which is never
// below the floor), so it is not kept: most users never run more than a
// few at once, and their state stays as small as before.
func (v scopeView) proveConc(before, slots int, granted, now int64) {
	if before+slots <= v.concFloor() {
		return
	}
	v.st.Conc.prove(before+slots, granted, v.concMemory(), now)
}

// concFloor is the lowest concurrency cap adaptation may set.
func (v scopeView) concFloor() int {
	return max(1, int(math.Ceil(v.t.AdaptFloor*float64(v.spec.Concurrency))))
}

// concPlausible reports whether the scope's concurrency cap could have
// refused a request granted with before requests in flight (excluding its
// slots): before is at least the adaptation floor of the cap (no real cap
// is believed lower) and the request went above the concurrency recently
// proven to succeed.
func (v scopeView) concPlausible(before, slots int, now int64) bool {
	return before >= v.concFloor() && before+slots > v.st.Conc.proven(v.concMemory(), now)
}

// busiest returns the window with the highest count/limit ratio for
// counts, and that ratio.
func (v scopeView) busiest(counts []int, now int64) (int, float64) {
	bw, best := -1, -1.0
	for w, c := range counts {
		r := float64(c) / float64(v.st.Limits[w].limit(v.spec.Windows[w].Limit, v.t, now))
		if r > best {
			bw, best = w, r
		}
	}
	return bw, best
}

// raise lifts each lowered window of the scope that upstream reports
// emptier than the model: the percentage is the fullest window's, so a
// window at count c holds no more than pct of its real limit, which is
// at least c ÷ pct. A lowered window whose count is over that share of
// its effective limit (by more than two points, for rounding) was
// lowered too far, and rises to the implied limit (adapted.raise).
// Without it, a limit learned right that then rose (or one lowered for
// another window's throttle) is found again only by creeping back, an
// hour a step for an hour window, while every hour idles.
func (v scopeView) raise(counts []int, pct float64, now int64) {
	if pct <= 0 || len(counts) != len(v.st.Limits) {
		return
	}
	for w, c := range counts {
		spec := v.spec.Windows[w].Limit
		a := &v.st.Limits[w]
		if eff := a.limit(spec, v.t, now); a.Lowered > 0 && float64(c)/float64(eff) > pct+0.02 {
			a.raise(spec, int(float64(c)/pct+1e-9))
		}
	}
}
