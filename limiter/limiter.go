package limiter

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// ErrInvalidRequest is wrapped by the errors Enqueue returns for a request
// that can never be granted.
var ErrInvalidRequest = errors.New("limiter: invalid request")

// queued is a request waiting in a user's lane.
type queued struct {
	ID       string `json:"id"`
	Cost     int    `json:"cost"`
	MinCost  int    `json:"minCost,omitempty"` // < Cost: divisible (Request.MinCost)
	Slots    int    `json:"slots"`
	Attempt  int    `json:"attempt,omitempty"`
	Seq      uint64 `json:"seq"`
	Enqueued int64  `json:"enqueued"`
	// Origin, for foreground, is when it would have come had the limiter
	// granted its scan's earlier requests at once (see fgOrigin); 0:
	// Enqueued.
	Origin int64 `json:"origin,omitempty"`
}

// userState is one user's scope and queues.
type userState struct {
	ID    string             `json:"id"`
	Last  int64              `json:"last"` // last enqueue
	Scope scopeState         `json:"scope"`
	Queue [numLanes][]queued `json:"queue"`
	// Remaining is the background work the user still needs, as last
	// reported (Request.Remaining) less what was granted since.
	Remaining int              `json:"remaining,omitempty"`
	mark      [numLanes]uint64 // round in which this lane was found blocked
	inAct     [numLanes]bool   // listed in Limiter.active
	actPos    [numLanes]int    // its index in Limiter.active, while listed
	ord       orderKey         // its place in Limiter.order
	hk        holdKey          // its place in Limiter.holdIdx
	fbPos     int              // 1-based index in Limiter.fgBack; 0: absent
}

// lease is a live grant holding concurrency slots.
type lease struct {
	Grant
	Attempt   int   `json:"attempt,omitempty"`
	UserProbe bool  `json:"userProbe,omitempty"`
	AppProbe  bool  `json:"appProbe,omitempty"`
	UserCount []int `json:"userCount"` // per window, before this grant
	AppCount  []int `json:"appCount"`
	UserConc  int   `json:"userConc"` // in flight before this grant
	AppConc   int   `json:"appConc"`
	// UserRise and AppRise mark a rise probe (see riseFrom): bit w is
	// set when the grant went above window w's learned limit, of the
	// user's or the app's windows.
	UserRise uint64 `json:"userRise,omitempty"`
	AppRise  uint64 `json:"appRise,omitempty"`
}

// throttleMark remembers a throttle without a scope, to infer app scope
// when several users are throttled together.
type throttleMark struct {
	User string `json:"user"`
	At   int64  `json:"at"`
}

// seenID remembers a finished request ID until Until.
type seenID struct {
	ID    string `json:"id"`
	Until int64  `json:"until"`
	// Lease is the lease the request finished under, so that a late or
	// repeated release of it is known (Charge).
	Lease string `json:"lease,omitempty"`
}

// state is everything a Limiter persists.
type state struct {
	Spec        Spec           `json:"spec"`
	Now         int64          `json:"now"`
	Seq         uint64         `json:"seq"`
	App         scopeState     `json:"app"`
	Users       []*userState   `json:"users"`
	Leases      []*lease       `json:"leases"`
	RetryTokens float64        `json:"retryTokens"`
	RetryProbe  int64          `json:"retryProbe"`
	Errors      int            `json:"errors,omitempty"`
	Throttles   []throttleMark `json:"throttles,omitempty"`
	Seen        []seenID       `json:"seen,omitempty"`
	LastSweep   int64          `json:"lastSweep"`
	// UserProof is, per user window, the highest count recently proven
	// to succeed in any user's scope (Proven and ProvenAt only): one user
	// table holds for every user (see scopeView.peers).
	UserProof []adapted `json:"userProof,omitempty"`
	// UserLowering is the latest lowering of the user table by a throttle
	// without a scope, while a throttle of the app may still take it back
	// (Limiter.unlearnUser).
	UserLowering *userLowering `json:"userLowering,omitempty"`
	// RiseTokens is the rise probes' budget (see riseFrom): riseRatio
	// earned per success once Throttled, one spent per throttle, at most
	// riseBurst.
	RiseTokens float64 `json:"riseTokens,omitempty"`
	// Throttled is whether upstream has throttled a request yet; Headers
	// whether it has named a throttle's scope or reported a percentage
	// (rises then show in the percentages: no rise probe goes).
	Throttled bool `json:"throttled,omitempty"`
	Headers   bool `json:"headers,omitempty"`
	// RiseProbe is the lease of the rise probe in flight, if any: one
	// goes at a time, over every scope.
	RiseProbe string `json:"riseProbe,omitempty"`
}

// Limiter is the limit model. Create it with New; the zero value is not
// usable.
type Limiter struct {
	st       state
	userPers []int64
	appPers  []int64

	users  map[string]*userState
	queued map[string]*userState // request ID -> user, while queued
	leases map[string]*lease     // lease ID -> lease
	byReq  map[string]*lease     // request ID -> lease
	seen   map[string]string     // finished request ID -> the lease it finished under
	// active is, per lane, the users with work queued in the lane in the
	// order they came, with nil where a user left (see deactivate); nAct
	// counts the users.
	active  [numLanes][]*userState
	nAct    [numLanes]int
	round   uint64
	holds   holds     // app room held for users bound by their own limits
	order   order     // active users in the order pick serves them
	holdIdx holdIndex // the users computeHolds weighs
	// fgBack is the users with background queued that have enqueued
	// foreground (see fgBackSync), in no order.
	fgBack []*userState

	keep int64 // see retain
}

// New returns a Limiter enforcing spec, with no history, at time now.
func New(spec Spec, now time.Time) (*Limiter, error) {
	spec.Tuning = spec.Tuning.withDefaults()
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	l := &Limiter{}
	l.st = state{
		Spec:        spec,
		Now:         now.UnixNano(),
		App:         newScopeState(len(spec.App.Windows)),
		RetryTokens: spec.Tuning.RetryBurst,
		LastSweep:   now.UnixNano(),
	}
	l.index()
	return l, nil
}

// Spec returns the spec in force, with tuning defaults filled in.
func (l *Limiter) Spec() Spec { return l.st.Spec.clone() }

// index rebuilds every derived field from l.st.
func (l *Limiter) index() {
	l.userPers = pers(l.st.Spec.User.Windows)
	l.appPers = pers(l.st.Spec.App.Windows)
	l.users = make(map[string]*userState, len(l.st.Users))
	l.queued = make(map[string]*userState)
	l.leases = make(map[string]*lease, len(l.st.Leases))
	l.byReq = make(map[string]*lease, len(l.st.Leases))
	l.seen = make(map[string]string, len(l.st.Seen))
	l.active = [numLanes][]*userState{}
	l.nAct = [numLanes]int{}
	l.fgBack = nil
	for _, u := range l.st.Users {
		l.users[u.ID] = u
		for lane := range numLanes {
			u.inAct[lane] = false
			for _, q := range u.Queue[lane] {
				l.queued[q.ID] = u
			}
			if len(u.Queue[lane]) > 0 {
				l.activate(u, lane)
			}
		}
		u.fbPos = 0
		l.fgBackSync(u)
	}
	for _, ls := range l.st.Leases {
		l.leases[ls.LeaseID] = ls
		l.byReq[ls.RequestID] = ls
	}
	for _, s := range l.st.Seen {
		l.seen[s.ID] = s.Lease
	}
	l.retain()
	l.orderRebuild(l.st.Now)
	l.holdRebuild(l.st.Now)
}

// retain sets l.keep and every rolling log's keep from the spec: how long
// past its longest window a log keeps entries, so that a request settled
// or judged at the time it was sent finds every entry upstream counted
// then. That is a lease's lifetime, but no more than a tenth of the
// longest window (a scaled-down spec keeps its logs short).
func (l *Limiter) retain() {
	longest := slices.Max(slices.Concat(l.userPers, l.appPers))
	l.keep = min(int64(l.st.Spec.Tuning.LeaseTTL), longest/10)
	l.st.App.Log.keep = l.keep
	for _, u := range l.st.Users {
		u.Scope.Log.keep = l.keep
	}
}

func pers(ws []Window) []int64 {
	out := make([]int64, len(ws))
	for i, w := range ws {
		out[i] = int64(w.Per)
	}
	return out
}

func (l *Limiter) userView(u *userState) scopeView {
	return scopeView{st: &u.Scope, spec: &l.st.Spec.User, pers: l.userPers, t: &l.st.Spec.Tuning, rise: l.riseOpen()}
}

func (l *Limiter) appView() scopeView {
	return scopeView{st: &l.st.App, spec: &l.st.Spec.App, pers: l.appPers, t: &l.st.Spec.Tuning, rise: l.riseOpen()}
}

// appViewFor is the app scope as u's requests in lane see it: less the
// room held for others (see computeHolds).
func (l *Limiter) appViewFor(u *userState, lane Lane, now int64) scopeView {
	v := l.appView()
	v.hold = l.holdFor(u, lane, now)
	return v
}

// clock moves the model to now and returns it in nanoseconds. Time never
// runs backwards: an earlier now is taken as the latest time seen.
func (l *Limiter) clock(now time.Time) int64 {
	n := now.UnixNano()
	if n < l.st.Now {
		n = l.st.Now
	}
	l.st.Now = n
	l.st.App.Log.advance(l.appPers, n)
	l.prune(n)
	l.keepOpen(n)
	return n
}

func (l *Limiter) user(id string) *userState {
	if u := l.users[id]; u != nil {
		return u
	}
	u := &userState{ID: id, Scope: newScopeState(len(l.userPers))}
	u.Scope.Log.keep = l.keep
	u.Scope.Conc = l.userConc()
	l.users[id] = u
	l.st.Users = append(l.st.Users, u)
	return u
}

// userConc is the user concurrency cap a new user starts from: the
// highest any known user holds now. One cap holds for every user (the
// spec has one user table), and a concurrency throttle lowers it for
// every user known then (Release); a user arriving later learns it
// again otherwise, two throttles each where the real cap is 2 of 5
// (small-15: three users arriving over two hours, 2.6% of the requests
// throttled). The rate windows are not inherited: bench/results/
// limiter-learning.md has why.
//
// No cap is above the spec's, so the first user at it ends the search: a
// new user costs O(1) unless every known user's cap is lowered. Walking
// every user, each user swept after two idle hours cost O(users) when it
// came back: at 10,000 users reporting remaining work, 34-44 µs a
// decision (BenchmarkRemainingAllQueued).
func (l *Limiter) userConc() adapted {
	spec, t, now := l.st.Spec.User.Concurrency, &l.st.Spec.Tuning, l.st.Now
	var best adapted
	top := 0
	for i, x := range l.st.Users {
		if c := x.Scope.Conc.limit(spec, t, now); i == 0 || c > top {
			best, top = x.Scope.Conc, c
			if top >= spec {
				break
			}
		}
	}
	return best
}

// activate lists u in lane's active users, last.
func (l *Limiter) activate(u *userState, lane Lane) {
	if !u.inAct[lane] {
		u.inAct[lane] = true
		u.actPos[lane] = len(l.active[lane])
		l.active[lane] = append(l.active[lane], u)
		l.nAct[lane]++
	}
}

// Enqueue queues req at now. A request whose ID is queued, leased or
// recently finished is ignored (nil error): duplicates are harmless. It
// fails, wrapping ErrInvalidRequest, for a request that could never be
// granted.
func (l *Limiter) Enqueue(req Request, now time.Time) error {
	if err := l.check(req); err != nil {
		return err
	}
	n := l.clock(now)
	if _, done := l.seen[req.ID]; done || l.queued[req.ID] != nil || l.byReq[req.ID] != nil {
		return nil
	}
	req.Lane = l.lane(req.Lane)
	u := l.user(req.User)
	u.Last = n
	if req.Remaining > 0 && req.Lane == Background {
		u.Remaining = min(req.Remaining, MaxRemaining)
	}
	origin := int64(0)
	if req.Lane == Foreground {
		origin = l.fgOrigin(u, n)
		u.Scope.LastFG = n
		l.st.App.LastFG = n
		u.Scope.FG.insert(l.userPers, origin, max(1, req.Cost))
		l.st.App.FG.insert(l.appPers, origin, max(1, req.Cost))
	}
	l.st.Seq++
	u.Queue[req.Lane] = append(u.Queue[req.Lane], queued{
		ID: req.ID, Cost: max(1, req.Cost), MinCost: divisible(req), Slots: max(1, req.Slots),
		Attempt: req.Attempt, Seq: l.st.Seq, Enqueued: n, Origin: origin,
	})
	l.queued[req.ID] = u
	l.activate(u, req.Lane)
	l.orderAdd(u, req.Lane, n)
	l.holdSync(u, n) // Remaining may have risen
	l.fgBackSync(u)
	return nil
}

// divisible is the queued MinCost of req: 0 unless it may be granted in
// part.
func divisible(req Request) int {
	if req.MinCost >= 1 && req.MinCost < max(1, req.Cost) {
		return req.MinCost
	}
	return 0
}

// least is the fewest units q may be granted.
func (q *queued) least() int {
	if q.MinCost > 0 {
		return q.MinCost
	}
	return q.Cost
}

// lane is the lane a request of lane waits in: Foreground for every
// request when lanes are switched off (Tuning.SingleLane).
func (l *Limiter) lane(lane Lane) Lane {
	if l.st.Spec.Tuning.SingleLane {
		return Foreground
	}
	return lane
}

func (l *Limiter) check(req Request) error {
	switch {
	case req.ID == "":
		return fmt.Errorf("%w: empty ID", ErrInvalidRequest)
	case req.User == "":
		return fmt.Errorf("%w: %s: empty user", ErrInvalidRequest, req.ID)
	case req.Lane >= numLanes:
		return fmt.Errorf("%w: %s: lane %d", ErrInvalidRequest, req.ID, req.Lane)
	case req.Cost < 0 || req.MinCost < 0 || req.Slots < 0 || req.Attempt < 0 || req.Remaining < 0:
		return fmt.Errorf("%w: %s: negative cost, minimum cost, slots, attempt or remaining work", ErrInvalidRequest, req.ID)
	}
	sp := &l.st.Spec
	if s := max(1, req.Slots); s > sp.User.Concurrency || s > sp.App.Concurrency {
		return fmt.Errorf("%w: %s: %d slots exceed a concurrency cap", ErrInvalidRequest, req.ID, s)
	}
	for _, ws := range [][]Window{sp.User.Windows, sp.App.Windows} {
		for _, w := range ws {
			if c := max(1, req.Cost); c > w.Limit {
				return fmt.Errorf("%w: %s: cost %d exceeds the limit %d per %s", ErrInvalidRequest, req.ID, c, w.Limit, w.Per.D())
			}
		}
	}
	return nil
}

// Cancel removes a queued request and reports whether it was queued. A
// granted request is given back with Release instead.
func (l *Limiter) Cancel(requestID string) bool {
	u, lane, i := l.queuedAt(requestID)
	if u == nil {
		return false
	}
	l.unqueue(u, lane, i, requestID)
	return true
}

// queuedAt finds the queued request id: its user, lane and index in the
// lane's queue (-1 if the index lost it), or a nil user.
func (l *Limiter) queuedAt(id string) (*userState, Lane, int) {
	u := l.queued[id]
	if u == nil {
		return nil, 0, -1
	}
	for lane := range numLanes {
		for i, r := range u.Queue[lane] {
			if r.ID == id {
				return u, lane, i
			}
		}
	}
	return u, 0, -1
}

// unqueue removes the request id, at index i of u's lane queue (see
// queuedAt), from the queues.
func (l *Limiter) unqueue(u *userState, lane Lane, i int, id string) {
	delete(l.queued, id)
	if i < 0 {
		return
	}
	q := u.Queue[lane]
	u.Queue[lane] = append(q[:i:i], q[i+1:]...)
	if len(u.Queue[lane]) == 0 {
		u.Queue[lane] = nil
		l.deactivate(u, lane)
	}
}

// deactivate takes u off lane's active users in amortised O(1): its
// place is left nil, and the list is compacted, in order, once half of
// it is nil.
func (l *Limiter) deactivate(u *userState, lane Lane) {
	if !u.inAct[lane] {
		return
	}
	u.inAct[lane] = false
	l.orderRemove(u, lane)
	if lane == Background {
		l.holdSync(u, l.st.Now)
		l.fgBackSync(u)
	}
	a := l.active[lane]
	a[u.actPos[lane]] = nil
	l.nAct[lane]--
	if 2*l.nAct[lane] > len(a) {
		return
	}
	k := 0
	for _, v := range a {
		if v != nil {
			v.actPos[lane] = k
			a[k] = v
			k++
		}
	}
	clear(a[k:])
	l.active[lane] = a[:k]
}

// Lease returns the live grant of requestID, so a duplicate acquire can be
// answered with the grant already made.
func (l *Limiter) Lease(requestID string) (Grant, bool) {
	if ls := l.byReq[requestID]; ls != nil {
		return ls.Grant, true
	}
	return Grant{}, false
}

// MaxRemembered bounds how many finished request IDs are remembered for
// deduplication, whatever DedupeTTL says, so the state a limiter carries
// across continue-as-new stays small when limits are raised and thousands
// of requests finish within the TTL.
const MaxRemembered = 2048

func (l *Limiter) remember(id, lease string, now int64) {
	if len(l.st.Seen) >= MaxRemembered {
		drop := len(l.st.Seen) - MaxRemembered + 1
		for _, s := range l.st.Seen[:drop] {
			delete(l.seen, s.ID)
		}
		l.st.Seen = l.st.Seen[drop:]
	}
	l.st.Seen = append(l.st.Seen, seenID{ID: id, Until: now + int64(l.st.Spec.Tuning.DedupeTTL), Lease: lease})
	l.seen[id] = lease
}

func (l *Limiter) leaseID(seq uint64) string { return "L" + strconv.FormatUint(seq, 10) }

// followOn is how soon after a user's foreground request is released its
// next foreground request is taken as the same scan's next one (the
// simulator's scans ask at once; a worker's next call takes well under a
// second).
const followOn = int64(time.Second)

// fgOrigin is when a foreground request of u enqueued at n would have
// come had the limiter granted its scan's earlier requests at once: n,
// less, for a scan's next request (u's foreground enqueued within
// followOn of the release of its last), the time the scan's earlier
// requests waited in the queue (FGLag). The foreground log follows the
// demand as people make it, not as the queue let it through: 17 scans of
// 2 requests found the app hour full and waited 58 s, their second
// requests came a minute after their first, and the two minutes looked
// like a rate of 17 a minute that held half the hour (287) for a minute
// while background idled (full-121; full-240 the same, 7 scans that
// waited 1m38s, 131 of 263 held for 21 s).
func (l *Limiter) fgOrigin(u *userState, n int64) int64 {
	s := &u.Scope
	if s.FGDone == 0 || n-s.FGDone > followOn {
		return n
	}
	return max(0, n-s.FGLag)
}

// origin is when the request would have come had its scan been granted
// at once (see fgOrigin).
func (q queued) origin() int64 {
	if q.Origin != 0 {
		return q.Origin
	}
	return q.Enqueued
}
