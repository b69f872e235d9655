package limiter

import (
	"container/heap"
	"math"
)

// order keeps each lane's queued users in the order pick serves them, so
// a decision with a backlog of thousands of users costs O(log users), not
// a scan of them all (issue 32: 4 µs at 1,000 users queued).
//
// Each lane is a binary heap on a cached key: in the background lane the
// most work left (Remaining) first, then in both lanes the least usage in
// the longest user window, then the earliest queued head. Held users
// (computeHolds, at most maxHeld) are weighed apart by pick.
//
// The usage changes as the user's window slides, so the cache is kept
// exact by this invariant: every user's cached key is no worse than its
// true key. Then the top is the best user as soon as its true key equals
// its cached key, which pick checks (rekey) before it serves it. What can
// make a key better is handled where it happens:
//   - usage falls only as an entry leaves the window: the leave heap holds
//     every user by the time its oldest entry in the longest window leaves
//     (leaveAt), and pick rekeys those whose time has come;
//   - a settled request lowers the usage: settle rekeys the user;
//   - an enqueue may raise Remaining: Enqueue rekeys the user (orderAdd).
//
// A grant, a later head or more usage only make a key worse, so they wait
// for pick's check. Users a pass marks blocked are parked out of the heap
// until the pass ends. It is derived state, never persisted.
type order struct {
	lanes  [numLanes]userHeap[byLane]
	leave  userHeap[byLeave]
	parked []parkedUser
}

// lane is lane's heap.
func (o *order) lane(lane Lane) *userHeap[byLane] {
	h := &o.lanes[lane]
	h.by.lane = lane
	return h
}

type parkedUser struct {
	u    *userState
	lane Lane
}

// orderKey is a user's cached place in order.
type orderKey struct {
	pos      [numLanes]int // 1-based index in order.lanes; 0: absent
	leavePos int           // 1-based index in order.leave; 0: absent
	left     int           // Remaining
	use      int           // count of the longest user window
	seq      [numLanes]uint64
	leaveAt  int64 // when use may fall
}

// before reports whether a goes before b in lane (keys as cached).
func before(lane Lane, a, b *userState) bool {
	x, y := &a.ord, &b.ord
	if lane == Background && x.left != y.left {
		return x.left > y.left
	}
	if x.use != y.use {
		return x.use < y.use
	}
	return x.seq[lane] < y.seq[lane]
}

// orderAdd puts u into lane's heap with a fresh key, or, if it is there,
// rekeys it when its Remaining changed (an enqueue may raise it).
func (l *Limiter) orderAdd(u *userState, lane Lane, now int64) {
	o := &l.order
	if u.ord.pos[lane] != 0 {
		if u.ord.left != u.Remaining {
			l.rekey(u, now)
		}
		return
	}
	u.ord.seq[lane] = 0 // no worse than any head: rekey sets it and sifts
	u.ord.use, u.ord.left = -1, math.MaxInt
	heap.Push(o.lane(lane), u)
	if u.ord.leavePos == 0 {
		u.ord.leaveAt = math.MinInt64 // likewise
		heap.Push(&o.leave, u)
	}
	l.rekey(u, now)
}

// orderRemove takes u out of lane's heap (and out of the leave heap when
// it is in no lane).
func (l *Limiter) orderRemove(u *userState, lane Lane) {
	o := &l.order
	if i := u.ord.pos[lane]; i != 0 {
		heap.Remove(o.lane(lane), i-1)
	}
	for k, p := range o.parked {
		if p.u == u && p.lane == lane {
			o.parked = append(o.parked[:k], o.parked[k+1:]...)
			break
		}
	}
	if u.ord.pos[Foreground] == 0 && u.ord.pos[Background] == 0 && u.ord.leavePos != 0 && !l.isParked(u) {
		heap.Remove(&o.leave, u.ord.leavePos-1)
	}
}

func (l *Limiter) isParked(u *userState) bool {
	for _, p := range l.order.parked {
		if p.u == u {
			return true
		}
	}
	return false
}

// rekey brings u's cached key to its true key at now, moving u in every
// heap it is in, and reports whether the key changed.
func (l *Limiter) rekey(u *userState, now int64) bool {
	o := &l.order
	k := &u.ord
	u.Scope.Log.advance(l.userPers, now)
	long := longest(l.userPers)
	g := &u.Scope.Log
	use := g.count(long)
	leaveAt := int64(math.MaxInt64)
	if s := g.start[long]; s < len(g.entries) {
		leaveAt = g.entries[s].at + l.userPers[long]
	}
	changed := use != k.use || u.Remaining != k.left
	k.use, k.left = use, u.Remaining
	for lane := range numLanes {
		if k.pos[lane] == 0 {
			continue
		}
		if s := u.Queue[lane][0].Seq; s != k.seq[lane] {
			k.seq[lane], changed = s, true
		}
		if changed {
			heap.Fix(o.lane(lane), k.pos[lane]-1)
		}
	}
	if leaveAt != k.leaveAt {
		k.leaveAt = leaveAt
		if k.leavePos != 0 {
			heap.Fix(&o.leave, k.leavePos-1)
		}
	}
	return changed
}

// orderExpire rekeys every user whose usage may have fallen by now.
func (l *Limiter) orderExpire(now int64) {
	o := &l.order
	for len(o.leave.users) > 0 && o.leave.users[0].ord.leaveAt <= now {
		l.rekey(o.leave.users[0], now)
	}
}

// orderTop is the first user of lane not marked blocked in this round,
// with its key checked, parking marked users met on the way; nil if none.
func (l *Limiter) orderTop(lane Lane, now int64) *userState {
	o := &l.order
	h := o.lane(lane)
	for h.Len() > 0 {
		u := h.users[0]
		if u.mark[lane] == l.round {
			heap.Pop(h)
			o.parked = append(o.parked, parkedUser{u, lane})
			continue
		}
		if l.rekey(u, now) {
			continue
		}
		return u
	}
	return nil
}

// orderUnpark puts back the users a pass parked.
func (l *Limiter) orderUnpark() {
	o := &l.order
	for _, p := range o.parked {
		heap.Push(o.lane(p.lane), p.u)
	}
	clear(o.parked)
	o.parked = o.parked[:0]
}

// orderRebuild rebuilds order from the active users at now (after the
// state or the windows changed).
func (l *Limiter) orderRebuild(now int64) {
	for _, u := range l.st.Users {
		u.ord = orderKey{}
	}
	l.order = order{}
	for lane := range numLanes {
		for _, u := range l.active[lane] {
			if u != nil {
				l.orderAdd(u, lane, now)
			}
		}
	}
}

// byLane orders one lane's queued users as pick serves them (before),
// each user knowing its place in that lane (orderKey.pos).
type byLane struct{ lane Lane }

func (o byLane) less(a, b *userState) bool { return before(o.lane, a, b) }
func (o byLane) slot(u *userState) *int    { return &u.ord.pos[o.lane] }

// byLeave orders users by the time their usage may next fall
// (orderKey.leaveAt), each knowing its place (orderKey.leavePos).
type byLeave struct{}

func (byLeave) less(a, b *userState) bool { return a.ord.leaveAt < b.ord.leaveAt }
func (byLeave) slot(u *userState) *int    { return &u.ord.leavePos }
