package limiter

import (
	"slices"
	"time"
)

// Dated is Cost units a scope's windows count from At: they leave a
// window of length per at At+per.
type Dated struct {
	At   time.Time `json:"at"`
	Cost int       `json:"cost"`
}

// AppCounted lists what the app scope's longest window holds at now,
// oldest first. A request still in flight may yet be counted later than
// it is now (Settle moves its units to when it was sent, no later than
// its release): its units are dated at the latest of its lease's expiry
// and now instead, so that no unit leaves a window later than listed
// unless it is sent after now. A limiter shard reports this to the
// coordinator (package shard), which then knows when the shard's units
// leave the app's windows.
func (l *Limiter) AppCounted(now time.Time) []Dated {
	n := l.clock(now)
	g := &l.st.App.Log
	g.advance(l.appPers, n)
	low := len(g.entries)
	for w := range g.start {
		low = min(low, g.start[w])
	}
	out := make([]Dated, 0, len(g.entries)-low)
	// at lists, for each grant time, where its entries are in out: a
	// lease finds its entry there instead of by a scan of the log.
	at := make(map[int64][]int)
	for _, e := range g.entries[low:] {
		at[e.at] = append(at[e.at], len(out))
		out = append(out, Dated{At: time.Unix(0, e.at).UTC(), Cost: e.cost})
	}
	for _, ls := range l.st.Leases {
		counted := ls.Granted
		if !ls.Stamped.IsZero() {
			counted = ls.Stamped
		}
		later := ls.Expires
		if t := time.Unix(0, n).UTC(); t.After(later) {
			later = t
		}
		if !later.After(counted) {
			continue // no later than counted
		}
		for _, i := range at[counted.UnixNano()] {
			if out[i].Cost >= ls.Cost {
				out[i].Cost -= ls.Cost
				out = append(out, Dated{At: later, Cost: ls.Cost})
				break
			}
		}
	}
	out = slices.DeleteFunc(out, func(d Dated) bool { return d.Cost <= 0 })
	slices.SortStableFunc(out, func(a, b Dated) int { return a.At.Compare(b.At) })
	return out
}
