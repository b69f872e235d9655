package entity

import (
	"fmt"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// ClientOptions names the limiter a Client talks to.
type ClientOptions struct {
	// Resource and App identify the limiter (see WorkflowID).
	Resource string
	App      string
	// Spec starts the limiter when it is not running yet; nil means
	// limiter.OneNote(). A running limiter keeps its own spec.
	Spec *limiter.Spec
	// TaskQueue is where a limiter started by this client runs; empty
	// means the requester's own task queue.
	TaskQueue string
	// AssumeRunning skips signal-with-start on first use, for deployments
	// (and tests) that start the limiter themselves. A refused signal
	// still falls back to it.
	AssumeRunning bool
	// Shards, above 1, spreads users over that many limiter shards
	// (ShardWorkflowID), which share the app budget through a
	// coordinator's leases. Every worker of a deployment must agree.
	Shards int
	// SignalPerAsk sends each ask in a signal of its own, as the first
	// design did, rather than the asks of one workflow task in one signal
	// per limiter; it is kept so that benchmarks can measure the two in
	// one run.
	SignalPerAsk bool
	// AskAhead, above 1, has Acquire ask for up to that many permits of a
	// kind (user, cost; first attempts of indivisible background asks) at
	// once when it has no spare, and later Acquires take the spares:
	// several grants travel in one signal. It asks for no more than
	// AskAhead, nor half the user's concurrency in Spec, less the permits
	// the client already holds or awaits for the user (aheadCount), so
	// its spares leave the user's other workflows slots. A divisible
	// first ask (MinCost 1) takes up to its cost in spares of cost 1 as
	// one permit (Permit.Parts). A spare unused for SpareAge, or at
	// Flush, is given back unsent (ClientStats.GivenBack). Foreground
	// asks never ask ahead: a spare would sit on the reserve other scans
	// need.
	AskAhead int
}

// Client asks a limiter for permits from inside a workflow. Create one per
// workflow run with NewClient; it may serve many concurrent Acquires
// (several workflow goroutines), and routes each grant to its waiter.
type Client struct {
	opts ClientOptions
	self Address
	// base is the context NewClient was given, disconnected: messages that
	// need an activity schedule it from base, never from a caller's
	// session context (see send).
	base    workflow.Context
	seq     int
	waiting map[string]workflow.Settable
	// held maps the request IDs of permits granted and not yet released
	// to their leases, so a resent grant is recognised and a release
	// knows whether its limiter still serves this client (Release).
	held map[string]heldPermit
	// ahead holds the permits asked ahead (AskAhead) by kind; aheadIDs
	// are their request IDs still out.
	ahead    ordered[aheadKey, ahead]
	aheadIDs map[string]bool
	// aheadMost bounds a user's permits asked ahead: AskAhead, at most
	// half the user's concurrency in the spec (aheadCount).
	aheadMost int
	// watching is set while a goroutine waits to give back stale spares.
	watching bool
	// orphanTo is the limiter of a grant being given back; userOf the
	// user of each request waiting for its grant.
	orphanTo map[string]string
	userOf   map[string]string
	// running lists the limiters known to run.
	running map[string]bool
	// asks and releases wait in out to travel together at the end of the
	// workflow task, one message per limiter; flushing is set while a
	// goroutine is due to send them; posting counts messages not yet
	// delivered.
	out      outgoing
	heldAt   map[string]time.Time // the oldest release held per limiter (Release)
	flushing bool
	posting  int
	// Stats counts what this client saw.
	Stats ClientStats
	// onHold: see NotifyHolds.
	onHold func(Hold)
}

// NotifyHolds has f told whenever the limiter queues one of this client's
// requests behind an open breaker (f runs in workflow code).
func (c *Client) NotifyHolds(f func(Hold)) { c.onHold = f }

// ClientStats counts a client's grants, for progress reports and tests.
type ClientStats struct {
	// Granted counts grants delivered to a waiter; Orphaned counts grants
	// that arrived for nobody (and were released at once).
	Granted    int `json:"granted"`
	Orphaned   int `json:"orphaned"`
	Duplicates int `json:"duplicates"`
	// SendErrors counts messages that could not be delivered.
	SendErrors int `json:"sendErrors"`
	// Waited sums the time waiters spent waiting for grants.
	Waited time.Duration `json:"waited"`
	// LastRun is the limiter run that sent the latest grant.
	LastRun int `json:"lastRun"`
	// GivenBack counts the units granted that no caller took, given back
	// unsent: spares asked ahead (AskAhead), and grants that came for
	// nobody (Orphaned).
	GivenBack int `json:"givenBack,omitempty"`
}

// Permit is a granted request: it may send Cost Graph requests now, and
// must be released (Release) with what upstream said.
type Permit struct {
	RequestID string    `json:"requestID"`
	LeaseID   string    `json:"leaseID"`
	User      string    `json:"user"`
	Cost      int       `json:"cost"`
	Granted   time.Time `json:"granted"`
	Expires   time.Time `json:"expires"`
	// Probe is set when the permit is a breaker's half-open probe: others
	// wait on its outcome, so its release is never held (Release).
	Probe bool `json:"probe,omitempty"`
	// Parts, when set, are the permits this one is made of: spares asked
	// ahead that a divisible ask took together (AskAhead). Cost is their
	// sum, Expires the earliest; Release gives each back (splitRelease).
	Parts []Permit `json:"parts,omitempty"`
	// Waited is how long the request waited for its grant.
	Waited time.Duration `json:"waited"`
}

// heldPermit is a permit granted and not yet released: its lease and
// the limiter that granted it.
type heldPermit struct {
	LeaseID string
	To      string
	User    string
}

// AskOptions describes the permit wanted.
type AskOptions struct {
	User string
	Lane limiter.Lane
	// Cost is the number of Graph requests (a $batch of k costs k); 0
	// means 1.
	Cost int
	// Attempt is 0 for a first try; retries count up and draw on the
	// limiter's retry budget.
	Attempt int
	// MinCost, between 1 and Cost, lets the limiter grant fewer units
	// than Cost when only that many fit (limiter.Request.MinCost); the
	// Permit's Cost says how many. 0 means all or nothing.
	MinCost int
	// Remaining, for background work, is how many Graph requests the
	// user's migration still needs, this one included (0: not known): the
	// limiter serves the users with the most left first, so that unequal
	// users finish as early as the budget allows (limiter.Request.Remaining).
	Remaining int
}

// RefusedError is returned by Acquire for a request the limiter can never
// grant (for example, a cost above a limit).
type RefusedError struct {
	RequestID string
	Reason    string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("limiter refused request %s: %s", e.RequestID, e.Reason)
}

// NewClient returns the workflow's limiter client and starts the goroutine
// that receives grants. Give it a context outside any worker session; its
// methods take any of the workflow's contexts.
func NewClient(ctx workflow.Context, opts ClientOptions) *Client {
	info := workflow.GetInfo(ctx)
	base, _ := workflow.NewDisconnectedContext(ctx)
	c := &Client{
		base:     base,
		opts:     opts,
		self:     Address{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID},
		waiting:  make(map[string]workflow.Settable),
		held:     make(map[string]heldPermit),
		heldAt:   make(map[string]time.Time),
		running:  make(map[string]bool),
		orphanTo: make(map[string]string),
		userOf:   make(map[string]string),
		aheadIDs: make(map[string]bool),
	}
	c.aheadMost = min(opts.AskAhead, specOr(opts.Spec).User.Concurrency/2)
	if opts.AssumeRunning {
		for k := range max(1, opts.Shards) {
			c.running[c.limiterOf(k)] = true
		}
	}
	if c.opts.TaskQueue == "" {
		c.opts.TaskQueue = info.TaskQueueName
	}
	grants := workflow.GetSignalChannel(ctx, SignalGrant)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			var gm GrantMessage
			if !grants.Receive(ctx, &gm) {
				return
			}
			c.route(ctx, gm)
		}
	})
	return c
}

// route hands each grant to its waiter; a grant nobody waits for any more
// (the waiter gave up) is released at once, unsent.
func (c *Client) route(ctx workflow.Context, gm GrantMessage) {
	var orphans []Return
	c.Stats.LastRun = max(c.Stats.LastRun, gm.Run)
	for _, g := range gm.Grants {
		if s, ok := c.waiting[g.RequestID]; ok {
			delete(c.waiting, g.RequestID)
			delete(c.userOf, g.RequestID)
			c.held[g.RequestID] = heldPermit{LeaseID: g.LeaseID, To: c.limiterFor(g.User), User: g.User}
			c.Stats.Granted++
			s.Set(g, nil)
			continue
		}
		if c.held[g.RequestID].LeaseID == g.LeaseID {
			// The limiter answered a resent ask with the grant we hold.
			c.Stats.Duplicates++
			continue
		}
		// Nobody took it, so nothing was sent under it: the limiter counts
		// it unsent, and so does the workflow's report (GivenBack).
		c.Stats.Orphaned++
		c.Stats.GivenBack += max(1, g.Cost)
		orphans = append(orphans, Return{LeaseID: g.LeaseID, RequestID: g.RequestID, Outcome: limiter.Outcome{Unsent: max(1, g.Cost)}})
		c.orphanTo[g.RequestID] = c.limiterFor(g.User)
	}
	for _, r := range gm.Refused {
		if s, ok := c.waiting[r.RequestID]; ok {
			delete(c.waiting, r.RequestID)
			delete(c.userOf, r.RequestID)
			s.Set(nil, &RefusedError{RequestID: r.RequestID, Reason: r.Reason})
		}
	}
	for _, h := range gm.Held {
		if _, ok := c.waiting[h.RequestID]; ok && c.onHold != nil {
			c.onHold(h)
		}
	}
	for _, r := range orphans {
		to := c.orphanTo[r.RequestID]
		delete(c.orphanTo, r.RequestID)
		c.post(ctx, to, Message{Release: []Return{r}})
	}
}

// Acquire asks for a permit and waits until the limiter grants it. Any
// releases made since the last message travel in the same signal. If ctx
// is cancelled first, the request is withdrawn.
func (c *Client) Acquire(ctx workflow.Context, ask AskOptions) (Permit, error) {
	if c.opts.AskAhead > 1 && ask.Lane == limiter.Background && ask.Attempt == 0 {
		if ask.MinCost == 0 || ask.MinCost >= max(1, ask.Cost) {
			return c.acquireAhead(ctx, ask)
		}
		if ask.MinCost == 1 {
			if p, ok := c.takeSpares(ctx, aheadKey{ask.User, ask.Lane, 1}, max(1, ask.Cost)); ok {
				return p, nil
			}
		}
	}
	ps, err := c.AcquireMany(ctx, []AskOptions{ask})
	if err != nil {
		return Permit{}, err
	}
	return ps[0], nil
}

// AcquireMany asks for several permits in one signal and waits until all
// are granted; they may be granted at different times. It is how a
// workflow that knows its next requests (a page's resources, a section's
// listing pages) saves round trips. On error, permits already granted are
// released. The asks must fit the concurrency caps together: permits
// granted early are held while the rest wait, so asking for more slots
// than a cap leaves stands still until leases expire.
func (c *Client) AcquireMany(ctx workflow.Context, asks []AskOptions) ([]Permit, error) {
	asked := workflow.Now(ctx)
	futures, ids := c.ask(ctx, asks)
	if c.opts.SignalPerAsk {
		c.flushAsks(ctx)
	} else {
		c.flushSoon(ctx)
	}
	permits := make([]Permit, 0, len(asks))
	for i, f := range futures {
		var g limiter.Grant
		if err := f.Get(ctx, &g); err != nil {
			c.abandon(ctx, ids[i:], permits)
			return nil, err
		}
		waited := workflow.Now(ctx).Sub(asked)
		c.Stats.Waited += waited
		permits = append(permits, Permit{RequestID: ids[i], LeaseID: g.LeaseID, User: g.User, Cost: g.Cost,
			Granted: g.Granted, Expires: g.Expires, Probe: g.Probe, Waited: waited})
	}
	return permits, nil
}

// ask queues asks for their limiters and returns a future for each grant
// and the request IDs.
func (c *Client) ask(ctx workflow.Context, asks []AskOptions) ([]workflow.Future, []string) {
	ids := make([]string, len(asks))
	futures := make([]workflow.Future, len(asks))
	for i, ask := range asks {
		c.seq++
		ids[i] = c.self.RunID + "/" + strconv.Itoa(c.seq)
		f, s := workflow.NewFuture(ctx)
		c.waiting[ids[i]] = s
		c.userOf[ids[i]] = ask.User
		futures[i] = f
		c.out.ask(c.limiterFor(ask.User), Ask{RequestID: ids[i], User: ask.User, Lane: ask.Lane,
			Cost: max(1, ask.Cost), Attempt: ask.Attempt, MinCost: ask.MinCost, Remaining: ask.Remaining})
	}
	return futures, ids
}

// abandon withdraws the requests still waiting and releases the permits
// already granted, after a failed or cancelled acquire.
func (c *Client) abandon(ctx workflow.Context, waiting []string, granted []Permit) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	var cancel []string
	for _, id := range waiting {
		if _, ok := c.waiting[id]; ok {
			delete(c.waiting, id)
			cancel = append(cancel, id)
		}
	}
	for _, id := range cancel {
		c.out.cancel(c.limiterFor(c.userOf[id]), id)
		delete(c.userOf, id)
	}
	if len(cancel) > 0 {
		c.flushAll(dctx)
	}
	for _, p := range granted {
		c.Release(dctx, p, limiter.Outcome{})
	}
}

// Release gives a permit back with what upstream said. It does not block:
// the release travels with the asks made in the same workflow task, or
// alone at the end of it; or, when it has nothing to teach the limiter
// and the client still has work there, with a later message to the same
// limiter (see holdable). Releasing twice is harmless. Call Flush before
// the workflow returns.
func (c *Client) Release(ctx workflow.Context, p Permit, o limiter.Outcome) {
	if len(p.Parts) > 0 {
		for _, r := range splitRelease(p.Parts, o) {
			c.Release(ctx, r.permit, r.outcome)
		}
		return
	}
	delete(c.held, p.RequestID)
	to := c.limiterFor(p.User)
	c.out.release(to, Return{LeaseID: p.LeaseID, RequestID: p.RequestID, User: p.User, Cost: p.Cost, Outcome: o})
	now := workflow.Now(ctx)
	if c.holdable(to, p, o, now) {
		if _, ok := c.heldAt[to]; !ok {
			c.heldAt[to] = now
		}
		return
	}
	c.flushSoon(ctx)
}

// HoldFor is how long a release may wait for a later message to its
// limiter (see Client.Release).
const HoldFor = time.Second

// holdable reports whether a release may wait for this client's next
// message to its limiter instead of taking a message of its own. It may
// when all of these hold:
//   - the outcome is a plain success (2xx, no throttle header, nothing
//     unsent) and the permit was no breaker probe: the limiter learns
//     nothing it needs now (a success is dated by its grant, not by its
//     arrival);
//   - this client still holds another permit of that limiter (a request
//     in flight, or a spare asked ahead): it will speak to the limiter
//     again, at the latest when its last permit there is released;
//   - the releases already waiting for that limiter are younger than
//     HoldFor: a slot the limiter needs to grant an ask (a concurrency cap
//     that binds) comes back within HoldFor of the next release or ask.
//
// The limiter meanwhile counts the slots busy, never more than it granted
// this client. Measured: bench/results/limiter-scale.md (2026-12-06, held
// releases).
func (c *Client) holdable(to string, p Permit, o limiter.Outcome, now time.Time) bool {
	if p.Probe || o.Unsent != 0 || o.ThrottlePercent != 0 || o.Code != "" || o.Scope != limiter.ScopeUnknown ||
		o.Status < 200 || o.Status >= 300 {
		return false
	}
	if c.staleHold(to, now) {
		return false
	}
	// A yes-or-no answer: the map's order does not reach it.
	//workflowcheck:ignore
	for _, h := range c.held {
		if h.To == to {
			return true
		}
	}
	return false
}

// staleHold reports whether releases for limiter to have waited HoldFor.
func (c *Client) staleHold(to string, now time.Time) bool {
	at, ok := c.heldAt[to]
	return ok && now.Sub(at) >= HoldFor
}

// flushSoon sends everything waiting as soon as the workflow blocks (the
// end of this workflow task), in one message per limiter.
func (c *Client) flushSoon(ctx workflow.Context) {
	if c.flushing {
		return
	}
	c.flushing = true
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	workflow.Go(dctx, func(ctx workflow.Context) {
		c.flushing = false
		c.flushAll(ctx)
	})
}

// flushAsks sends now the messages that carry asks (with the releases
// for the same limiters); the other releases keep waiting.
func (c *Client) flushAsks(ctx workflow.Context) {
	for _, to := range c.out.take(true) {
		delete(c.heldAt, to.limiter)
		c.post(ctx, to.limiter, to.msg)
	}
}

// flushAll sends every message waiting.
func (c *Client) flushAll(ctx workflow.Context) {
	for _, to := range c.out.take(false) {
		delete(c.heldAt, to.limiter)
		c.post(ctx, to.limiter, to.msg)
	}
}

// Flush waits until every message to the limiter has been delivered. A
// workflow calls it before it returns, so its last releases are not lost.
func (c *Client) Flush(ctx workflow.Context) error {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	c.giveBackSpares(dctx)
	c.flushAll(dctx)
	return workflow.Await(dctx, func() bool { return c.posting == 0 && c.out.empty() })
}

// limiterFor is the workflow ID of user's limiter.
func (c *Client) limiterFor(user string) string {
	return ShardWorkflowID(c.opts.Resource, c.opts.App, user, c.opts.Shards)
}

// limiterOf is the workflow ID of shard k.
func (c *Client) limiterOf(k int) string {
	if c.opts.Shards < 2 {
		return WorkflowID(c.opts.Resource, c.opts.App)
	}
	return ShardID(c.opts.Resource, c.opts.App, k, c.opts.Shards)
}

// post sends a message without blocking the caller. If it cannot be
// delivered, the requests it asked for fail with the error.
func (c *Client) post(ctx workflow.Context, to string, m Message) {
	c.posting++
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { c.posting-- }()
		err := c.send(ctx, to, m)
		if err == nil {
			return
		}
		c.Stats.SendErrors++
		for _, a := range m.Acquire {
			if s, ok := c.waiting[a.RequestID]; ok {
				delete(c.waiting, a.RequestID)
				s.Set(nil, err)
			}
		}
	})
}

// send delivers a message to the limiter: a plain signal when it runs,
// signal-with-start through the EnsureLimiter activity when it does not
// (first use) or when the signal is refused (the short window of a
// continue-as-new). The activity is scheduled from the client's base
// context on the workflow's own task queue: from a caller's session
// context it would go to the session's worker alone, and a killed worker
// would hold the message, with every ask in it, until the activity timed
// out.
func (c *Client) send(ctx workflow.Context, to string, m Message) error {
	m.From = c.self
	m.Sent = workflow.Now(ctx)
	if c.running[to] {
		err := workflow.SignalExternalWorkflow(ctx, to, "", SignalRequest, m).Get(ctx, nil)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
	}
	actx := workflow.WithActivityOptions(c.base, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond,
			BackoffCoefficient: 2, MaximumInterval: 5 * time.Second},
		Summary: "Signal the Graph limiter (start it if needed)",
	})
	in := Input{Resource: c.opts.Resource, App: c.opts.App, Spec: c.opts.Spec}
	if c.opts.Shards > 1 {
		k, n, err := parseShardID(c.opts.Resource, c.opts.App, to)
		if err != nil {
			return err
		}
		in.Shard = &ShardConfig{Index: k, Count: n, TaskQueue: c.opts.TaskQueue}
	}
	err := workflow.ExecuteActivity(actx, EnsureLimiterActivity, EnsureRequest{
		WorkflowID: to, TaskQueue: c.opts.TaskQueue, Message: m, Input: in,
	}).Get(ctx, nil)
	if err != nil {
		return fmt.Errorf("limiter %s: %w", to, err)
	}
	c.running[to] = true
	return nil
}

// Do runs fn under a permit and releases the permit with the outcome fn
// returns, whatever happens.
func (c *Client) Do(ctx workflow.Context, ask AskOptions, fn func(ctx workflow.Context, p Permit) (limiter.Outcome, error)) error {
	p, err := c.Acquire(ctx, ask)
	if err != nil {
		return err
	}
	o, err := fn(ctx, p)
	c.Release(ctx, p, o)
	return err
}

// outgoing holds what waits to be sent, one message per limiter, in the
// order the limiters were first written to.
type outgoing struct{ ordered[string, Message] }

func (o *outgoing) ask(to string, a Ask)        { m := o.get(to); m.Acquire = append(m.Acquire, a) }
func (o *outgoing) release(to string, r Return) { m := o.get(to); m.Release = append(m.Release, r) }
func (o *outgoing) cancel(to string, id string) { m := o.get(to); m.Cancel = append(m.Cancel, id) }
func (o *outgoing) empty() bool                 { return len(o.keys) == 0 }

type addressed struct {
	limiter string
	msg     Message
}

// take removes and returns the messages waiting: only those with asks
// (or cancellations) when asksOnly is set.
func (o *outgoing) take(asksOnly bool) []addressed {
	var out []addressed
	var keep []string
	for _, to := range o.keys {
		m := o.vals[to]
		if asksOnly && len(m.Acquire)+len(m.Cancel) == 0 {
			keep = append(keep, to)
			continue
		}
		out = append(out, addressed{to, *m})
		delete(o.vals, to)
	}
	o.keys = keep
	return out
}
