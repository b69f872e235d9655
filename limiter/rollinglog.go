package limiter

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// stamp is one grant in a rolling log.
type stamp struct {
	at   int64 // unix nanoseconds
	cost int
}

// rollingLog is a sliding-window log of grants shared by several windows
// of one scope. For each window it keeps a cursor to the oldest entry
// still inside the window and the sum of costs from there on, so a count
// is O(1) and the earliest free slot is a short walk.
//
// An entry stamped at a is inside a window of length per at time t iff
// a > t-per: it leaves exactly at a+per.
type rollingLog struct {
	entries []stamp
	start   []int // per window: index of the oldest entry inside it
	sum     []int // per window: cost inside it
	now     int64 // the time of the last advance
	// keep is how long past the longest window entries are kept, so that
	// countAt can look back that far (see Limiter.retain).
	keep int64
}

// reset sizes the per-window cursors for n windows and recounts.
func (g *rollingLog) reset(n int) {
	g.start = make([]int, n)
	g.sum = make([]int, n)
	total := 0
	for _, e := range g.entries {
		total += e.cost
	}
	for i := range g.sum {
		g.sum[i] = total
	}
}

// advance moves every window to time now and drops entries older than
// every window by more than keep, but for the newest.
func (g *rollingLog) advance(pers []int64, now int64) {
	g.now = now
	low := len(g.entries)
	longest := int64(0)
	for w, per := range pers {
		longest = max(longest, per)
		s, edge := g.start[w], now-per
		for s < len(g.entries) && g.entries[s].at <= edge {
			g.sum[w] -= g.entries[s].cost
			s++
		}
		g.start[w] = s
		low = min(low, s)
	}
	for low > 0 && g.entries[low-1].at > now-longest-g.keep {
		low--
	}
	// The newest entry stays, so an empty log means nothing was granted
	// and the last entry is the last grant, whenever the log was last
	// advanced (Limiter.progressing reads both).
	low = min(low, len(g.entries)-1)
	if low > 32 && 2*low >= len(g.entries) {
		n := copy(g.entries, g.entries[low:])
		g.entries = g.entries[:n]
		for w := range g.start {
			g.start[w] -= low
		}
	}
}

// add records cost granted at now (not before the last entry).
func (g *rollingLog) add(now int64, cost int) {
	g.entries = append(g.entries, stamp{now, cost})
	for w := range g.sum {
		g.sum[w] += cost
	}
}

// count is the cost inside window w as of the last advance.
func (g *rollingLog) count(w int) int { return g.sum[w] }

// insert records cost at time at, which may be earlier than entries
// already logged (a request settled at the time it was sent), keeping the
// entries in time order and every window's cursor and sum right as of the
// last advance. pers are the window lengths.
func (g *rollingLog) insert(pers []int64, at int64, cost int) {
	i := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].at > at })
	g.entries = slices.Insert(g.entries, i, stamp{at, cost})
	for w, per := range pers {
		if at > g.now-per {
			// Inside the window: every entry before the cursor is older
			// than its edge, so the cursor is at or before i.
			g.sum[w] += cost
		} else {
			// Outside it: entries from the cursor on are newer, so i is
			// at or before the cursor, which moves up by one.
			g.start[w]++
		}
	}
}

// countAt is the cost logged in (at-per, at]: what a window of length per
// held at time at, which may be in the past. It is exact for at no
// earlier than keep before the last advance.
func (g *rollingLog) countAt(per, at int64) int {
	lo := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].at > at-per })
	c := 0
	for i := lo; i < len(g.entries) && g.entries[i].at <= at; i++ {
		c += g.entries[i].cost
	}
	return c
}

// peak is the most cost logged in any interval of length per ending in
// (now-hold, now]: the peak rate of the last hold. The count of such an
// interval rises only at an entry, so the most is at the start of the
// hold or at an entry within it. It walks the entries of the last hold
// and per (the foreground log it serves is short).
func (g *rollingLog) peak(per, hold, now int64) int {
	lo := sort.Search(len(g.entries), func(i int) bool { return g.entries[i].at > now-hold-per })
	best, sum, j := g.countAt(per, now-hold), 0, lo
	for i := lo; i < len(g.entries) && g.entries[i].at <= now; i++ {
		sum += g.entries[i].cost
		for g.entries[j].at <= g.entries[i].at-per {
			sum -= g.entries[j].cost
			j++
		}
		if g.entries[i].at > now-hold {
			best = max(best, sum)
		}
	}
	return best
}

// shortfall is the most by which the foreground expected from now on
// outruns the units leaving window w of length per (as of the last
// advance, at now), at least 0: max over τ in (0, per] of E(⌈τ/rper⌉) −
// here less the cost that left the window by now+τ (see outrun). E(k),
// the foreground expected in the next k periods rper, is rate·k (the
// peak period's rate in each of them) but no more than the seen units of
// the last span periods at their own pace, ⌈seen·k/span⌉; here are the
// units already asked for in the current period. next is when the most
// steps down: the time its expected term drops by a period.
func (g *rollingLog) shortfall(w int, per int64, rate int, rper int64, here, seen int, span, now int64) (most int, next int64) {
	expect := func(tau int64) int {
		k := (tau + rper - 1) / rper
		return min(rate*int(k), int((int64(seen)*k+span-1)/span)) - here
	}
	best, tau := g.outrun(w, per, expect, now)
	return best, now + (tau-1)%rper + 1
}

// outrun is the most by which want(τ), the units wanted by now+τ (never
// falling as τ grows), outruns the units leaving window w of length per
// (as of the last advance, at now) by then, over τ in (0, per], at least
// 0, and the τ where it is most. The departures step up at each entry's
// leaving (entry.at+per), so the most is just before an entry leaves or
// at the window's end, when all have left.
func (g *rollingLog) outrun(w int, per int64, want func(tau int64) int, now int64) (most int, at int64) {
	best, bestTau, left, all := math.MinInt, per, 0, want(per)
	for i := g.start[w]; i < len(g.entries) && all-left > max(best, 0); i++ {
		// No later point beats best once even the whole window's
		// wanted units less what left by then do not (left only grows).
		tau := g.entries[i].at + per - now
		if f := want(tau) - left; f > best {
			best, bestTau = f, tau
		}
		left += g.entries[i].cost
	}
	if f := all - left; f >= best {
		best, bestTau = f, per
	}
	return max(0, best), bestTau
}

// freeAt is the earliest time, not before now, at which cost more fits
// into window w of length per under limit. If cost exceeds the limit it
// waits for the window to empty.
func (g *rollingLog) freeAt(w int, per int64, limit, cost int, now int64) int64 {
	need := g.sum[w] + cost - limit
	if cost > limit {
		need = g.sum[w]
	}
	if need <= 0 {
		return now
	}
	removed := 0
	for i := g.start[w]; i < len(g.entries); i++ {
		removed += g.entries[i].cost
		if removed >= need {
			return max(now, g.entries[i].at+per)
		}
	}
	return now
}

// IsZero reports whether the log holds no entry (omitzero leaves it out
// of the JSON).
func (g rollingLog) IsZero() bool { return len(g.entries) == 0 }

// MarshalJSON writes the entries compactly, as one base64 string of
// varints: the first stamp (zigzag), then each later stamp as its
// (non-negative) delta from the one before, each followed by its cost.
// An entry takes 3 to 8 bytes (about 8 at a user's full rate, a grant
// every 9 s), against about 16 as decimal JSON numbers; a log holds at
// most its longest window's limit plus keep's worth of entries, so a
// scope's log is bounded by its spec.
func (g rollingLog) MarshalJSON() ([]byte, error) {
	buf := make([]byte, 0, 8*len(g.entries))
	var prev int64
	for i, e := range g.entries {
		if i == 0 {
			buf = binary.AppendVarint(buf, e.at)
		} else {
			buf = binary.AppendUvarint(buf, uint64(e.at-prev))
		}
		buf = binary.AppendUvarint(buf, uint64(e.cost))
		prev = e.at
	}
	return json.Marshal(base64.RawStdEncoding.EncodeToString(buf))
}

// UnmarshalJSON reads what MarshalJSON wrote, with a clear error for any
// other form (the flat number array of earlier builds included). The
// cursors are rebuilt by the owner (reset, then advance).
func (g *rollingLog) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("limiter: rolling log: want a base64 string of varints: %w", err)
	}
	buf, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil {
		return fmt.Errorf("limiter: rolling log: %w", err)
	}
	g.entries = g.entries[:0]
	var at int64
	for len(buf) > 0 {
		var n int
		if len(g.entries) == 0 {
			at, n = binary.Varint(buf)
		} else {
			var d uint64
			d, n = binary.Uvarint(buf)
			if n > 0 && d > math.MaxInt64 {
				n = -1
			}
			at += int64(d)
		}
		if n <= 0 {
			return fmt.Errorf("limiter: rolling log: bad stamp at entry %d", len(g.entries))
		}
		buf = buf[n:]
		cost, m := binary.Uvarint(buf)
		if m <= 0 || cost > math.MaxInt32 {
			return fmt.Errorf("limiter: rolling log: bad cost at entry %d", len(g.entries))
		}
		buf = buf[m:]
		g.entries = append(g.entries, stamp{at, int(cost)})
	}
	return nil
}
