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
}

// Client asks a limiter for permits from inside a workflow. Create one per
// workflow run with NewClient; it may serve many concurrent Acquires
// (several workflow goroutines), and routes each grant to its waiter.
type Client struct {
	opts    ClientOptions
	id      string // limiter workflow ID
	self    Address
	seq     int
	waiting map[string]workflow.Settable
	// held maps the request IDs of permits granted and not yet released
	// to their lease IDs, so a resent grant is recognised.
	held map[string]string
	// ensure is set once the limiter is known to run.
	ensure bool
	// releases wait to ride along with the next message; flushing is set
	// while a goroutine is due to send them alone; posting counts
	// messages not yet delivered.
	releases []Return
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
	// Waited is how long the request waited for its grant.
	Waited time.Duration `json:"waited"`
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
// that receives grants.
func NewClient(ctx workflow.Context, opts ClientOptions) *Client {
	info := workflow.GetInfo(ctx)
	c := &Client{
		opts:    opts,
		id:      WorkflowID(opts.Resource, opts.App),
		self:    Address{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID},
		waiting: make(map[string]workflow.Settable),
		held:    make(map[string]string),
	}
	c.ensure = opts.AssumeRunning
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
// (the waiter gave up) is released at once.
func (c *Client) route(ctx workflow.Context, gm GrantMessage) {
	var orphans []Return
	c.Stats.LastRun = max(c.Stats.LastRun, gm.Run)
	for _, g := range gm.Grants {
		if s, ok := c.waiting[g.RequestID]; ok {
			delete(c.waiting, g.RequestID)
			c.held[g.RequestID] = g.LeaseID
			c.Stats.Granted++
			s.Set(g, nil)
			continue
		}
		if c.held[g.RequestID] == g.LeaseID {
			// The limiter answered a resent ask with the grant we hold.
			c.Stats.Duplicates++
			continue
		}
		c.Stats.Orphaned++
		orphans = append(orphans, Return{LeaseID: g.LeaseID, RequestID: g.RequestID})
	}
	for _, r := range gm.Refused {
		if s, ok := c.waiting[r.RequestID]; ok {
			delete(c.waiting, r.RequestID)
			s.Set(nil, &RefusedError{RequestID: r.RequestID, Reason: r.Reason})
		}
	}
	for _, h := range gm.Held {
		if _, ok := c.waiting[h.RequestID]; ok && c.onHold != nil {
			c.onHold(h)
		}
	}
	if len(orphans) > 0 {
		c.post(ctx, Message{Release: orphans})
	}
}

// Acquire asks for a permit and waits until the limiter grants it. Any
// releases made since the last message travel in the same signal. If ctx
// is cancelled first, the request is withdrawn.
func (c *Client) Acquire(ctx workflow.Context, ask AskOptions) (Permit, error) {
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
	msg := Message{Release: c.releases}
	c.releases = nil
	ids := make([]string, len(asks))
	futures := make([]workflow.Future, len(asks))
	for i, ask := range asks {
		c.seq++
		ids[i] = c.self.RunID + "/" + strconv.Itoa(c.seq)
		f, s := workflow.NewFuture(ctx)
		c.waiting[ids[i]] = s
		futures[i] = f
		msg.Acquire = append(msg.Acquire, Ask{RequestID: ids[i], User: ask.User, Lane: ask.Lane,
			Cost: max(1, ask.Cost), Attempt: ask.Attempt, MinCost: ask.MinCost, Remaining: ask.Remaining})
	}
	c.post(ctx, msg)
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
			Granted: g.Granted, Expires: g.Expires, Waited: waited})
	}
	return permits, nil
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
	if len(cancel) > 0 {
		c.post(dctx, Message{Cancel: cancel})
	}
	for _, p := range granted {
		c.Release(dctx, p, limiter.Outcome{})
	}
}

// Release gives a permit back with what upstream said. It does not block:
// the release rides along with the next Acquire made before the workflow
// next blocks, or goes alone as soon as it blocks. Releasing twice is
// harmless. Call Flush before the workflow returns.
func (c *Client) Release(ctx workflow.Context, p Permit, o limiter.Outcome) {
	delete(c.held, p.RequestID)
	c.releases = append(c.releases, Return{LeaseID: p.LeaseID, RequestID: p.RequestID, Outcome: o})
	if c.flushing {
		return
	}
	c.flushing = true
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	workflow.Go(dctx, func(ctx workflow.Context) {
		c.flushing = false
		if len(c.releases) > 0 {
			m := Message{Release: c.releases}
			c.releases = nil
			c.post(ctx, m)
		}
	})
}

// Flush waits until every message to the limiter has been delivered. A
// workflow calls it before it returns, so its last releases are not lost.
func (c *Client) Flush(ctx workflow.Context) error {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	if len(c.releases) > 0 {
		m := Message{Release: c.releases}
		c.releases = nil
		c.post(dctx, m)
	}
	return workflow.Await(dctx, func() bool { return c.posting == 0 })
}

// post sends a message without blocking the caller. If it cannot be
// delivered, the requests it asked for fail with the error.
func (c *Client) post(ctx workflow.Context, m Message) {
	c.posting++
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { c.posting-- }()
		err := c.send(ctx, m)
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
// continue-as-new).
func (c *Client) send(ctx workflow.Context, m Message) error {
	m.From = c.self
	m.Sent = workflow.Now(ctx)
	if c.ensure {
		err := workflow.SignalExternalWorkflow(ctx, c.id, "", SignalRequest, m).Get(ctx, nil)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
	}
	actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout:    30 * time.Second,
		ScheduleToCloseTimeout: 10 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond,
			BackoffCoefficient: 2, MaximumInterval: 5 * time.Second},
		Summary: "Signal the Graph limiter (start it if needed)",
	})
	err := workflow.ExecuteActivity(actx, EnsureLimiterActivity, EnsureRequest{
		WorkflowID: c.id, TaskQueue: c.opts.TaskQueue, Message: m,
		Input: Input{Resource: c.opts.Resource, App: c.opts.App, Spec: c.opts.Spec},
	}).Get(actx, nil)
	if err != nil {
		return fmt.Errorf("limiter %s: %w", c.id, err)
	}
	c.ensure = true
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
