package entity

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
)

// Names of the sharded design (see package shard): each shard is a
// limiter entity (Workflow, with Input.Shard set) for the users that hash
// to it, and one coordinator per (resource, app) leases the app budget to
// the shards.
const (
	// CoordinatorWorkflowName is the coordinator's registered type name.
	CoordinatorWorkflowName = "GraphLimiterCoordinator"
	// SignalReport carries a ReportMessage from a shard to the coordinator.
	SignalReport = "limiter-report"
	// SignalLease carries a shard.Lease from the coordinator to a shard.
	SignalLease = "limiter-lease"
	// QueryShards returns the coordinator's []shard.ShardStatus.
	QueryShards = "shards"
	// EnsureCoordinatorActivity is the registered name of
	// Activities.EnsureCoordinator.
	EnsureCoordinatorActivity = "EnsureLimiterCoordinator"
)

// ShardWorkflowID is the limiter shard of user among shards for resource
// and app: WorkflowID(resource, app) itself for one shard (the single
// entity), else ShardID of the user's shard.
func ShardWorkflowID(resource, app, user string, shards int) string {
	if shards < 2 {
		return WorkflowID(resource, app)
	}
	return ShardID(resource, app, shard.Of(user, shards), shards)
}

// ShardID is shard k of n for resource and app:
// "limiter/<resource>/<app>/shard-<k>-of-<n>". The count is in the ID, so
// the shards of two counts (workers started with another -limiter-users,
// or runs that began before a change) are different workflows, and no
// shard is asked by clients that disagree on which users it holds.
func ShardID(resource, app string, k, n int) string {
	return fmt.Sprintf("%s/shard-%d-of-%d", WorkflowID(resource, app), k, n)
}

// parseShardID returns k and n of ShardID(resource, app, k, n).
func parseShardID(resource, app, id string) (k, n int, err error) {
	rest, ok := strings.CutPrefix(id, WorkflowID(resource, app)+"/")
	if ok {
		_, err = fmt.Sscanf(rest, "shard-%d-of-%d", &k, &n)
	}
	if !ok || err != nil || k < 0 || k >= n || ShardID(resource, app, k, n) != id {
		return 0, 0, fmt.Errorf("limiter %s: not a shard of %s", id, WorkflowID(resource, app))
	}
	return k, n, nil
}

// CoordinatorWorkflowID is the coordinator of resource and app's shards.
func CoordinatorWorkflowID(resource, app string) string {
	return WorkflowID(resource, app) + "/coordinator"
}

// ShardConfig makes a limiter entity one shard of several.
type ShardConfig struct {
	Index int `json:"index"`
	Count int `json:"count"`
	// TaskQueue is where the coordinator runs if this shard starts it.
	TaskQueue string `json:"taskQueue,omitempty"`
}

// ReportMessage is what a shard signals to the coordinator.
type ReportMessage struct {
	From   string       `json:"from"` // the shard's workflow ID
	Report shard.Report `json:"report"`
}

// CoordinatorInput starts (or continues) a coordinator.
type CoordinatorInput struct {
	Resource string `json:"resource"`
	App      string `json:"app"`
	// Shards is the shard count of the layout that starts the
	// coordinator; shards of other counts join when they first report.
	Shards int `json:"shards"`
	// Members are the shards' workflow IDs by the coordinator's index,
	// across continue-as-new; empty at first start (then the Shards
	// shards of ShardID).
	Members []string `json:"members,omitempty"`
	// Spec is the spec whose app scope is leased out (padded like the
	// shards' specs); nil means limiter.OneNote().
	Spec *limiter.Spec `json:"spec,omitempty"`
	// TTL is a lease's lifetime; 0 means shard.DefaultTTL.
	TTL time.Duration `json:"ttl,omitempty"`
	// State is the coordinator's state across continue-as-new.
	State json.RawMessage `json:"state,omitempty"`
	// MaxHistory continues as new at this many events; 0 means 8,000.
	MaxHistory int `json:"maxHistory,omitempty"`
}

// CoordinatorWorkflow hosts a shard.Coordinator: it answers every report
// with a lease, and continues as new, carrying its (small) state, when its
// history grows long.
func CoordinatorWorkflow(ctx workflow.Context, in CoordinatorInput) error {
	now := workflow.Now(ctx)
	c := new(shard.Coordinator)
	if len(in.State) > 0 {
		if err := c.UnmarshalJSON(in.State); err != nil {
			return fmt.Errorf("limiter coordinator: %w", err)
		}
	} else {
		spec := specOr(in.Spec)
		var err error
		if c, err = shard.NewCoordinator(shard.BudgetOf(padded(spec, 0)), in.Shards, in.TTL, now); err != nil {
			return fmt.Errorf("limiter coordinator: %w", err)
		}
	}
	members := in.Members
	if len(members) == 0 {
		for k := range c.Shards() {
			members = append(members, ShardID(in.Resource, in.App, k, c.Shards()))
		}
	}
	if len(members) != c.Shards() {
		return fmt.Errorf("limiter coordinator: %d members for %d shards", len(members), c.Shards())
	}
	index := make(map[string]int, len(members)) // looked up only: no map order
	for i, id := range members {
		index[id] = i
	}
	if err := workflow.SetQueryHandler(ctx, QueryShards, func() ([]shard.ShardStatus, error) {
		st := c.Status(workflow.Now(ctx))
		for i := range st {
			st[i].Workflow = members[i]
		}
		return st, nil
	}); err != nil {
		return err
	}
	reports := workflow.GetSignalChannel(ctx, SignalReport)
	specs := workflow.GetSignalChannel(ctx, SignalSetSpec)
	limit := in.MaxHistory
	if limit <= 0 {
		limit = defaultMaxHistory
	}
	sends := 0
	send := func(al addressedLease) {
		sends++
		f := workflow.SignalExternalWorkflow(ctx, al.to, "", SignalLease, al.lease)
		workflow.Go(ctx, func(ctx workflow.Context) {
			// A lost lease costs the shard a retry (shard.AnswerWait),
			// a lost pushed or spread one the time until its next
			// refresh.
			_ = f.Get(ctx, nil)
			sends--
		})
	}
	// spread is the timer for the coordinator's next look at what freed
	// (shard.Coordinator.NextSpread), at spreadAt; nil for none.
	var spread workflow.Future
	var spreadAt time.Time
	cancelSpread := func() {}
	for {
		sel := workflow.NewSelector(ctx)
		sel.AddReceive(reports, func(workflow.ReceiveChannel, bool) {})
		sel.AddReceive(specs, func(workflow.ReceiveChannel, bool) {})
		if spread != nil {
			sel.AddFuture(spread, func(workflow.Future) { spread = nil })
		}
		sel.Select(ctx)
		now := workflow.Now(ctx)
		for {
			var spec limiter.Spec
			if !specs.ReceiveAsync(&spec) {
				break
			}
			if err := c.SetBudget(shard.BudgetOf(padded(spec, 0))); err != nil {
				workflow.GetLogger(ctx).Error("Rejected spec", "error", err)
			}
		}
		for {
			var m ReportMessage
			if !reports.ReceiveAsync(&m) {
				break
			}
			i, ok := index[m.From]
			if !ok {
				// A shard of another count: it shares the budget with
				// the others.
				if _, _, err := parseShardID(in.Resource, in.App, m.From); err != nil {
					workflow.GetLogger(ctx).Error("Rejected report", "from", m.From, "error", err)
					continue
				}
				j, err := c.Join()
				if err != nil {
					workflow.GetLogger(ctx).Error("Rejected report", "from", m.From, "error", err)
					continue
				}
				i, index[m.From] = j, j
				members = append(members, m.From)
				workflow.GetLogger(ctx).Info("Shard joined", "shard", m.From, "index", j)
			}
			m.Report.Shard = i
			l, err := c.Refresh(m.Report, now)
			if err != nil {
				workflow.GetLogger(ctx).Error("Rejected report", "from", m.From, "error", err)
				continue
			}
			leases := []addressedLease{{m.From, l}}
			// A short lease: take back from the other shards what they
			// hold above their fair shares.
			for _, p := range c.Reclaim(l, now) {
				leases = append(leases, addressedLease{members[p.Shard], p})
			}
			for _, al := range leases {
				send(al)
			}
		}
		// What freed since (units leaving the windows, leases lapsing)
		// goes to the shards that wait for it, unasked.
		for _, l := range c.Spread(now) {
			send(addressedLease{members[l.Shard], l})
		}
		// A timer due later than the next look is replaced; one due
		// earlier is kept, and the look it wakes finds the next time:
		// each report moves the next look, and replacing the timer at
		// every report cost two events each (a dev-server hour: 658
		// canceled of 664 started, 3 fired).
		if next := c.NextSpread(now); !next.IsZero() && (spread == nil || next.Before(spreadAt)) {
			cancelSpread()
			tctx, cancel := workflow.WithCancel(ctx)
			spread = workflow.NewTimerWithOptions(tctx, next.Sub(now), workflow.TimerOptions{Summary: "Offer the shards what the budget frees"})
			spreadAt, cancelSpread = next, cancel
		}
		info := workflow.GetInfo(ctx)
		if info.GetContinueAsNewSuggested() || info.GetCurrentHistoryLength() >= limit {
			if err := workflow.Await(ctx, func() bool { return sends == 0 }); err != nil {
				return err
			}
			if reports.Len() > 0 || specs.Len() > 0 {
				continue
			}
			st, err := c.MarshalJSON()
			if err != nil {
				return fmt.Errorf("limiter coordinator: save state: %w", err)
			}
			next := in
			next.Spec, next.State, next.Members = nil, st, members
			return workflow.NewContinueAsNewError(ctx, CoordinatorWorkflowName, next)
		}
	}
}

// addressedLease is a lease and the shard workflow it goes to.
type addressedLease struct {
	to    string
	lease shard.Lease
}

// EnsureCoordinatorRequest asks EnsureCoordinator to deliver Report to the
// coordinator, starting it with Input on TaskQueue if it is not running.
type EnsureCoordinatorRequest struct {
	WorkflowID string           `json:"workflowID"`
	TaskQueue  string           `json:"taskQueue"`
	Input      CoordinatorInput `json:"input"`
	Report     ReportMessage    `json:"report"`
}

// EnsureCoordinator signals the coordinator with signal-with-start, so the
// first shard to report starts it.
func (a *Activities) EnsureCoordinator(ctx context.Context, req EnsureCoordinatorRequest) error {
	_, err := a.Client.SignalWithStartWorkflow(ctx, req.WorkflowID, SignalReport, req.Report,
		client.StartWorkflowOptions{
			ID:                    req.WorkflowID,
			TaskQueue:             req.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			StaticSummary: fmt.Sprintf("Leases the Graph app budget of %s, app %s, to its %d limiter shards",
				req.Input.Resource, req.Input.App, req.Input.Shards),
		}, CoordinatorWorkflowName, req.Input)
	if err != nil {
		activity.GetLogger(ctx).Warn("Signal-with-start of the limiter coordinator failed", "coordinator", req.WorkflowID, "error", err)
		return fmt.Errorf("signal-with-start %s: %w", req.WorkflowID, err)
	}
	return nil
}

// leasing is a shard entity's side of the lease protocol.
type leasing struct {
	cfg    ShardConfig
	holder shard.Holder
	// applied is the share the model's app scope was last set to.
	applied shard.Share
	// reporting is set while a report is on its way.
	reporting bool
	// load is what the shard held or wanted at its last look.
	load shard.Load
	// parked are requests that fit the app's limits but not this shard's
	// lease (the model refuses a cost above a window): they are queued
	// when a lease large enough comes.
	parked []limiter.Request
}

// park keeps req aside if it fits base (the app's spec; nil: OneNote)
// though not the lease, and reports whether it did.
func (ls *leasing) park(req limiter.Request, base *limiter.Spec) bool {
	spec := specOr(base)
	cost, slots := max(1, req.Cost), max(1, req.Slots)
	if slots > spec.App.Concurrency || slots > spec.User.Concurrency || req.Cost < 0 || req.Slots < 0 || req.ID == "" || req.User == "" {
		return false
	}
	for _, ws := range [][]limiter.Window{spec.User.Windows, spec.App.Windows} {
		for _, w := range ws {
			if cost > w.Limit {
				return false
			}
		}
	}
	for _, p := range ls.parked {
		if p.ID == req.ID {
			return true
		}
	}
	ls.parked = append(ls.parked, req)
	return true
}

// misrouted says why user's asks do not belong to this shard, or "" when
// they do. Clients of one count all route a user to the same shard (the
// count is in the shard's ID); a client that hashes users otherwise would
// have two shards serve one user, each within the user's limits, so that
// together they could send twice the user's budget.
func (ls *leasing) misrouted(user string) string {
	if k := shard.Of(user, ls.cfg.Count); k != ls.cfg.Index {
		return fmt.Sprintf("user %s belongs to shard %d of %d, not to this one (shard %d): the worker that asked routes users otherwise "+
			"(a worker of another Note Bridge version?); run one version on every worker, then retry the section", user, k, ls.cfg.Count, ls.cfg.Index)
	}
	return ""
}

func (ls *leasing) unpark(id string) {
	ls.parked = slices.DeleteFunc(ls.parked, func(r limiter.Request) bool { return r.ID == id })
}

// parkedUnits is the units the parked requests want.
func (ls *leasing) parkedUnits() int {
	n := 0
	for _, r := range ls.parked {
		n += max(1, r.Cost)
	}
	return n
}

// applyLease adopts a lease; the model's app scope becomes its share.
func (e *entity) applyLease(ctx workflow.Context, l shard.Lease, now time.Time) {
	if e.lease.holder.Apply(l, now) {
		e.applyShare(ctx, now)
	}
}

// applyShare sets the model's app scope to the held lease's share (a
// share that lets nothing through is enforced by not granting at all).
func (e *entity) applyShare(ctx workflow.Context, now time.Time) {
	ls := e.lease
	l := ls.holder.Lease
	if l.Share.Zero() || l.Share.String() == ls.applied.String() {
		return
	}
	spec := e.model.Spec()
	for w := range spec.App.Windows {
		if w < len(l.Share.Units) {
			spec.App.Windows[w].Limit = l.Share.Units[w]
		}
	}
	spec.App.Concurrency = l.Share.Concurrency
	if err := e.model.SetSpec(spec, now); err != nil {
		workflow.GetLogger(ctx).Error("Rejected lease", "lease", l.Share.String(), "error", err)
		return
	}
	ls.applied = l.Share
	// Requests parked for a larger lease may fit this one.
	kept := ls.parked[:0]
	for _, r := range ls.parked {
		if e.model.Enqueue(r, now) != nil {
			kept = append(kept, r)
		}
	}
	ls.parked = kept
}

// report sends the coordinator what this shard holds and wants, when the
// holder says it is due.
func (e *entity) report(ctx workflow.Context, now time.Time) {
	ls := e.lease
	if next := ls.holder.NextReport(now, shard.Starved); ls.reporting || next.After(now) {
		return
	}
	used, queued := e.usage(now)
	ls.load = loadOf(ls.holder.Lease.Share, used, queued, len(ls.parked), ls.holder.Allows(now))
	next := ls.holder.NextReport(now, ls.load)
	if next.IsZero() || next.After(now) {
		return
	}
	ls.holder.Asking(now)
	ls.reporting = true
	// When its units leave the app windows: the coordinator then counts
	// them no longer than they stay, and knows when to offer more.
	frees := shard.FreesOf(e.model.Spec().App.Windows, e.model.AppCounted(now), now)
	msg := ReportMessage{From: workflow.GetInfo(ctx).WorkflowExecution.ID,
		Report: shard.Report{Shard: ls.cfg.Index, Lease: ls.holder.Lease, Used: used, Queued: queued + ls.parkedUnits(), At: now, Frees: frees}}
	id := CoordinatorWorkflowID(e.in.Resource, e.in.App)
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { ls.reporting = false }()
		// The coordinator runs but for the first report of an install:
		// a signal costs less than the activity that starts it (about 2
		// history events against 6), so a shard's first report tries it
		// too.
		if workflow.SignalExternalWorkflow(ctx, id, "", SignalReport, msg).Get(ctx, nil) == nil {
			return
		}
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			StartToCloseTimeout: 30 * time.Second, ScheduleToCloseTimeout: 2 * time.Minute,
			RetryPolicy: &temporal.RetryPolicy{InitialInterval: 200 * time.Millisecond, BackoffCoefficient: 2, MaximumInterval: 5 * time.Second},
			Summary:     "Report to the limiter coordinator (start it if needed)",
		})
		spec := e.model.Spec()
		err := workflow.ExecuteActivity(actx, EnsureCoordinatorActivity, EnsureCoordinatorRequest{
			WorkflowID: id, TaskQueue: ls.cfg.TaskQueue, Report: msg,
			Input: CoordinatorInput{Resource: e.in.Resource, App: e.in.App, Shards: ls.cfg.Count, Spec: e.in.Spec},
		}).Get(actx, nil)
		if err != nil {
			workflow.GetLogger(ctx).Warn("Could not report to the limiter coordinator", "error", err, "spec", spec.Name)
			return
		}
	})
}

// usage is what the shard uses of its lease's app scope at now, and the
// units queued.
func (e *entity) usage(now time.Time) (used shard.Share, queued int) {
	snap := e.model.State(now)
	used = shard.Share{Concurrency: snap.App.InFlight}
	for _, w := range snap.App.Windows {
		used.Units = append(used.Units, w.Used)
	}
	return used, snap.Queued[0] + snap.Queued[1]
}

// eased looks again at a shard that was starved when it last reported:
// if its work fits the lease now, its load becomes what it is, so the
// wake-up for an early report (shard.RetryAsk) is dropped. A load that
// grows is seen when the report is due (report), as before.
func (e *entity) eased(now time.Time) {
	ls := e.lease
	if ls.load != shard.Starved {
		return
	}
	used, queued := e.usage(now)
	if l := loadOf(ls.holder.Lease.Share, used, queued, len(ls.parked), ls.holder.Allows(now)); l != shard.Starved {
		ls.load = l
	}
}

// leaseWakeAt is when the shard must wake for its lease: the next report
// or the lease's expiry, whichever is first (zero: never).
func (e *entity) leaseWakeAt(now time.Time) time.Time {
	ls := e.lease
	t := ls.holder.NextReport(now, ls.load)
	if ls.holder.Allows(now) && (t.IsZero() || ls.holder.Lease.Expires.Before(t)) {
		t = ls.holder.Lease.Expires
	}
	return t
}

// loadOf is a shard's load on its lease: Starved when work waits (queued
// or parked) that the lease does not let through (no valid lease, or a
// window or the concurrency of its share used up), Busy when anything is
// queued or in flight, or inside a window while the lease lets the shard
// grant (it keeps the lease for work to come), else Idle. Units inside a
// window under a lease that lets nothing through need no report: the
// coordinator knows when they leave (Report.Frees), and such a shard
// refreshed every 40 s for nothing until its last units left the hour.
func loadOf(share, used shard.Share, queued, parked int, valid bool) shard.Load {
	if parked > 0 {
		return shard.Starved
	}
	busy := used.Concurrency > 0 || queued > 0
	full := !valid || used.Concurrency >= share.Concurrency
	for w, u := range used.Units {
		busy = busy || u > 0 && valid
		full = full || w >= len(share.Units) || u >= share.Units[w]
	}
	switch {
	case queued > 0 && full:
		return shard.Starved
	case busy:
		return shard.Busy
	}
	return shard.Idle
}
