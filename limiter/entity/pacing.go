package entity

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/notion"
)

// PacingOptions configures a Pacing.
type PacingOptions struct {
	// Resource names the paced resource (ResourceNotion if empty).
	Resource string
	// TaskQueue is where a pace entity started by this process runs.
	// Required.
	TaskQueue string
	// Spec is this worker's configured spec: it starts a new entity, and a
	// running one adopts it on this process's first reservation when it
	// differs (limiter.Notion() if zero).
	Spec limiter.PaceSpec
	// MaxUpdates, when set, makes an entity this process starts continue
	// as new after that many updates (PaceInput.MaxUpdates); tests use it.
	MaxUpdates int
	// Timeout bounds one round trip to the entity (20 s if 0: long enough
	// to ride out a worker that died holding the entity's workflow task,
	// which another worker takes over after the sticky queue's 5 s and
	// at most the task's 10 s timeout; short of the 30 s heartbeat
	// timeout of the activities that write to Notion).
	Timeout time.Duration
	// Patience bounds how long a round trip the entity did not answer
	// within Timeout is asked again, backing off from 1 s to 10 s (2 min
	// if 0). Asking again sends nothing upstream, so it costs no request
	// of the bounds the workflows state: only time, inside an activity
	// that heartbeats on a ticker. It rides out what leaves the entity
	// silent for longer than one Timeout: a worker killed holding its
	// task while the Temporal server restarts, a loaded host replaying
	// its history. A reservation granted to a round trip given up on is
	// left unused, which slows the token's pace, never speeds it.
	Patience time.Duration
	// Logger receives warnings (slog.Default() if nil).
	Logger *slog.Logger
	// Now and Sleep are the clock (the system clock if nil); tests use
	// them to see when slots are used.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// OnSend, when set, is called as each request leaves, with its slot
	// and the time it left; tests use it to check that slots are kept.
	OnSend func(slot, sent time.Time)
}

// Pacing is a notion.Pacing whose paces hold across every process that
// uses the same token: each token's slots come from its pace entity
// (PaceWorkflow, ID WorkflowID(resource, fingerprint)), and a Retry-After
// one process is given pauses the entity for all of them.
//
// Why slots and not a permit per request: Notion requests are made deep
// inside activities (one page write is a create, appends of 100 blocks,
// uploads and their retries), so the workflow cannot ask for a permit per
// request. The notion.Client asks its Pace before every attempt instead,
// and this Pace asks the entity with a Workflow Update: a synchronous
// answer from inside an activity, where signals cannot be received. The
// entity answers at once with send times, possibly in the future, rather
// than blocking until a slot is free, so an Update never waits in the
// entity (Temporal allows ten in flight). One round trip reserves a slot
// for every request of the process waiting at that moment (up to the
// spec's batch), so round trips fall as demand rises.
//
// A pause (Retry-After) reaches every other process before its next
// request that is not already firm: a slot further ahead than the spec's
// Horizon (250 ms for Notion) when handed out is tentative and confirmed
// with one more round trip shortly before its time, and a pause revokes
// it. Only firm slots, at most a batch per process and never more than
// the horizon ahead, may still be used during a pause; the entity records
// the latest (limiter.Pause.Pending).
//
// Slots are times on the entity's clock (the Temporal server's), used on
// the worker's. A request leaves no earlier than its slot and at most half
// the spec's Skew after it: a slot that reaches the worker later (a slow
// round trip) or whose waiter wakes later (a loaded host) is dropped, stays
// spent, and the request asks again. The other half of the Skew is for the
// network and for clock differences between hosts (keep them in step with
// NTP): a request that reaches upstream within Skew of its slot never
// shares a window with more than the window's limit.
//
// A Pacing is safe for concurrent use. If the entity cannot be reached,
// Wait fails: no request leaves without its slot.
type Pacing struct {
	c    client.Client
	opts PacingOptions

	mu    sync.Mutex
	paces map[string]*sharedPace
}

// NewPacing returns a Pacing that reserves slots through c.
func NewPacing(c client.Client, opts PacingOptions) (*Pacing, error) {
	if c == nil {
		return nil, errors.New("pacing: a Temporal client is required")
	}
	if opts.TaskQueue == "" {
		return nil, errors.New("pacing: PacingOptions.TaskQueue is required")
	}
	if opts.Resource == "" {
		opts.Resource = ResourceNotion
	}
	if len(opts.Spec.Windows) == 0 {
		opts.Spec = limiter.Notion()
	}
	if err := opts.Spec.Validate(); err != nil {
		return nil, fmt.Errorf("pacing: %w", err)
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Second
	}
	if opts.Patience <= 0 {
		opts.Patience = 2 * time.Minute
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sleep == nil {
		opts.Sleep = notion.SystemClock{}.Sleep
	}
	return &Pacing{c: c, opts: opts, paces: make(map[string]*sharedPace)}, nil
}

// Pace returns the shared pace of the token with fingerprint fp.
func (p *Pacing) Pace(fp string) notion.Pace { return p.pace(fp) }

func (p *Pacing) pace(fp string) *sharedPace {
	p.mu.Lock()
	defer p.mu.Unlock()
	sp := p.paces[fp]
	if sp == nil {
		sp = &sharedPace{p: p, key: fp, id: WorkflowID(p.opts.Resource, fp), changed: make(chan struct{})}
		p.paces[fp] = sp
	}
	return sp
}

// sharedPace is one token's pace in this process: the slots it holds, and
// the waiters that want them.
type sharedPace struct {
	p   *Pacing
	key string
	id  string

	mu          sync.Mutex
	slots       []heldSlot // ascending
	waiting     int        // waiters with no slot yet
	fetching    bool       // a round trip is under way
	changed     chan struct{}
	pausedUntil time.Time
	pauses      int
	// started is set once the entity is known to run; spec once the
	// configured spec was sent.
	started, specSent bool
	warned            bool
}

// heldSlot is a slot this process holds; a tentative one must be
// confirmed first.
type heldSlot struct {
	at        time.Time
	tentative bool
}

// expired reports whether a request leaving at now would be too late for
// the slot: more than half the spec's Skew after it (see Pacing).
func (s *sharedPace) expired(slot time.Time, now time.Time) bool {
	return now.Sub(slot) > s.p.opts.Spec.Skew.D()/2
}

// Wait blocks until this process may send one request of the token.
func (s *sharedPace) Wait(ctx context.Context) error {
	for {
		s.mu.Lock()
		now := s.p.opts.Now()
		if now.Before(s.pausedUntil) {
			until := s.pausedUntil
			s.mu.Unlock()
			if err := s.p.opts.Sleep(ctx, until.Sub(now)); err != nil {
				return err
			}
			continue
		}
		// A slot already too late (it arrived late, or its waiter gave
		// up) is dropped: sent now, it could share an upstream window
		// with slots handed out after it.
		for len(s.slots) > 0 && s.expired(s.slots[0].at, now) {
			s.slots = s.slots[1:]
		}
		if len(s.slots) > 0 {
			slot := s.slots[0]
			s.slots = s.slots[1:]
			pauses := s.pauses
			s.mu.Unlock()
			at, err := s.use(ctx, slot)
			if err != nil {
				return err
			}
			if at.IsZero() {
				continue // revoked
			}
			sent := s.p.opts.Now()
			if s.expired(at, sent) {
				continue // woken too late: the slot is spent
			}
			s.mu.Lock()
			repaused := s.pauses != pauses && at.Before(s.pausedUntil)
			s.mu.Unlock()
			if repaused {
				continue
			}
			if s.p.opts.OnSend != nil {
				s.p.opts.OnSend(at, sent)
			}
			return nil
		}
		if s.fetching {
			s.waiting++
			ch := s.changed
			s.mu.Unlock()
			select {
			case <-ch:
			case <-ctx.Done():
			}
			s.mu.Lock()
			s.waiting--
			s.mu.Unlock()
			if err := ctx.Err(); err != nil {
				return err
			}
			continue
		}
		s.fetching = true
		n := min(s.waiting+1, s.p.opts.Spec.Batch())
		s.mu.Unlock()
		res, err := s.call(ctx, ReserveRequest{Slots: n})
		s.mu.Lock()
		s.fetching = false
		if err == nil {
			s.hold(res)
		}
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
		if err != nil {
			return err
		}
	}
}

// hold keeps the slots of an answer.
func (s *sharedPace) hold(res ReserveResult) {
	for i, at := range res.Slots {
		s.slots = append(s.slots, heldSlot{at: at, tentative: i >= res.Firm})
	}
}

// use waits for a slot's time and returns it, confirming it first if it
// is tentative. It returns the zero time when the entity revoked the slot
// (a pause covers it); the replacement is then held for the next turn.
// Wait checks for a local pause that began meanwhile.
func (s *sharedPace) use(ctx context.Context, slot heldSlot) (time.Time, error) {
	if slot.tentative {
		// Ask shortly before the slot, when a pause reported since it
		// was handed out would be known.
		if err := s.p.opts.Sleep(ctx, slot.at.Add(-s.p.opts.Spec.Lead.D()-s.p.opts.Spec.Horizon.D()/2).Sub(s.p.opts.Now())); err != nil {
			return time.Time{}, err
		}
		res, err := s.call(ctx, ReserveRequest{Confirm: slot.at})
		if err != nil {
			return time.Time{}, err
		}
		if !res.Confirmed {
			s.mu.Lock()
			s.hold(res)
			slices.SortFunc(s.slots, func(a, b heldSlot) int { return a.at.Compare(b.at) })
			s.mu.Unlock()
			return time.Time{}, nil
		}
	}
	if err := s.p.opts.Sleep(ctx, slot.at.Sub(s.p.opts.Now())); err != nil {
		return time.Time{}, err
	}
	return slot.at, nil
}

// Pause holds this process's requests of the token until until, drops the
// slots it holds (the entity hands out new ones after the pause) and
// reports the pause to the entity, so every other process waits too.
func (s *sharedPace) Pause(until time.Time) {
	s.mu.Lock()
	if until.After(s.pausedUntil) {
		s.pausedUntil = until
	}
	s.pauses++
	s.slots = nil
	s.mu.Unlock()
	// The report is worth making until the pause ends (and a moment
	// more for a short one); this request waits that long anyway.
	wait := min(max(until.Sub(s.p.opts.Now()), 2*time.Second), s.p.opts.Timeout)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := s.call(ctx, ReserveRequest{PauseUntil: until}); err != nil {
		s.p.opts.Logger.Warn("could not report a Retry-After to the pace entity; other workers may keep sending",
			"limiter", s.id, "until", until, "error", err)
	}
}

// call asks the entity (ask), again while it does not answer within
// Timeout and Patience has not run out, backing off between round trips.
func (s *sharedPace) call(ctx context.Context, req ReserveRequest) (ReserveResult, error) {
	giveUp := s.p.opts.Now().Add(s.p.opts.Patience)
	for backoff := time.Second; ; backoff = min(2*backoff, 10*time.Second) {
		res, err := s.ask(ctx, req)
		if err == nil || ctx.Err() != nil || !unanswered(err) || !s.p.opts.Now().Add(backoff).Before(giveUp) {
			return res, err
		}
		s.p.opts.Logger.Warn("the pace entity did not answer in time; asking again", "limiter", s.id, "in", backoff, "error", err)
		if err := s.p.opts.Sleep(ctx, backoff); err != nil {
			return ReserveResult{}, err
		}
	}
}

// unanswered reports whether err says a round trip to the entity got no
// answer in time (or reached no server), as opposed to an answer.
func unanswered(err error) bool {
	var timeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
	var deadline *serviceerror.DeadlineExceeded
	var unavailable *serviceerror.Unavailable
	return errors.As(err, &timeout) || errors.As(err, &deadline) || errors.As(err, &unavailable) || errors.Is(err, context.DeadlineExceeded)
}

// ask sends one UpdateReserve: update-with-start the first time (and
// whenever the entity is not found), a plain update after.
func (s *sharedPace) ask(ctx context.Context, req ReserveRequest) (ReserveResult, error) {
	ctx, cancel := context.WithTimeout(ctx, s.p.opts.Timeout)
	defer cancel()
	s.mu.Lock()
	started, specSent := s.started, s.specSent
	s.mu.Unlock()
	if !specSent {
		spec := s.p.opts.Spec
		req.Spec = &spec
	}
	var res ReserveResult
	var err error
	if started {
		var h client.WorkflowUpdateHandle
		h, err = s.p.c.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: s.id, UpdateName: UpdateReserve,
			Args: []any{req}, WaitForStage: client.WorkflowUpdateStageCompleted})
		if err == nil {
			err = h.Get(ctx, &res)
		}
		var nf *serviceerror.NotFound
		if errors.As(err, &nf) {
			started = false
		}
	}
	if !started {
		res, err = s.start(ctx, req)
	}
	if err != nil {
		return ReserveResult{}, fmt.Errorf("pacing: limiter %s: %w", s.id, err)
	}
	s.mu.Lock()
	s.started, s.specSent = true, true
	warn := !s.warned && res.Spec != s.p.opts.Spec.String()
	s.warned = s.warned || warn
	s.mu.Unlock()
	if warn {
		s.p.opts.Logger.Warn("the pace entity runs another spec than this worker's (another worker set it later)",
			"limiter", s.id, "entity", res.Spec, "worker", s.p.opts.Spec.String())
	}
	return res, nil
}

func (s *sharedPace) start(ctx context.Context, req ReserveRequest) (ReserveResult, error) {
	spec := s.p.opts.Spec
	op := s.p.c.NewWithStartWorkflowOperation(client.StartWorkflowOptions{
		ID:                       s.id,
		TaskQueue:                s.p.opts.TaskQueue,
		WorkflowIDConflictPolicy: enumspb.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
		WorkflowIDReusePolicy:    enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:            fmt.Sprintf("Pace of %s for %s: hands out the send slots of every worker", s.p.opts.Resource, s.key),
	}, PaceWorkflowName, PaceInput{Resource: s.p.opts.Resource, Key: s.key, Spec: &spec, MaxUpdates: s.p.opts.MaxUpdates})
	h, err := s.p.c.UpdateWithStartWorkflow(ctx, client.UpdateWithStartWorkflowOptions{
		StartWorkflowOperation: op,
		UpdateOptions: client.UpdateWorkflowOptions{UpdateName: UpdateReserve, Args: []any{req},
			WaitForStage: client.WorkflowUpdateStageCompleted},
	})
	var res ReserveResult
	if err == nil {
		err = h.Get(ctx, &res)
	}
	return res, err
}
