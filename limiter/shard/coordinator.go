package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// DefaultTTL is a lease's lifetime when Options.TTL is zero. A shard
// refreshes a third of the way through, so two refreshes may be lost
// before its lease lapses. Each report and lease costs both workflows a
// signal and a workflow task (about 14 history events in all), so a long
// lease keeps an active shard's coordination to one round trip in 40 s;
// a shard asks sooner only when its lease is short or starves work that
// grew after it asked (Holder.NextReport); the coordinator sends more to
// a shard the budget starves when the budget frees (Spread).
const DefaultTTL = 2 * time.Minute

// ErrShard is wrapped by the errors of a report from a shard the
// coordinator does not have.
var ErrShard = errors.New("shard: no such shard")

// offer is a lease handed to a shard that the shard may be running on.
type offer struct {
	Version uint64 `json:"version"`
	Share   Share  `json:"share"`
	Expires int64  `json:"expires"`
	// Useless is set once a report showed that the shard can grant
	// nothing on this lease (see useless): it reserves nothing more.
	Useless bool `json:"useless,omitempty"`
}

// shardState is what the coordinator knows of one shard.
type shardState struct {
	// Offers are the lease the shard last said it runs on and every
	// lease handed to it since: it may be running on any of them.
	Offers   []offer `json:"offers,omitempty"`
	Used     Share   `json:"used"`
	Demand   Share   `json:"demand"`
	Reported int64   `json:"reported"`
	// Since is when the last report took Used (Report.At, no later than
	// its arrival; 0 for a report without it): what the shard sends
	// after it is bounded by the leases it may run on then.
	Since int64 `json:"since,omitempty"`
	// Frees is the last report's Report.Frees, from Since.
	Frees [][]int `json:"frees,omitempty"`
	// Quiet is until when the shard counts as live without reporting: its
	// last report was answered with a lease that lets nothing through and
	// lasts until then (see Refresh), and Spread offers it more when the
	// budget frees.
	Quiet int64 `json:"quiet,omitempty"`
}

type coordState struct {
	Budget Budget           `json:"budget"`
	TTL    limiter.Duration `json:"ttl"`
	Seq    uint64           `json:"seq"`
	Shards []shardState     `json:"shards"`
}

// Coordinator divides an app budget between shards as leases. Create it
// with NewCoordinator. It is not safe for concurrent use.
type Coordinator struct{ st coordState }

// NewCoordinator returns a coordinator of n shards sharing b, whose
// leases last ttl (0: DefaultTTL). Lease versions start at now in
// nanoseconds, so a coordinator that lost its state (started again) hands
// out versions newer than any its predecessor did, and shards take them.
func NewCoordinator(b Budget, n int, ttl time.Duration, now time.Time) (*Coordinator, error) {
	if n < 1 {
		return nil, fmt.Errorf("shard: %d shards: need at least one", n)
	}
	if err := b.validate(); err != nil {
		return nil, err
	}
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Coordinator{st: coordState{Budget: b, TTL: limiter.Duration(ttl), Seq: uint64(now.UnixNano()), Shards: make([]shardState, n)}}, nil
}

func (b Budget) validate() error {
	if len(b.Windows) == 0 || b.Concurrency < 1 {
		return errors.New("shard: a budget needs a window and a positive concurrency")
	}
	for _, w := range b.Windows {
		if w.Limit < 1 || w.Per <= 0 {
			return fmt.Errorf("shard: budget window %d per %s", w.Limit, w.Per.D())
		}
	}
	return nil
}

// Shards is the number of shards.
func (c *Coordinator) Shards() int { return len(c.st.Shards) }

// MaxShards bounds the shards a coordinator serves (Join).
const MaxShards = 4096

// Join adds a shard and returns its index: the shards of another layout
// (a deployment that changed its shard count) share the budget with those
// already here, so that two layouts running at once never over-commit it.
// A shard that stops reporting holds its reservation only until its last
// lease has expired, like any other.
func (c *Coordinator) Join() (int, error) {
	if len(c.st.Shards) >= MaxShards {
		return 0, fmt.Errorf("%w: already %d, the most one coordinator serves", ErrShard, MaxShards)
	}
	c.st.Shards = append(c.st.Shards, shardState{})
	return len(c.st.Shards) - 1, nil
}

// Budget is the budget divided.
func (c *Coordinator) Budget() Budget { return c.st.Budget }

// SetBudget replaces the budget. Leases already handed out stay valid
// until they expire, so a lowered budget binds once they have (at most
// one TTL, plus the windows they were used in).
func (c *Coordinator) SetBudget(b Budget) error {
	if err := b.validate(); err != nil {
		return err
	}
	if len(b.Windows) != len(c.st.Budget.Windows) {
		// Shares are per window: old offers no longer line up. Keep
		// reserving their largest unit count in every window.
		for i := range c.st.Shards {
			s := &c.st.Shards[i]
			for k := range s.Offers {
				s.Offers[k].Share.Units = resize(s.Offers[k].Share.Units, len(b.Windows))
			}
			s.Used.Units = resize(s.Used.Units, len(b.Windows))
			// Their schedule no longer lines up either: hold the largest
			// count for a window's length, as for a report without one.
			s.Frees, s.Since = nil, 0
		}
	}
	c.st.Budget = b
	return nil
}

func resize(u []int, n int) []int {
	m := 0
	for _, v := range u {
		m = max(m, v)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = m
	}
	return out
}

// Refresh takes a shard's report at now and returns its next lease: its
// demand-based share of the budget, no more than what the other shards'
// reservations leave. The budget is never over-committed: the sum of
// Reserved stays within it.
func (c *Coordinator) Refresh(r Report, now time.Time) (Lease, error) {
	if r.Shard < 0 || r.Shard >= len(c.st.Shards) {
		return Lease{}, fmt.Errorf("%w: %d of %d", ErrShard, r.Shard, len(c.st.Shards))
	}
	n := now.UnixNano()
	nw := len(c.st.Budget.Windows)
	s := &c.st.Shards[r.Shard]
	if v := r.Lease.Version; v > 0 {
		// Every lease older than the one the shard runs on is dead.
		s.Offers = slices.DeleteFunc(s.Offers, func(o offer) bool { return o.Version < v })
		if !slices.ContainsFunc(s.Offers, func(o offer) bool { return o.Version == v }) {
			// A lease this coordinator does not know (its state was
			// lost): reserve it until it expires.
			s.Offers = slices.Insert(s.Offers, 0, offer{Version: v,
				Share:   Share{Units: resize0(r.Lease.Share.Units, nw), Concurrency: r.Lease.Share.Concurrency},
				Expires: r.Lease.Expires.UnixNano()})
		}
	}
	s.Used = Share{Units: resize0(r.Used.Units, nw), Concurrency: r.Used.Concurrency}
	s.Demand = r.demand(nw)
	s.Reported = n
	s.Since, s.Frees = 0, nil
	if !r.At.IsZero() {
		s.Since = min(r.At.UnixNano(), n)
		if validFrees(r.Frees, nw) {
			s.Frees = r.Frees
		}
	}
	c.prune(n)
	c.markUseless(s)

	target := c.targets(n)
	share := c.room(r.Shard, target, c.reserved(n, r.Shard))
	c.st.Seq++
	short := len(c.overTarget(shortDims(share, target, r.Shard), target, r.Shard, n)) > 0
	full := share.Concurrency < s.Demand.Concurrency
	for w := range share.Units {
		full = full || share.Units[w] < s.Demand.Units[w]
	}
	exp := n + c.life(full)
	s.Quiet = 0
	o := offer{Version: c.st.Seq, Share: share, Expires: exp}
	if full { // quietUntil is a pass over every shard: only when it can matter
		if q := c.quietUntil(n); q > exp && c.useless(s, offer{Share: share, Expires: q}) {
			// The lease can grant nothing until the budget frees (it
			// lets nothing through, or the shard's own units fill a
			// window until then), so it reserves nothing however long
			// it lasts: it lasts until a TTL before the budget may
			// free, and the shard reports a third of that later instead
			// of every third of a TTL for nothing (on the OneNote
			// budget, for most of every hour).
			o.Expires = q
			s.Quiet = q
		}
	}
	c.offer(s, o)
	return Lease{Shard: r.Shard, Version: c.st.Seq, Share: share, Expires: time.Unix(0, o.Expires).UTC(), Short: short, Full: full,
		Pushed: c.takesBack(s, r, share)}, nil
}

// takesBack reports whether an answer of share to r takes back part of
// the lease r names that still reserves budget, from a shard that will
// not report again soon: one with nothing queued, or on a quiet lease.
// Until the shard reports on the answer, the coordinator must count the
// lease it named (it may send on it until the answer arrives), and an
// idle shard does not report again; a shard that finished its work held
// its lease's share of the hour for an hour. The answer is then sent as
// pushed, which the shard acknowledges at once (Holder.NextReport).
func (c *Coordinator) takesBack(s *shardState, r Report, share Share) bool {
	if r.Lease.Version == 0 || r.Queued > 0 && s.Quiet == 0 {
		return false
	}
	k := slices.IndexFunc(s.Offers, func(o offer) bool { return o.Version == r.Lease.Version })
	if k < 0 || s.Offers[k].Useless || s.Offers[k].Expires <= s.Since {
		return false // it reserves nothing after the report
	}
	old := s.Offers[k].Share
	for w := range share.Units {
		if share.Units[w] < old.Units[w] {
			return true
		}
	}
	return share.Concurrency < old.Concurrency
}

// live reports whether s's demand counts at n: it reported within the
// TTL, or its lease that lets nothing through still runs (Quiet).
func (c *Coordinator) live(s *shardState, n int64) bool {
	return n-s.Reported < int64(c.st.TTL) || n < s.Quiet
}

// quietUntil is until when the budget surely frees nothing, less a TTL:
// the earliest time by which a unit in every window the reservations
// fill may leave it, as far as the reports and leases show, minus the
// TTL, so that the shards report as usual again before it frees; 0 when
// no window is full.
func (c *Coordinator) quietUntil(n int64) int64 {
	total := c.reserved(n, -1)
	until := int64(0)
	for w, win := range c.st.Budget.Windows {
		if total.Units[w] < win.Limit {
			continue
		}
		per := int64(win.Per)
		first := int64(math.MaxInt64)
		for i := range c.st.Shards {
			s := &c.st.Shards[i]
			if s.Frees != nil {
				steps := s.Frees[w]
				for k := c.firstInside(s, w, n); k < len(steps); k++ {
					if steps[k] > 0 {
						first = min(first, c.stepEnd(s, w, k))
						break
					}
				}
			} else if w < len(s.Used.Units) && s.Used.Units[w] > 0 && s.Reported+per > n {
				first = min(first, s.Reported+per)
			}
			for _, o := range s.Offers {
				if !o.Useless && o.Share.Units[w] > 0 && o.Expires+per > n {
					first = min(first, max(o.Expires, s.Since)+per)
				}
			}
		}
		if first == math.MaxInt64 {
			continue
		}
		until = max(until, first-int64(c.st.TTL))
	}
	return until
}

// life is how long a lease lasts: the TTL, but a lease below its shard's
// demand (full) no longer than the longest window, and no shorter than
// shortestLife. Such a shard reports only at its refresh (a third of the
// way) and waits for Spread between; where a window is shorter than the
// TTL, its units leave within a lease's life, and a shard that used its
// share holds its slots until its next report shows it: with windows of a
// second and a minute (the OneNote budget 60 times faster), 3,117 Graph
// requests in 5 minutes of the 4,000 the budget allows with 2-minute
// leases, 3,964 with these.
func (c *Coordinator) life(full bool) int64 {
	ttl := int64(c.st.TTL)
	if !full {
		return ttl
	}
	longest := int64(shortestLife)
	for _, w := range c.st.Budget.Windows {
		longest = max(longest, int64(w.Per))
	}
	return min(ttl, longest)
}

// shortestLife is the shortest lease: a starved shard on it reports every
// 10 s at most, as often as it asked before the coordinator offered
// freed budget unasked.
const shortestLife = 30 * time.Second

// validFrees reports whether f is a schedule (FreesOf) of nw windows.
func validFrees(f [][]int, nw int) bool {
	if len(f) != nw {
		return false
	}
	for _, steps := range f {
		if len(steps) != FreeSteps+1 {
			return false
		}
	}
	return true
}

// room is what shard i may be leased: its target, no more than what the
// other shards' reservations (others) leave.
func (c *Coordinator) room(i int, target targets, others Share) Share {
	share := Share{Units: make([]int, len(c.st.Budget.Windows))}
	for w, win := range c.st.Budget.Windows {
		share.Units[w] = max(0, min(target.Units[w][i], win.Limit-others.Units[w]))
	}
	share.Concurrency = max(0, min(target.Concurrency[i], c.st.Budget.Concurrency-others.Concurrency))
	return share
}

// plus is s and o added dimension by dimension (o has s's windows).
func (s Share) plus(o Share) Share {
	out := Share{Units: make([]int, len(s.Units)), Concurrency: s.Concurrency + o.Concurrency}
	for w := range out.Units {
		out.Units[w] = s.Units[w] + o.Units[w]
	}
	return out
}

// minus is s less o, dimension by dimension (o has s's windows).
func (s Share) minus(o Share) Share {
	out := Share{Units: make([]int, len(s.Units)), Concurrency: s.Concurrency - o.Concurrency}
	for w := range out.Units {
		out.Units[w] = s.Units[w] - o.Units[w]
	}
	return out
}

// dim names one dimension of a share: a window's index, or -1 for the
// concurrency.
type dim int

const concurrency dim = -1

func (s Share) at(d dim) int {
	if d == concurrency {
		return s.Concurrency
	}
	if int(d) < len(s.Units) {
		return s.Units[d]
	}
	return 0
}

func (t targets) at(d dim, shard int) int {
	if d == concurrency {
		return t.Concurrency[shard]
	}
	return t.Units[d][shard]
}

// shortDims lists the dimensions in which share is below half of shard's
// target.
func shortDims(share Share, t targets, shard int) []dim {
	var out []dim
	for d := concurrency; int(d) < len(t.Units); d++ {
		if tg := t.at(d, shard); tg > 0 && 2*share.at(d) < tg {
			out = append(out, d)
		}
	}
	return out
}

// overTarget lists the shards other than skip whose newest lease, still
// valid at n, is above their target in one of dims: the leases Reclaim
// can take part of back.
func (c *Coordinator) overTarget(dims []dim, t targets, skip int, n int64) []int {
	var out []int
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		if i == skip || len(s.Offers) == 0 || len(dims) == 0 {
			continue
		}
		newest := s.Offers[len(s.Offers)-1]
		if newest.Expires <= n {
			continue // its reservation is only a window's tail now
		}
		for _, d := range dims {
			if newest.Share.at(d) > t.at(d, i) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// Reclaim takes back, for a shard whose lease came out short (Lease.Short),
// the part of other shards' leases above their fair shares in the
// dimensions where it is short: it returns a smaller lease (Lease.Pushed)
// for each such shard, to be sent to it unasked. A pushed lease keeps its
// predecessor's expiry and is no larger in any dimension, so it reserves
// nothing new; once the shard reports running on it, its larger
// predecessor stops counting, and the short shard's next report (RetryAsk
// later) gets the freed share. Lost pushed leases cost nothing but time:
// the shard refreshes as usual.
func (c *Coordinator) Reclaim(short Lease, now time.Time) []Lease {
	if !short.Short || short.Shard < 0 || short.Shard >= len(c.st.Shards) {
		return nil
	}
	n := now.UnixNano()
	target := c.targets(n)
	var out []Lease
	for _, i := range c.overTarget(shortDims(short.Share, target, short.Shard), target, short.Shard, n) {
		s := &c.st.Shards[i]
		newest := s.Offers[len(s.Offers)-1]
		share := Share{Units: make([]int, len(newest.Share.Units)), Concurrency: min(newest.Share.Concurrency, target.Concurrency[i])}
		for w := range share.Units {
			share.Units[w] = min(newest.Share.Units[w], target.Units[w][i])
		}
		c.st.Seq++
		c.offer(s, offer{Version: c.st.Seq, Share: share, Expires: newest.Expires})
		out = append(out, Lease{Shard: i, Version: c.st.Seq, Share: share, Expires: time.Unix(0, newest.Expires).UTC(), Pushed: true})
	}
	return out
}

// Spread offers more to the shards that want it, once the budget lets
// them have it: for each shard whose newest lease has not expired (it
// may let nothing through) and is below its demand, a lease of what it
// may have at now (room), sent unasked, when
// that is at least a step more in a dimension where it wants more (a
// quarter of its target, at least one; or anything at all for a lease
// that let nothing through). A starved shard then waits for the budget
// rather than asking for it every few seconds: the coordinator knows
// when every shard's units leave the windows (Report.Frees) and when its
// leases lapse, and NextSpread says when to look again.
func (c *Coordinator) Spread(now time.Time) []Lease {
	return c.spread(now.UnixNano(), true)
}

// spreadLooks is how many times NextSpread tries Spread ahead: past
// them it gives the last time it tried, and the coordinator looks again
// then. It bounds the cost of a call (each try costs a pass over every
// shard's reservation) whatever the number of shards.
const spreadLooks = 32

// NextSpread is the first time after now at which Spread would offer a
// lease, were no report to come before it, or the zero
// time for none. Spread offers only to shards that reported within the
// lease lifetime, so it looks no further than the newest report's
// lifetime; past spreadLooks tries it gives an earlier time at which
// Spread may offer nothing, to be asked again then.
func (c *Coordinator) NextSpread(now time.Time) time.Time {
	n := now.UnixNano()
	b := &c.st.Budget
	horizon := int64(0)
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		if len(s.Offers) == 0 || !c.live(s, n) {
			continue // Spread offers it nothing
		}
		horizon = max(horizon, s.Reported+int64(c.st.TTL), s.Quiet)
	}
	// Only the spreadLooks earliest times are tried, so only they are
	// kept (a schedule of every shard holds thousands).
	var at earliest
	add := func(t int64) {
		if t > n && t < horizon {
			at.add(t)
		}
	}
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		if len(s.Offers) == 0 && s.Reported == 0 {
			continue
		}
		add(s.Reported + int64(c.st.TTL))
		add(s.Quiet)
		add(s.Reported + int64(b.InFlightFor))
		for w, win := range b.Windows {
			per := int64(win.Per)
			add(s.Reported + per)
			if s.Frees != nil {
				for k, u := range s.Frees[w] {
					if u > 0 {
						add(c.stepEnd(s, w, k))
					}
				}
			}
			for _, o := range s.Offers {
				add(o.Expires + per)
			}
		}
		for _, o := range s.Offers {
			add(o.Expires)
			add(o.Expires + int64(b.InFlightFor))
		}
	}
	for k, t := range at.t {
		if k == spreadLooks-1 || len(c.spread(t, false)) > 0 {
			return time.Unix(0, t).UTC()
		}
	}
	return time.Time{}
}

// earliest keeps the spreadLooks earliest distinct times it is given.
type earliest struct {
	t []int64 // ascending
}

// add keeps t if it is among the earliest so far.
func (e *earliest) add(t int64) {
	i, found := slices.BinarySearch(e.t, t)
	if found || i >= spreadLooks {
		return
	}
	if len(e.t) == spreadLooks {
		e.t = e.t[:spreadLooks-1]
	}
	e.t = slices.Insert(e.t, i, t)
}

// spread is Spread at n; it changes nothing unless commit is set.
func (c *Coordinator) spread(n int64, commit bool) []Lease {
	target := c.targets(n)
	total := c.reserved(n, -1)
	var out []Lease
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		if len(s.Offers) == 0 || !c.live(s, n) {
			continue
		}
		newest := s.Offers[len(s.Offers)-1]
		if newest.Expires <= n {
			continue // the shard asks for a new lease itself
		}
		// The newest lease is part of the shard's reservation, so the
		// new one may keep it, unless it reserves nothing.
		kept := newest.Share
		if newest.Useless {
			kept = Share{Units: make([]int, len(newest.Share.Units))}
		}
		own := c.reservation(s, n)
		room := c.room(i, target, total.minus(own))
		share := Share{Units: make([]int, len(kept.Units)), Concurrency: max(kept.Concurrency, room.Concurrency)}
		for w := range share.Units {
			share.Units[w] = max(kept.Units[w], room.Units[w])
		}
		if !c.worthSending(s, newest.Share, share, target, i) {
			continue
		}
		full := share.Concurrency < s.Demand.Concurrency
		for w := range share.Units {
			full = full || share.Units[w] < s.Demand.Units[w]
		}
		if c.useless(s, offer{Share: share, Expires: n + c.life(full)}) {
			continue // the shard's own units fill a window all its life
		}
		if !commit {
			return []Lease{{Shard: i}}
		}
		c.st.Seq++
		exp := n + c.life(full)
		c.offer(s, offer{Version: c.st.Seq, Share: share, Expires: exp})
		total = total.minus(own).plus(c.reservation(s, n))
		out = append(out, Lease{Shard: i, Version: c.st.Seq, Share: share, Expires: time.Unix(0, exp).UTC(), Full: full})
	}
	return out
}

// worthSending reports whether share, for shard i now on old, is worth a
// message: it lets the shard through where old let nothing, or it is at
// least a quarter of the shard's target (at least one) more in a
// dimension where old was below the shard's demand.
func (c *Coordinator) worthSending(s *shardState, old, share Share, t targets, i int) bool {
	if share.Zero() {
		return false
	}
	if old.Zero() {
		return true
	}
	for d := concurrency; int(d) < len(share.Units); d++ {
		if old.at(d) < s.Demand.at(d) && share.at(d)-old.at(d) >= max(1, t.at(d, i)/4) {
			return true
		}
	}
	return false
}

// resize0 is u cut or padded with zeros to n entries.
func resize0(u []int, n int) []int {
	out := make([]int, n)
	copy(out, u)
	return out
}

// Reserved is the sum of every shard's reservation at now: what the
// shards together may hold of each window and of the concurrency.
func (c *Coordinator) Reserved(now time.Time) Share { return c.reserved(now.UnixNano(), -1) }

// Reservation is shard i's reservation at now.
func (c *Coordinator) Reservation(i int, now time.Time) Share {
	return c.reservation(&c.st.Shards[i], now.UnixNano())
}

func (c *Coordinator) reserved(n int64, skip int) Share {
	sum := Share{Units: make([]int, len(c.st.Budget.Windows))}
	for i := range c.st.Shards {
		if i == skip {
			continue
		}
		s := &c.st.Shards[i]
		for w := range sum.Units {
			sum.Units[w] += c.reservedIn(s, w, n)
		}
		sum.Concurrency += c.reservedSlots(s, n)
	}
	return sum
}

// reservation is what s may hold at n: the largest of its possible
// leases and of what it last reported holding.
//
// In a window of length per, the units the shard reported still inside
// it at n (by its schedule, Report.Frees) count, and so does every lease
// it may have run on after its report and within (n-per, n]: a shard
// grants only within its lease's share of its own window, so the units
// it sent after the report and still inside the window at n were, at the
// last such send, within that lease's share, with every unit before them.
// A lease that expired before the report, or a window's length ago, no
// longer counts: the report shows what it was used for. For a report
// without a time or a schedule, what it held counts for the window's
// length after it arrived, and each lease until a window's length after
// it expires. In concurrency, a lease counts until the in-flight lifetime
// after it expires, and what the shard reported as long after the
// report. Each lease counts until its own expiry, not the newest one's.
func (c *Coordinator) reservation(s *shardState, n int64) Share {
	out := Share{Units: make([]int, len(c.st.Budget.Windows))}
	for w := range out.Units {
		out.Units[w] = c.reservedIn(s, w, n)
	}
	out.Concurrency = c.reservedSlots(s, n)
	return out
}

// reservedIn is s's reservation in window w at n (see reservation).
func (c *Coordinator) reservedIn(s *shardState, w int, n int64) int {
	m := c.logged(s, w, n)
	from := n - int64(c.st.Budget.Windows[w].Per) // a lease counts while it expires after from
	if s.Since > 0 {
		from = max(s.Since, from)
	}
	for _, o := range s.Offers {
		if o.Expires > from && !o.Useless {
			m = max(m, o.Share.Units[w])
		}
	}
	return m
}

// reservedSlots is s's reservation of concurrency at n (see reservation).
func (c *Coordinator) reservedSlots(s *shardState, n int64) int {
	m := 0
	if n < s.Reported+int64(c.st.Budget.InFlightFor) {
		m = s.Used.Concurrency
	}
	for _, o := range s.Offers {
		if n < o.Expires+int64(c.st.Budget.InFlightFor) && !o.Useless {
			m = max(m, o.Share.Concurrency)
		}
	}
	return m
}

// offer hands o to s.
func (c *Coordinator) offer(s *shardState, o offer) {
	o.Useless = c.useless(s, o)
	s.Offers = append(s.Offers, o)
}

// markUseless marks the leases s may run on that its last report shows
// it can grant nothing on. A mark stays: a later report's schedule, in
// other steps, may place the same units less surely.
func (c *Coordinator) markUseless(s *shardState) {
	for k := range s.Offers {
		s.Offers[k].Useless = s.Offers[k].Useless || c.useless(s, s.Offers[k])
	}
}

// useless reports whether s can grant nothing on o, which it may have
// run on since its report: o lets nothing through, or leaves no room in
// a window that holds, by the report's schedule, at least o's share
// until o expires. Units only leave a window over time, so that window
// is full from the report to o's expiry, and o adds nothing to what the
// shard reported holding: a shard that used up its share of the hour
// frees the rest of its leases (its slots above all) for the others
// until its units start leaving, instead of holding them idle.
func (c *Coordinator) useless(s *shardState, o offer) bool {
	if o.Share.Zero() {
		return true
	}
	if s.Since == 0 || s.Frees == nil || o.Expires <= s.Since {
		return false
	}
	for w := range c.st.Budget.Windows {
		if c.surely(s, w, o.Expires) >= o.Share.Units[w] {
			return true
		}
	}
	return false
}

// surely is what s reported holding in window w that is certainly still
// inside it at n: the units of each step of its schedule that cannot
// have left by n (a step's units leave after its start). The units of
// requests in flight are left out: a request given back unsent frees
// its units at once.
func (c *Coordinator) surely(s *shardState, w int, n int64) int {
	per := int64(c.st.Budget.Windows[w].Per)
	sum := 0
	for k, u := range s.Frees[w][:FreeSteps] {
		if u > 0 && s.Since+per*int64(k)/FreeSteps >= n {
			sum += u
		}
	}
	return sum
}

// logged is what s reported holding in window w that is still inside it
// at n: by its schedule, each step's units until the step's end; without
// one, all of them for the window's length after the report arrived.
func (c *Coordinator) logged(s *shardState, w int, n int64) int {
	per := int64(c.st.Budget.Windows[w].Per)
	if s.Since == 0 || s.Frees == nil {
		if w < len(s.Used.Units) && n < s.Reported+per {
			return s.Used.Units[w]
		}
		return 0
	}
	sum := 0
	for _, u := range s.Frees[w][c.firstInside(s, w, n):] {
		sum += u
	}
	return sum
}

// firstInside is the first step of s's schedule for window w whose units
// are still inside it at n. Steps end in order, so those still inside
// are a suffix, found by a binary search (which spares a division a
// step).
func (c *Coordinator) firstInside(s *shardState, w int, n int64) int {
	return sort.Search(len(s.Frees[w]), func(k int) bool { return n < c.stepEnd(s, w, k) })
}

// stepEnd is when the units of step k of s's schedule for window w have
// all left it (see FreesOf).
func (c *Coordinator) stepEnd(s *shardState, w, k int) int64 {
	per := int64(c.st.Budget.Windows[w].Per)
	if k >= FreeSteps {
		return s.Since + per + int64(c.st.Budget.InFlightFor)
	}
	return s.Since + (per*int64(k+1)+FreeSteps-1)/FreeSteps
}

// prune forgets what a shard held once none of it can count any more.
func (c *Coordinator) prune(n int64) {
	longest := c.st.Budget.InFlightFor
	for _, w := range c.st.Budget.Windows {
		longest = max(longest, w.Per+c.st.Budget.InFlightFor)
	}
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		until := s.Reported
		for _, o := range s.Offers {
			until = max(until, o.Expires)
		}
		if n >= until+int64(longest) {
			s.Offers, s.Used = nil, Share{}
		}
	}
}

// targets is each shard's share of every dimension: max-min over the
// demands of the shards whose last report is within a lease's lifetime,
// then headroom on top (see fill); the rest stays free for shards that
// wake.
type targets struct {
	Units       [][]int // window, shard
	Concurrency []int
}

func (c *Coordinator) targets(n int64) targets {
	ns := len(c.st.Shards)
	live := func(s *shardState) bool { return c.live(s, n) }
	start := int(c.st.Seq % uint64(ns))
	var t targets
	for w, win := range c.st.Budget.Windows {
		d := make([]int, ns)
		for i := range c.st.Shards {
			if s := &c.st.Shards[i]; live(s) && w < len(s.Demand.Units) {
				d[i] = s.Demand.Units[w]
			}
		}
		t.Units = append(t.Units, fill(win.Limit, d, start))
	}
	d := make([]int, ns)
	for i := range c.st.Shards {
		if s := &c.st.Shards[i]; live(s) && c.hasRoom(s, t, i, n) {
			d[i] = s.Demand.Concurrency
		}
	}
	t.Concurrency = fill(c.st.Budget.Concurrency, d, start)
	// A shard with room in its windows but no slot would hold window
	// units idle: it wants no more of them than it holds, and the others
	// divide the rest.
	again := false
	for i := range c.st.Shards {
		if d[i] > 0 && t.Concurrency[i] == 0 {
			again = true
		}
	}
	if !again {
		return t
	}
	for w, win := range c.st.Budget.Windows {
		dw := make([]int, ns)
		for i := range c.st.Shards {
			if s := &c.st.Shards[i]; live(s) && w < len(s.Demand.Units) {
				dw[i] = s.Demand.Units[w]
				if d[i] > 0 && t.Concurrency[i] == 0 {
					dw[i] = min(dw[i], c.logged(s, w, n))
				}
			}
		}
		t.Units[w] = fill(win.Limit, dw, start)
	}
	return t
}

// hasRoom reports whether shard i, given its window targets in t, has
// room at n in every window for a unit more than it reported holding
// there: a shard that has used its share of a window needs no
// concurrency until its units leave, and a slot leased to it would idle
// while another shard's work waits for one (20 slots for 40 starved
// shards left half of them with none, and the other half with no units).
func (c *Coordinator) hasRoom(s *shardState, t targets, i int, n int64) bool {
	for w := range c.st.Budget.Windows {
		if c.logged(s, w, n) >= t.Units[w][i] {
			return false
		}
	}
	return true
}

// fill divides capacity max-min over demand, then gives each shard with
// any demand headroom out of what is left: up to its demand again or an
// even share of capacity over every shard (len(demand)), whichever is
// larger, max-min too. The rest stays unleased, so that a shard that
// wakes finds its share free at once instead of one taken back from the
// others (Reclaim), which costs every other shard a pushed lease and the
// waking one a second report. Units that do not divide evenly go one
// each to the shards in index order from start, so that no shard is
// always the one left out.
func fill(capacity int, demand []int, start int) []int {
	out := maxMin(capacity, demand, start)
	left := capacity
	room := make([]int, len(demand))
	even := capacity / max(1, len(demand))
	for i, d := range demand {
		left -= out[i]
		if d > 0 {
			room[i] = max(d, even)
		}
	}
	for i, extra := range maxMin(left, room, start) {
		out[i] += extra
	}
	return out
}

// maxMin divides capacity max-min over demand: no shard gets more than
// it wants, and none that wants more gets less than another.
func maxMin(capacity int, demand []int, start int) []int {
	n := len(demand)
	out := make([]int, n)
	left := capacity
	var active []int
	for k := range n {
		if i := (start + k) % n; demand[i] > 0 {
			active = append(active, i)
		}
	}
	for len(active) > 0 && left > 0 {
		each := left / len(active)
		if each == 0 {
			for _, i := range active[:left] {
				out[i]++
			}
			break
		}
		var next []int
		for _, i := range active {
			g := min(each, demand[i]-out[i])
			out[i] += g
			left -= g
			if out[i] < demand[i] {
				next = append(next, i)
			}
		}
		active = next
	}
	return out
}

// ShardStatus is one shard as the coordinator sees it, for queries.
type ShardStatus struct {
	Shard int `json:"shard"`
	// Workflow is the shard's workflow ID (set by its host, package
	// limiter/entity).
	Workflow    string    `json:"workflow,omitempty"`
	Reserved    Share     `json:"reserved"`
	Demand      Share     `json:"demand"`
	LastReport  time.Time `json:"lastReport,omitzero"`
	LeaseExpiry time.Time `json:"leaseExpiry,omitzero"`
}

// Status lists every shard at now.
func (c *Coordinator) Status(now time.Time) []ShardStatus {
	n := now.UnixNano()
	out := make([]ShardStatus, len(c.st.Shards))
	for i := range c.st.Shards {
		s := &c.st.Shards[i]
		st := ShardStatus{Shard: i, Reserved: c.reservation(s, n), Demand: s.Demand}
		if s.Reported > 0 {
			st.LastReport = time.Unix(0, s.Reported).UTC()
		}
		for _, o := range s.Offers {
			if e := time.Unix(0, o.Expires).UTC(); e.After(st.LeaseExpiry) {
				st.LeaseExpiry = e
			}
		}
		out[i] = st
	}
	return out
}

// MarshalJSON writes the coordinator's whole state.
func (c *Coordinator) MarshalJSON() ([]byte, error) { return json.Marshal(&c.st) }

// UnmarshalJSON replaces c with the state MarshalJSON wrote.
func (c *Coordinator) UnmarshalJSON(b []byte) error {
	var st coordState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("shard: decode coordinator: %w", err)
	}
	if err := st.Budget.validate(); err != nil {
		return fmt.Errorf("shard: decode coordinator: %w", err)
	}
	if len(st.Shards) < 1 {
		return errors.New("shard: decode coordinator: no shards")
	}
	c.st = st
	return nil
}
