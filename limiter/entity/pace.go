package entity

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// The pace entity is the limiter entity's second kind of resource: one
// whose limit is a rate only (Notion's, per integration token), paced by
// send slots rather than permits. It runs limiter.Schedule, and answers
// a Workflow Update, so a worker deep inside an activity gets its next
// slots in one synchronous round trip (see PaceWorkflow).

// Names of the pace entity's protocol. Changing one breaks running
// workflows.
const (
	// PaceWorkflowName is the pace entity's registered type name.
	PaceWorkflowName = "PaceLimiter"
	// UpdateReserve takes a ReserveRequest and returns a ReserveResult.
	UpdateReserve = "reserve"
	// QueryPaceState returns a PaceState.
	QueryPaceState = "state"
)

// ResourceNotion is the resource name of Notion's per-token pace; its
// limiter's ID is WorkflowID(ResourceNotion, notion.Fingerprint(token)).
const ResourceNotion = "notion"

// defaultMaxUpdates continues a pace entity as new after this many
// updates: Temporal allows 2,000 per run, and each costs about five
// history events.
const defaultMaxUpdates = 500

// PaceInput starts (or continues) a pace entity.
type PaceInput struct {
	Resource string `json:"resource"`
	// Key names what is paced: for Notion the token's fingerprint,
	// never the token.
	Key string `json:"key"`
	// Spec is the spec of a new entity; nil means limiter.Notion(). It
	// is ignored when State is set.
	Spec *limiter.PaceSpec `json:"spec,omitempty"`
	// State is the schedule carried across continue-as-new.
	State []byte    `json:"state,omitempty"`
	Stats PaceStats `json:"stats"`
	// MaxUpdates continues as new after this many updates; 0 means 500.
	MaxUpdates int `json:"maxUpdates,omitempty"`
}

// ReserveRequest asks for send slots, reports a pause, or both.
type ReserveRequest struct {
	// Slots is how many slots are wanted (at most the spec's batch; 0
	// for a pause report alone).
	Slots int `json:"slots"`
	// PauseUntil, when set, is the end of a Retry-After the requester was
	// given: no slot is handed out before it, to anyone.
	PauseUntil time.Time `json:"pauseUntil,omitzero"`
	// Confirm, when set, is a tentative slot (beyond the spec's horizon
	// when handed out) the requester is about to use: the answer says
	// whether it still may, and if not carries one slot in its place.
	Confirm time.Time `json:"confirm,omitzero"`
	// Spec, when set, is the requester's configured spec; the entity
	// adopts it if it differs (a worker started with new limits applies
	// them).
	Spec *limiter.PaceSpec `json:"spec,omitempty"`
}

// ReserveResult is the answer to UpdateReserve.
type ReserveResult struct {
	// Slots are the send times handed out, ascending: one request may
	// leave at each.
	Slots []time.Time `json:"slots,omitempty"`
	// Firm is how many of Slots (the first ones) are firm; the others
	// must be confirmed (ReserveRequest.Confirm) shortly before use.
	Firm int `json:"firm,omitempty"`
	// Confirmed answers ReserveRequest.Confirm.
	Confirmed bool `json:"confirmed,omitempty"`
	// Pause is the pause recorded, if the request reported one.
	Pause *limiter.Pause `json:"pause,omitempty"`
	// Spec is the spec in force (limiter.PaceSpec.String).
	Spec string `json:"spec"`
}

// PaceStats are a pace entity's lifetime counters.
type PaceStats struct {
	Reservations int `json:"reservations"`
	Slots        int `json:"slots"`
	Pauses       int `json:"pauses"`
	Confirms     int `json:"confirms"`
	Revoked      int `json:"revoked"`
	SpecChanges  int `json:"specChanges"`
	Runs         int `json:"runs"`
}

// PaceState is the answer to QueryPaceState.
type PaceState struct {
	Schedule      limiter.ScheduleSnapshot `json:"schedule"`
	Stats         PaceStats                `json:"stats"`
	HistoryLength int                      `json:"historyLength"`
}

// ErrBadReserve is returned (as a rejected update, which writes no
// history) for a malformed ReserveRequest.
var ErrBadReserve = errors.New("pace entity: bad reserve request")

// PaceWorkflow is the pace entity: one per (resource, key), with a stable
// ID, started by the first UpdateReserve (update-with-start). Updates
// never block: a reservation is answered in the workflow task that
// receives it with slots that may lie in the future, so the ten-update
// in-flight cap never holds a requester back and a waiting queue is not
// needed (the requester sleeps until its slot). The entity continues as
// new every few hundred updates, carrying the schedule.
func PaceWorkflow(ctx workflow.Context, in PaceInput) error {
	p, err := restorePace(ctx, in)
	if err != nil {
		return err
	}
	if err := workflow.SetQueryHandler(ctx, QueryPaceState, func() (PaceState, error) {
		return PaceState{Schedule: p.sched.Snapshot(workflow.Now(ctx)), Stats: p.stats,
			HistoryLength: workflow.GetInfo(ctx).GetCurrentHistoryLength()}, nil
	}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, UpdateReserve,
		func(ctx workflow.Context, req ReserveRequest) (ReserveResult, error) { return p.reserve(ctx, req), nil },
		workflow.UpdateHandlerOptions{Validator: func(ctx workflow.Context, req ReserveRequest) error {
			if req.Slots < 0 {
				return fmt.Errorf("%w: %d slots", ErrBadReserve, req.Slots)
			}
			if req.Spec != nil {
				if err := req.Spec.Validate(); err != nil {
					return fmt.Errorf("%w: %w", ErrBadReserve, err)
				}
			}
			return nil
		}}); err != nil {
		return err
	}
	limit := in.MaxUpdates
	if limit <= 0 {
		limit = defaultMaxUpdates
	}
	if err := workflow.Await(ctx, func() bool {
		return p.updates >= limit || workflow.GetInfo(ctx).GetContinueAsNewSuggested()
	}); err != nil {
		return err
	}
	if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
		return err
	}
	state, err := p.sched.MarshalJSON()
	if err != nil {
		return fmt.Errorf("pace entity: save state: %w", err)
	}
	next := in
	next.Spec, next.State, next.Stats = nil, state, p.stats
	return workflow.NewContinueAsNewError(ctx, PaceWorkflowName, next)
}

type paceEntity struct {
	in      PaceInput
	sched   *limiter.Schedule
	stats   PaceStats
	updates int
}

func restorePace(ctx workflow.Context, in PaceInput) (*paceEntity, error) {
	p := &paceEntity{in: in, stats: in.Stats, sched: new(limiter.Schedule)}
	p.stats.Runs++
	if len(in.State) > 0 {
		if err := p.sched.UnmarshalJSON(in.State); err != nil {
			return nil, fmt.Errorf("pace entity: restore state: %w", err)
		}
		return p, nil
	}
	spec := limiter.Notion()
	if in.Spec != nil {
		spec = *in.Spec
	}
	s, err := limiter.NewSchedule(spec, workflow.Now(ctx))
	if err != nil {
		return nil, fmt.Errorf("pace entity: %w", err)
	}
	p.sched = s
	return p, nil
}

// reserve applies one request: the spec first, then the pause (so the
// slots it hands out in the same answer come after it), then the slots.
func (p *paceEntity) reserve(ctx workflow.Context, req ReserveRequest) ReserveResult {
	now := workflow.Now(ctx)
	p.updates++
	var res ReserveResult
	if req.Spec != nil && !samePaceSpec(*req.Spec, p.sched.Spec()) {
		if err := p.sched.SetSpec(*req.Spec); err == nil {
			p.stats.SpecChanges++
			workflow.GetLogger(ctx).Info("Pace spec changed", "spec", req.Spec.String())
		}
	}
	if !req.PauseUntil.IsZero() {
		pause := p.sched.Pause(req.PauseUntil, now)
		res.Pause = &pause
		p.stats.Pauses++
	}
	n := req.Slots
	if !req.Confirm.IsZero() {
		p.stats.Confirms++
		if res.Confirmed = p.sched.Confirm(req.Confirm, now); !res.Confirmed {
			p.stats.Revoked++
			n++
		}
	}
	if n > 0 {
		res.Slots, res.Firm = p.sched.Reserve(n, now)
		p.stats.Reservations++
		p.stats.Slots += len(res.Slots)
	}
	res.Spec = p.sched.Spec().String()
	snap := p.sched.Snapshot(now)
	workflow.SetCurrentDetails(ctx, fmt.Sprintf("**%s** pace for %s (run %d)\n\nSpec %s. Slots handed out: %d in %d reservations; %d ahead of now. Pauses (Retry-After): %d, paused until %s.",
		p.in.Resource, p.in.Key, p.stats.Runs, res.Spec, p.stats.Slots, p.stats.Reservations, snap.Ahead, p.stats.Pauses, snap.PausedUntil.Format(time.RFC3339Nano)))
	return res
}

func samePaceSpec(a, b limiter.PaceSpec) bool {
	return a.String() == b.String() && a.Skew == b.Skew && a.Lead == b.Lead && a.MaxBatch == b.MaxBatch
}
