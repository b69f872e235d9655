package entity

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
)

// defaultMaxHistory bounds a run's history even before Temporal suggests
// continue-as-new (it suggests it at 4,096 events by default).
const defaultMaxHistory = 8000

// Workflow is the limiter entity. It never completes on its own: it
// continues as new, carrying its state, whenever its history grows long.
func Workflow(ctx workflow.Context, in Input) error {
	e, err := restore(ctx, in)
	if err != nil {
		return err
	}
	if err := e.registerQueries(ctx); err != nil {
		return err
	}
	requests := workflow.GetSignalChannel(ctx, SignalRequest)
	specs := workflow.GetSignalChannel(ctx, SignalSetSpec)
	if e.lease != nil {
		e.leases = workflow.GetSignalChannel(ctx, SignalLease)
	}
	for {
		e.drain(ctx, requests, specs)
		if e.shouldContinue(ctx) {
			// Before this pass's decision: the task that continues as
			// new sends nothing by local activity (see send).
			return e.continueAsNew(ctx, requests, specs)
		}
		e.decide(ctx)
		e.wait(ctx, requests, specs)
	}
}

// entity is one run's state.
type entity struct {
	in         Input
	model      *limiter.Limiter
	requesters map[string]Address
	stats      Stats

	// sends counts grant signals not yet acknowledged by the server, and
	// failed collects the grants whose requester could not be reached.
	sends  int
	failed workflow.Channel

	// wake is the pending wake-up timer for the model's next decision (a
	// window frees, a breaker or lease ends), and leaseWake a shard's
	// wake-up for its lease (an answer awaited, a retry, a refresh). Two
	// timers, so that neither is canceled because the other needs an
	// earlier wake-up: with one, every release that let a queued head
	// wait for a window canceled the lease's timer, and every pass after
	// the model's timer fired started it again (see wait).
	wake, leaseWake wakeTimer

	// out collects a decision pass's answers (grants, refusals, holds),
	// so that each pass sends them at once (send).
	out outbox

	// lease is set for a shard of a sharded limiter (Input.Shard): the
	// app budget it may use, from the coordinator; leases is its channel.
	lease  *leasing
	leases workflow.ReceiveChannel

	// passes counts decision passes in this run.
	passes int
	// closing is set while the run winds down to continue as new: no new
	// grants (the next run makes them), so the wind-down ends even when
	// asks and releases never stop arriving.
	closing bool
}

func restore(ctx workflow.Context, in Input) (*entity, error) {
	now := workflow.Now(ctx)
	e := &entity{in: in, requesters: in.Requesters, stats: in.Stats}
	if e.requesters == nil {
		e.requesters = make(map[string]Address)
	}
	if e.stats.Granted == nil {
		e.stats.Granted = make(map[string]int)
	}
	if e.stats.Units == nil {
		e.stats.Units = make(map[string]int)
	}
	e.stats.Runs++
	if len(in.State) > 0 {
		e.model = new(limiter.Limiter)
		if err := e.model.UnmarshalJSON(in.State); err != nil {
			return nil, fmt.Errorf("limiter entity: restore state: %w", err)
		}
	} else {
		spec := specOr(in.Spec)
		m, err := limiter.New(padded(spec, in.Skew), now)
		if err != nil {
			return nil, fmt.Errorf("limiter entity: %w", err)
		}
		e.model = m
	}
	if in.Shard != nil {
		e.lease = &leasing{cfg: *in.Shard, holder: in.Lease, parked: in.Parked}
	}
	e.failed = workflow.NewBufferedChannel(ctx, 1<<16)
	return e, nil
}

func (e *entity) registerQueries(ctx workflow.Context) error {
	err := workflow.SetQueryHandler(ctx, QueryState, func() (State, error) {
		return Bounded(State{
			Model:         e.model.State(workflow.Now(ctx)),
			Stats:         e.stats,
			Waiting:       len(e.requesters),
			HistoryLength: workflow.GetInfo(ctx).GetCurrentHistoryLength(),
		}), nil
	})
	if err != nil {
		return err
	}
	err = workflow.SetQueryHandler(ctx, QueryUsers, func(offset, limit int) (UsersPage, error) {
		return Page(e.model.State(workflow.Now(ctx)), offset, limit), nil
	})
	if err != nil {
		return err
	}
	return workflow.SetQueryHandler(ctx, QueryRetryAfter, func(user string, lane limiter.Lane, cost int) (time.Duration, error) {
		return e.model.RetryAfter(user, lane, cost, workflow.Now(ctx)), nil
	})
}

// drain handles every signal already delivered, so one workflow task
// serves a whole burst of requesters.
func (e *entity) drain(ctx workflow.Context, requests, specs workflow.ReceiveChannel) {
	now := workflow.Now(ctx)
	for {
		var spec limiter.Spec
		if !specs.ReceiveAsync(&spec) {
			break
		}
		if err := e.model.SetSpec(padded(spec, e.in.Skew), now); err != nil {
			workflow.GetLogger(ctx).Error("Rejected spec", "error", err)
			continue
		}
		if e.lease != nil {
			// The user scope is the spec's, the app scope the lease's.
			e.in.Spec = &spec
			e.lease.applied = shard.Share{}
			e.applyShare(ctx, now)
		}
	}
	for e.leases != nil {
		var l shard.Lease
		if !e.leases.ReceiveAsync(&l) {
			break
		}
		e.applyLease(ctx, l, now)
	}
	for {
		var gm GrantMessage
		if !e.failed.ReceiveAsync(&gm) {
			break
		}
		for _, g := range gm.Grants {
			// The requester is gone: its slots come back now. Nothing
			// was sent under the grant (counted unsent), though its
			// units stay in the windows (Settle), as cautious as a
			// release that says nothing.
			if e.model.Release(g.LeaseID, limiter.Outcome{}, now) {
				e.model.Settle(g, now)
				e.countUnsent(g, limiter.Outcome{Unsent: g.Cost})
				e.stats.Orphaned++
			}
			delete(e.requesters, g.RequestID)
		}
	}
	for {
		var m Message
		if !requests.ReceiveAsync(&m) {
			break
		}
		e.handle(m, now, &e.out)
	}
}

// handle applies one message: releases first (they make room), then
// cancellations, then new requests.
func (e *entity) handle(m Message, now time.Time, out *outbox) {
	for _, r := range m.Release {
		g, leased := e.model.Lease(r.RequestID)
		if r.RequestID != "" && (!leased || g.LeaseID != r.LeaseID) {
			e.releaseUnheld(r, leased, now)
			continue
		}
		if e.model.Release(r.LeaseID, r.Outcome, now) {
			if leased {
				// Count the request from when the worker sent it, or if
				// that is unknown from its release, never before it
				// reached upstream, and only the units it sent (see
				// limiter.Limiter.Settle).
				e.model.SettleSent(g, r.Outcome, now)
				e.countUnsent(g, r.Outcome)
			}
			e.stats.Released++
		} else {
			e.stats.Duplicates++
		}
		if r.RequestID != "" {
			delete(e.requesters, r.RequestID)
		}
	}
	for _, id := range m.Cancel {
		e.model.Cancel(id)
		if e.lease != nil {
			e.lease.unpark(id)
		}
		if _, leased := e.model.Lease(id); !leased {
			delete(e.requesters, id)
		}
	}
	for _, a := range m.Acquire {
		if g, ok := e.model.Lease(a.RequestID); ok {
			// A resent ask for a live lease: answer with the same grant.
			e.stats.Duplicates++
			out.grant(m.From, g)
			continue
		}
		if e.lease != nil {
			if why := e.lease.misrouted(a.User); why != "" {
				e.stats.Refused++
				out.refuse(m.From, Refusal{RequestID: a.RequestID, Reason: why})
				continue
			}
		}
		req := limiter.Request{ID: a.RequestID, User: a.User, Lane: a.Lane,
			Cost: a.Cost, Slots: a.Slots, Attempt: a.Attempt, MinCost: a.MinCost, Remaining: a.Remaining}
		err := e.model.Enqueue(req, now)
		if err != nil && e.lease != nil && e.lease.park(req, e.in.Spec) {
			// Above this shard's lease, not above the app's limits: it
			// waits for a larger lease.
			e.requesters[a.RequestID] = m.From
			continue
		}
		if err != nil {
			e.stats.Refused++
			out.refuse(m.From, Refusal{RequestID: a.RequestID, Reason: err.Error()})
			continue
		}
		e.requesters[a.RequestID] = m.From
		if scope, b, held := e.model.Holding(a.User, now); held {
			out.hold(m.From, Hold{RequestID: a.RequestID, Scope: scope, Breaker: b})
		}
	}
}

// decide expires dead leases and sends every grant the model makes now,
// with the answers drain collected.
func (e *entity) decide(ctx workflow.Context) {
	now := workflow.Now(ctx)
	for _, g := range e.model.Expire(now) {
		// It may have been sent at any time until now.
		e.model.Settle(g, now)
		e.stats.Expired++
		delete(e.requesters, g.RequestID)
	}
	out := &e.out
	if !e.closing && (e.lease == nil || e.lease.holder.Allows(now)) {
		e.grant(now, out)
	}
	for _, to := range out.keys {
		out.at(to).Run = e.stats.Runs
	}
	e.send(ctx, out)
	e.out = outbox{}
	if e.lease != nil && !e.closing {
		e.report(ctx, now)
	}
	e.details(ctx)
}

// grant makes the model's grants of now, counts them and puts each in out
// for its requester; it returns those.
func (e *entity) grant(now time.Time, out *outbox) []limiter.Grant {
	var told []limiter.Grant
	for _, g := range e.model.Grant(now) {
		to, ok := e.requesters[g.RequestID]
		if !ok {
			// Nobody to tell (should not happen): give it back at once.
			e.model.Release(g.LeaseID, limiter.Outcome{}, now)
			e.model.Settle(g, now)
			e.stats.Orphaned++
			continue
		}
		e.stats.Granted[g.User]++
		e.stats.Units[g.User] += g.Cost
		out.grant(to, g)
		told = append(told, g)
	}
	return told
}

// releaseUnheld handles the release of a lease the model does not hold
// for its request: a lease of a grant this history lost, released by a
// requester that sent under it (a decision pass delivered its grants by
// local activity and its task was then lost, so the pass ran again
// without them, under other lease IDs; see limiter.Limiter.Charge), or a
// release already handled. leased says the model holds another lease of
// the request (the pass that ran again granted it anew); that lease
// stays for its own release, and so does its requester.
func (e *entity) releaseUnheld(r Return, leased bool, now time.Time) {
	g, ok := e.model.Charge(limiter.Request{ID: r.RequestID, User: r.User, Cost: r.Cost}, r.LeaseID, r.Outcome, now)
	if !ok {
		// Nothing was sent under it, or it was released before.
		e.stats.Duplicates++
		return
	}
	e.stats.Charged++
	e.stats.Granted[g.User]++
	e.stats.Units[g.User] += g.Cost
	e.stats.Released++
	e.countUnsent(g, r.Outcome)
	if !leased {
		delete(e.requesters, r.RequestID)
	}
}

// countUnsent counts the units of grant g its release says were never
// sent (Stats.Unsent).
func (e *entity) countUnsent(g limiter.Grant, o limiter.Outcome) {
	if n := min(max(0, o.Unsent), g.Cost); n > 0 {
		if e.stats.Unsent == nil {
			e.stats.Unsent = make(map[string]int)
		}
		e.stats.Unsent[g.User] += n
	}
}

// outbox groups grants and refusals by requester, in first-seen order, so
// each requester gets one signal per decision.
type outbox struct{ ordered[Address, GrantMessage] }

func (o *outbox) grant(a Address, g limiter.Grant) { m := o.get(a); m.Grants = append(m.Grants, g) }
func (o *outbox) refuse(a Address, r Refusal)      { m := o.get(a); m.Refused = append(m.Refused, r) }
func (o *outbox) hold(a Address, h Hold)           { m := o.get(a); m.Held = append(m.Held, h) }

// wait blocks until a signal arrives, a grant send fails, or the model's
// next wake-up time or a shard's lease wake-up comes. It keeps at most one
// timer of each kind rather than starting a new one per pass, which keeps
// history short.
func (e *entity) wait(ctx workflow.Context, requests, specs workflow.ReceiveChannel) {
	now := workflow.Now(ctx)
	wake := e.model.NextWakeup(now)
	if !wake.IsZero() && !wake.After(now) {
		// Something may leave already: decide again without sleeping.
		// This happens when a decision was cut short (it never loops
		// forever: Grant grants everything that may leave).
		wake = now.Add(time.Millisecond)
	}
	var leaseAt time.Time
	if e.lease != nil {
		if !e.lease.holder.Allows(now) {
			wake = time.Time{} // nothing leaves before a lease comes
		}
		if e.leaseWake.pending() {
			e.eased(now)
		}
		leaseAt = e.leaseWakeAt(now)
		if !leaseAt.IsZero() && !leaseAt.After(now) {
			leaseAt = now.Add(time.Millisecond)
		}
		if e.leaseWake.pending() && (leaseAt.IsZero() || leaseAt.After(e.leaseWake.at)) {
			// The lease's wake-up moved later (the answer to a report
			// came, a new lease, or the work fits the lease now): the
			// timer would only wake the shard to find nothing to do. A
			// timer canceled costs one event, one that fires four: it
			// and the workflow task it wakes.
			e.leaseWake.stop()
		}
	}
	// Each timer starts only when no timer pending fires by its time: the
	// pass that timer wakes looks again. So a model's wake-up that comes
	// earlier than the lease's pending one starts a timer of its own and
	// leaves the lease's running (and the other way round).
	if needs(wake, e.wake, e.leaseWake) {
		e.wake.start(ctx, wake.Sub(now), wake, "Next decision (a window frees, a breaker or lease ends)")
	}
	if needs(leaseAt, e.wake, e.leaseWake) {
		e.leaseWake.start(ctx, leaseAt.Sub(now), leaseAt, "Next lease report (a refresh, a retry, an answer awaited)")
	}
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(requests, func(workflow.ReceiveChannel, bool) {})
	sel.AddReceive(specs, func(workflow.ReceiveChannel, bool) {})
	sel.AddReceive(e.failed, func(workflow.ReceiveChannel, bool) {})
	if e.leases != nil {
		sel.AddReceive(e.leases, func(workflow.ReceiveChannel, bool) {})
	}
	for _, t := range []*wakeTimer{&e.wake, &e.leaseWake} {
		if t.pending() {
			sel.AddFuture(t.f, func(workflow.Future) { t.fired = true })
		}
	}
	sel.Select(ctx)
	e.wake.collect()
	e.leaseWake.collect()
}

// wakeTimer is one pending wake-up timer: f fires at at; cancel stops it.
type wakeTimer struct {
	f      workflow.Future
	at     time.Time
	cancel workflow.CancelFunc
	fired  bool
}

func (t *wakeTimer) pending() bool { return t.f != nil }

// start replaces the timer (if any) with one that fires after d, at at.
func (t *wakeTimer) start(ctx workflow.Context, d time.Duration, at time.Time, summary string) {
	t.stop()
	tctx, cancel := workflow.WithCancel(ctx)
	t.f = workflow.NewTimerWithOptions(tctx, d, workflow.TimerOptions{Summary: summary})
	t.at, t.cancel, t.fired = at, cancel, false
}

// stop cancels the pending timer, if any.
func (t *wakeTimer) stop() {
	if t.cancel != nil {
		t.cancel()
	}
	*t = wakeTimer{}
}

// collect forgets a timer that fired.
func (t *wakeTimer) collect() {
	if t.fired {
		*t = wakeTimer{}
	}
}

// needs reports whether a wake-up at at (zero: none) needs a timer started:
// none of the pending timers fires by then. A later pending timer of the
// same kind is replaced by start.
func needs(at time.Time, pending ...wakeTimer) bool {
	if at.IsZero() {
		return false
	}
	for _, t := range pending {
		if t.pending() && !at.Before(t.at) {
			return false
		}
	}
	return true
}

func (e *entity) shouldContinue(ctx workflow.Context) bool {
	info := workflow.GetInfo(ctx)
	limit := e.in.MaxHistory
	if limit <= 0 {
		limit = defaultMaxHistory
	}
	e.passes++
	if e.in.ContinueAfter > 0 && e.passes >= e.in.ContinueAfter {
		return true
	}
	return info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= limit
}

// continueAsNew waits for every grant signal to be acknowledged, handles
// whatever arrived meanwhile, and carries the whole state to a new run.
// Signals that arrive while the run is closing make the server refuse the
// completion and replay, so none is lost; senders retry the few it
// rejects outright.
func (e *entity) continueAsNew(ctx workflow.Context, requests, specs workflow.ReceiveChannel) error {
	// Grant nothing while winding down: a steady stream of asks would keep
	// granting, and the wind-down would never end.
	e.closing = true
	for {
		if err := workflow.Await(ctx, func() bool { return e.sends == 0 }); err != nil {
			return err
		}
		e.drain(ctx, requests, specs)
		e.decide(ctx)
		if e.lease != nil {
			if err := workflow.Await(ctx, func() bool { return !e.lease.reporting }); err != nil {
				return err
			}
		}
		if e.sends == 0 && requests.Len() == 0 && specs.Len() == 0 && e.failed.Len() == 0 && (e.leases == nil || e.leases.Len() == 0) {
			break
		}
	}
	e.wake.stop()
	e.leaseWake.stop()
	state, err := e.model.MarshalJSON()
	if err != nil {
		return fmt.Errorf("limiter entity: save state: %w", err)
	}
	next := e.in
	next.Spec, next.State, next.Requesters, next.Stats = nil, state, e.requesters, e.stats
	if e.lease != nil {
		// A shard reports the spec to the coordinator it may start.
		next.Spec, next.Lease, next.Parked = e.in.Spec, e.lease.holder, e.lease.parked
	}
	return workflow.NewContinueAsNewError(ctx, WorkflowName, next)
}

// details shows the limiter's state in the Web UI.
func (e *entity) details(ctx workflow.Context) {
	workflow.SetCurrentDetails(ctx, Details(e.in, e.stats, e.model.State(workflow.Now(ctx))))
}

// MaxDetailUsers bounds the users the details list, whatever their
// number: the busiest, then "and N more".
const MaxDetailUsers = 20

// Details is the text the limiter shows in the Web UI: its totals, then
// the MaxDetailUsers busiest users that have anything in flight, queued
// or held by a breaker (most queued and in flight first).
func Details(in Input, stats Stats, s limiter.Snapshot) string {
	busy := make([]limiter.UserUsage, 0, len(s.Users))
	for _, u := range s.Users {
		if u.InFlight > 0 || u.Queued[0]+u.Queued[1] > 0 || u.Breaker.State != limiter.Closed.String() {
			busy = append(busy, u)
		}
	}
	sortBusiest(busy)
	total := 0
	// A sum does not depend on the map's order.
	//workflowcheck:ignore
	for _, n := range stats.Units {
		total += n
	}
	name := "limiter"
	if in.Shard != nil {
		name = fmt.Sprintf("limiter shard %d of %d", in.Shard.Index, in.Shard.Count)
	}
	d := fmt.Sprintf("**%s** %s for app %s (run %d)\n\nGraph requests permitted: %d. In flight: %d. Queued: %d foreground, %d background. App breaker: %s.",
		in.Resource, name, in.App, stats.Runs, total, s.App.InFlight, s.Queued[0], s.Queued[1], breakerText(s.App.Breaker))
	for i, u := range busy {
		if i == MaxDetailUsers {
			d += fmt.Sprintf("\n- and %d more users", len(busy)-i)
			break
		}
		d += fmt.Sprintf("\n- %s: %d in flight, %d+%d queued, breaker %s", u.User, u.InFlight, u.Queued[0], u.Queued[1], breakerText(u.Breaker))
	}
	return d
}

// sortBusiest orders users by queued plus in flight, most first, ties by
// name.
func sortBusiest(us []limiter.UserUsage) {
	load := func(u limiter.UserUsage) int { return u.InFlight + u.Queued[0] + u.Queued[1] }
	slices.SortStableFunc(us, func(a, b limiter.UserUsage) int {
		if d := load(b) - load(a); d != 0 {
			return d
		}
		return strings.Compare(a.User, b.User)
	})
}

// MaxStateUsers and MaxStateLeases bound the state query's answer: the
// busiest users and the first leases; QueryUsers pages through the rest.
const (
	MaxStateUsers  = 100
	MaxStateLeases = 100
)

// Bounded cuts a state to MaxStateUsers users (the busiest) and
// MaxStateLeases leases, recording the totals.
func Bounded(st State) State {
	st.Users, st.Leases = len(st.Model.Users), len(st.Model.Leases)
	if len(st.Model.Users) > MaxStateUsers {
		us := slices.Clone(st.Model.Users)
		sortBusiest(us)
		us = us[:MaxStateUsers]
		slices.SortFunc(us, func(a, b limiter.UserUsage) int { return strings.Compare(a.User, b.User) })
		st.Model.Users = us
	}
	if len(st.Model.Leases) > MaxStateLeases {
		st.Model.Leases = st.Model.Leases[:MaxStateLeases]
	}
	return st
}

// UsersPage is the answer to QueryUsers.
type UsersPage struct {
	Users []limiter.UserUsage `json:"users"`
	Total int                 `json:"total"`
}

// Page returns users [offset, offset+limit) of s (sorted by user); limit
// is at most MaxStateUsers.
func Page(s limiter.Snapshot, offset, limit int) UsersPage {
	limit = min(max(limit, 1), MaxStateUsers)
	offset = min(max(offset, 0), len(s.Users))
	return UsersPage{Users: s.Users[offset:min(len(s.Users), offset+limit)], Total: len(s.Users)}
}

// breakerText is "open until 01:02:03 UTC (throttled (429/20166))", or
// the state of a breaker that is not open.
func breakerText(b limiter.BreakerInfo) string {
	if b.State != limiter.Open.String() {
		return b.State
	}
	return fmt.Sprintf("open until %s UTC (%s)", b.Until.UTC().Format(time.TimeOnly), b.Reason)
}

// DefaultSkew is the window padding used when Input.Skew is zero: 2% of
// the shortest window, at least 20 ms (1.2 s on the one-minute OneNote
// window).
func DefaultSkew(s limiter.Spec) time.Duration {
	shortest := time.Duration(0)
	for _, ws := range [][]limiter.Window{s.User.Windows, s.App.Windows} {
		for _, w := range ws {
			if shortest == 0 || w.Per.D() < shortest {
				shortest = w.Per.D()
			}
		}
	}
	return max(20*time.Millisecond, shortest/50)
}

// padded returns s with every window lengthened by skew (or DefaultSkew).
func padded(s limiter.Spec, skew time.Duration) limiter.Spec {
	if skew <= 0 {
		skew = DefaultSkew(s)
	}
	out := s
	for _, ws := range []*[]limiter.Window{&out.User.Windows, &out.App.Windows} {
		win := make([]limiter.Window, len(*ws))
		for i, w := range *ws {
			w.Per += limiter.Duration(skew)
			win[i] = w
		}
		*ws = win
	}
	return out
}
