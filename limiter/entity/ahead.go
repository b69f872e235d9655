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
// asked for, else asks for AskAhead at once (one signal; the limiter
// answers the asks it grants together in one signal) and takes the first.
func (c *Client) acquireAhead(ctx workflow.Context, ask AskOptions) (Permit, error) {
	key := aheadKey{ask.User, ask.Lane, max(1, ask.Cost)}
	a := c.ahead[key]
	if a == nil {
		a = &ahead{}
		c.ahead[key] = a
		c.aheadOrder = append(c.aheadOrder, key)
	}
	now := workflow.Now(ctx)
	for len(a.spares) > 0 {
		p := a.spares[0]
		a.spares = a.spares[1:]
		if now.Sub(p.Granted) <= SpareAge {
			p.Waited = 0
			return p, nil
		}
		c.Release(ctx, p, limiter.Outcome{Unsent: p.Cost})
	}
	f, s := workflow.NewFuture(ctx)
	a.waiters = append(a.waiters, s)
	if a.out >= len(a.waiters) {
		// Waiting on an ask already out: releases held past HoldFor for
		// its limiter may be the slots it needs.
		if c.staleHold(c.limiterFor(ask.User), now) {
			c.flushSoon(ctx)
		}
	} else {
		asks := make([]AskOptions, c.opts.AskAhead)
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

// giveBackSpares releases every spare permit unused and withdraws the
// asks still out, before the workflow ends.
func (c *Client) giveBackSpares(ctx workflow.Context) {
	for _, k := range c.aheadOrder {
		a := c.ahead[k]
		for _, p := range a.spares {
			c.Release(ctx, p, limiter.Outcome{Unsent: p.Cost})
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
