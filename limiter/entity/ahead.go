package entity

import (
	"slices"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// SpareAge is how long a permit asked ahead may wait at the client for a
// caller: an older one has too little of its lease left, and is given
// back unused.
const SpareAge = 5 * time.Second

// aheadKey is the kind of ask a spare permit answers.
type aheadKey struct {
	User string
	Lane limiter.Lane
	Cost int
}

// ahead holds the permits asked ahead for one kind of ask: spares granted
// and not yet taken, asks still out, and callers waiting for them.
type ahead struct {
	spares  []Permit
	out     int
	waiters []workflow.Settable
}

// acquireAhead is Acquire with ClientOptions.AskAhead: a caller takes a
// spare permit of its kind if one is fresh, else waits for one already
// asked for, else asks for up to AskAhead at once (one signal; the limiter
// answers the asks it grants together in one signal) and takes the first.
func (c *Client) acquireAhead(ctx workflow.Context, ask AskOptions) (Permit, error) {
	key := aheadKey{ask.User, ask.Lane, max(1, ask.Cost)}
	if p, ok := c.takeSpare(ctx, key); ok {
		return p, nil
	}
	a := c.ahead.get(key)
	now := workflow.Now(ctx)
	f, s := workflow.NewFuture(ctx)
	a.waiters = append(a.waiters, s)
	if a.out >= len(a.waiters) {
		// Waiting on an ask already out: releases held past HoldFor for
		// its limiter may be the slots it needs.
		if c.staleHold(c.limiterFor(ask.User), now) {
			c.flushSoon(ctx)
		}
	} else {
		asks := make([]AskOptions, c.aheadCount(ask.User))
		for i := range asks {
			asks[i] = ask
		}
		futures, ids := c.ask(ctx, asks)
		c.flushSoon(ctx)
		a.out += len(futures)
		for i, fu := range futures {
			c.aheadIDs[ids[i]] = true
			workflow.Go(ctx, func(ctx workflow.Context) {
				var g limiter.Grant
				err := fu.Get(ctx, &g)
				a.out--
				delete(c.aheadIDs, ids[i])
				p := Permit{RequestID: ids[i], LeaseID: g.LeaseID, User: g.User, Cost: g.Cost, Granted: g.Granted, Expires: g.Expires, Probe: g.Probe,
					Waited: workflow.Now(ctx).Sub(now)}
				if len(a.waiters) > 0 {
					w := a.waiters[0]
					a.waiters = a.waiters[1:]
					if err != nil {
						w.Set(nil, err)
					} else {
						w.Set(p, nil)
					}
					return
				}
				if err == nil {
					a.spares = append(a.spares, p)
					c.watchSpares()
				}
			})
		}
	}
	var p Permit
	if err := f.Get(ctx, &p); err != nil {
		if ctx.Err() != nil {
			// Withdrawn: a permit that comes later is a spare.
			for i, w := range a.waiters {
				if w == s {
					a.waiters = append(a.waiters[:i], a.waiters[i+1:]...)
					break
				}
			}
		}
		return Permit{}, err
	}
	c.Stats.Waited += p.Waited
	return p, nil
}

// aheadCount is how many permits a caller of user that finds no spare
// asks for: at least its own, and no more than AskAhead, nor half the
// user's concurrency in the spec, less the permits the client holds (in
// use or spare) or still awaits for the user. The half leaves the other
// slots to the user's other workflows (sections, scans): a spare holds a
// slot idle until a caller takes it, and where concurrency binds (a cap
// of 2 and three sections, as in the end-to-end tests) spares held a
// slot each and halved the throughput (bench/results/limiter-scale.md).
func (c *Client) aheadCount(user string) int {
	n := 0
	// A count: the map's order does not reach it.
	//workflowcheck:ignore
	for _, h := range c.held {
		if h.User == user {
			n++
		}
	}
	//workflowcheck:ignore
	for id := range c.aheadIDs {
		if c.userOf[id] == user {
			n++
		}
	}
	return max(1, c.aheadMost-n)
}

// takeSpare takes a fresh spare of kind key, giving back the stale ones
// it finds first.
func (c *Client) takeSpare(ctx workflow.Context, key aheadKey) (Permit, bool) {
	a := c.ahead.at(key)
	if a == nil {
		return Permit{}, false
	}
	c.giveBackStale(ctx, a, workflow.Now(ctx))
	if len(a.spares) == 0 {
		return Permit{}, false
	}
	p := a.spares[0]
	a.spares = a.spares[1:]
	p.Waited = 0
	return p, true
}

// giveBackStale gives back a's spares that are SpareAge old at now.
func (c *Client) giveBackStale(ctx workflow.Context, a *ahead, now time.Time) {
	a.spares = slices.DeleteFunc(a.spares, func(p Permit) bool {
		if now.Sub(p.Granted) < SpareAge {
			return false
		}
		c.giveBack(ctx, p)
		return true
	})
}

// GivenBack is how many units granted the client gave back unused
// (ClientStats.GivenBack).
func (c *Client) GivenBack() int { return c.Stats.GivenBack }

// takeSpares takes up to n fresh spares of kind key (cost 1) as one
// permit of their summed cost, for a divisible ask (MinCost 1).
func (c *Client) takeSpares(ctx workflow.Context, key aheadKey, n int) (Permit, bool) {
	var parts []Permit
	for len(parts) < n {
		p, ok := c.takeSpare(ctx, key)
		if !ok {
			break
		}
		parts = append(parts, p)
	}
	switch len(parts) {
	case 0:
		return Permit{}, false
	case 1:
		return parts[0], true
	}
	p := parts[0]
	p.Parts, p.Cost = parts, 0
	for _, q := range parts {
		p.Cost += q.Cost
		p.Probe = p.Probe || q.Probe
		if q.Expires.Before(p.Expires) {
			p.Expires = q.Expires
		}
	}
	return p, true
}

// released is one part's release.
type released struct {
	permit  Permit
	outcome limiter.Outcome
}

// splitRelease divides the outcome of a permit made of parts among them.
// A call under it stops at its first failure, so the units sent fill the
// parts in order: the part holding the last unit sent carries what
// upstream said (with its own units unsent), the parts before it were
// plain successes, and the parts after it were never sent. With nothing
// sent, the first part carries the outcome.
func splitRelease(parts []Permit, o limiter.Outcome) []released {
	total := 0
	for _, q := range parts {
		total += max(1, q.Cost)
	}
	sent := min(total, max(0, total-o.Unsent))
	out := make([]released, len(parts))
	carried := false
	for i, q := range parts {
		cost := max(1, q.Cost)
		n := min(cost, sent)
		sent -= n
		switch {
		case !carried && (sent == 0 && (n > 0 || i == 0)):
			r := o
			r.Unsent = cost - n
			out[i], carried = released{q, r}, true
		case !carried && o.Status == 0:
			// No status: a failure that never said what it sent; each
			// part is released as the whole would have been.
			r := o
			r.Unsent = 0
			out[i] = released{q, r}
		case !carried:
			out[i] = released{q, limiter.Outcome{Status: 200, Sent: o.Sent}}
		default:
			out[i] = released{q, limiter.Outcome{Unsent: cost}}
		}
	}
	return out
}

// giveBack releases a spare nobody took, unsent.
func (c *Client) giveBack(ctx workflow.Context, p Permit) {
	c.Stats.GivenBack += p.Cost
	c.Release(ctx, p, limiter.Outcome{Unsent: p.Cost})
}

// watchSpares gives each spare back once it is SpareAge old and still
// untaken: until then it holds a slot of its user, and units of the
// windows, that other asks (this client's of other kinds, or other
// workflows') may be waiting for at the limiter. One goroutine waits for
// the oldest spare at a time.
func (c *Client) watchSpares() {
	if c.watching {
		return
	}
	c.watching = true
	workflow.Go(c.base, func(ctx workflow.Context) {
		defer func() { c.watching = false }()
		for {
			oldest, ok := c.oldestSpare()
			if !ok {
				return
			}
			if d := oldest.Add(SpareAge).Sub(workflow.Now(ctx)); d > 0 {
				t := workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{Summary: "Give back the permits asked ahead that nobody took"})
				if t.Get(ctx, nil) != nil {
					return
				}
			}
			now := workflow.Now(ctx)
			for _, k := range c.ahead.keys {
				c.giveBackStale(ctx, c.ahead.at(k), now)
			}
		}
	})
}

// oldestSpare is the grant time of the oldest spare, if there is one.
func (c *Client) oldestSpare() (time.Time, bool) {
	var oldest time.Time
	found := false
	for _, k := range c.ahead.keys {
		for _, p := range c.ahead.at(k).spares {
			if !found || p.Granted.Before(oldest) {
				oldest, found = p.Granted, true
			}
		}
	}
	return oldest, found
}

// giveBackSpares releases every spare permit unused and withdraws the
// asks still out, before the workflow ends.
func (c *Client) giveBackSpares(ctx workflow.Context) {
	for _, k := range c.ahead.keys {
		a := c.ahead.at(k)
		for _, p := range a.spares {
			c.giveBack(ctx, p)
		}
		a.spares = nil
	}
	var cancel []string
	// Sorted below: the map's order does not reach the messages.
	//workflowcheck:ignore
	for id := range c.aheadIDs {
		if _, ok := c.waiting[id]; ok {
			delete(c.waiting, id)
			cancel = append(cancel, id)
		}
	}
	clear(c.aheadIDs)
	slices.Sort(cancel)
	for _, id := range cancel {
		c.out.cancel(c.limiterFor(c.userOf[id]), id)
		delete(c.userOf, id)
	}
}
