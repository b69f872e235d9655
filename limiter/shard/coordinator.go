package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// DefaultTTL is a lease's lifetime when Options.TTL is zero. A shard
// refreshes a third of the way through, so two refreshes may be lost
// before its lease lapses. Each report and lease costs both workflows a
// signal and a workflow task (about 14 history events in all), so a long
// lease keeps an active shard's coordination to one round trip in 40 s;
// a shard asks sooner only when its lease is short or starves its work
// (Holder.NextReport).
const DefaultTTL = 2 * time.Minute

// ErrShard is wrapped by the errors of a report from a shard the
// coordinator does not have.
var ErrShard = errors.New("shard: no such shard")

// offer is a lease handed to a shard that the shard may be running on.
type offer struct {
	Version uint64 `json:"version"`
	Share   Share  `json:"share"`
	Expires int64  `json:"expires"`
}

// shardState is what the coordinator knows of one shard.
type shardState struct {
	// Offers are the lease the shard last said it runs on and every
	// lease handed to it since: it may be running on any of them.
	Offers   []offer `json:"offers,omitempty"`
	Used     Share   `json:"used"`
	Demand   Share   `json:"demand"`
	Reported int64   `json:"reported"`
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
	c.prune(n)

	target := c.targets(n)
	others := c.reserved(n, r.Shard)
	share := Share{Units: make([]int, nw)}
	for w, win := range c.st.Budget.Windows {
		share.Units[w] = max(0, min(target.Units[w][r.Shard], win.Limit-others.Units[w]))
	}
	share.Concurrency = max(0, min(target.Concurrency[r.Shard], c.st.Budget.Concurrency-others.Concurrency))
	c.st.Seq++
	exp := n + int64(c.st.TTL)
	s.Offers = append(s.Offers, offer{Version: c.st.Seq, Share: share, Expires: exp})
	short := len(c.overTarget(shortDims(share, target, r.Shard), target, r.Shard, n)) > 0
	full := share.Concurrency < s.Demand.Concurrency
	for w := range share.Units {
		full = full || share.Units[w] < s.Demand.Units[w]
	}
	return Lease{Shard: r.Shard, Version: c.st.Seq, Share: share, Expires: time.Unix(0, exp).UTC(), Short: short, Full: full}, nil
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
		s.Offers = append(s.Offers, offer{Version: c.st.Seq, Share: share, Expires: newest.Expires})
		out = append(out, Lease{Shard: i, Version: c.st.Seq, Share: share, Expires: time.Unix(0, newest.Expires).UTC(), Pushed: true})
	}
	return out
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
		r := c.reservation(&c.st.Shards[i], n)
		for w := range sum.Units {
			sum.Units[w] += r.Units[w]
		}
		sum.Concurrency += r.Concurrency
	}
	return sum
}

// reservation is what s may hold at n: the largest of its possible
// leases and of what it last reported holding. A lease counts in each
// window until that window's length after it expires (its last grant has
// left the window by then), and in concurrency until the in-flight
// lifetime after it; what the shard reported holding counts as long
// after the report. Each lease counts until its own expiry, not the
// newest one's: a lease that lapsed long ago does not count again when
// the shard gets a new one.
func (c *Coordinator) reservation(s *shardState, n int64) Share {
	b := &c.st.Budget
	out := Share{Units: make([]int, len(b.Windows))}
	for w, win := range b.Windows {
		m := 0
		if w < len(s.Used.Units) && n < s.Reported+int64(win.Per) {
			m = s.Used.Units[w]
		}
		for _, o := range s.Offers {
			if n < o.Expires+int64(win.Per) {
				m = max(m, o.Share.Units[w])
			}
		}
		out.Units[w] = m
	}
	m := 0
	if n < s.Reported+int64(b.InFlightFor) {
		m = s.Used.Concurrency
	}
	for _, o := range s.Offers {
		if n < o.Expires+int64(b.InFlightFor) {
			m = max(m, o.Share.Concurrency)
		}
	}
	out.Concurrency = m
	return out
}

// prune forgets what a shard held once none of it can count any more.
func (c *Coordinator) prune(n int64) {
	longest := c.st.Budget.InFlightFor
	for _, w := range c.st.Budget.Windows {
		longest = max(longest, w.Per)
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
	live := func(s *shardState) bool { return n-s.Reported < int64(c.st.TTL) }
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
		if s := &c.st.Shards[i]; live(s) {
			d[i] = s.Demand.Concurrency
		}
	}
	t.Concurrency = fill(c.st.Budget.Concurrency, d, start)
	return t
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
