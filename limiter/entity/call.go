package entity

import (
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// Observed is implemented by the results of Graph activities: what
// upstream said about the one call (or one $batch) the activity made.
type Observed interface {
	LimiterOutcome() limiter.Outcome
}

// OutcomeError makes the error a Graph activity returns carry what
// upstream said, so Call can release the permit with it. Fatal errors are
// not retried. errType names the error for Temporal (e.g. "GraphThrottled").
func OutcomeError(err error, errType string, o limiter.Outcome, fatal bool) error {
	return temporal.NewApplicationErrorWithOptions(err.Error(), errType, temporal.ApplicationErrorOptions{
		NonRetryable: fatal, Cause: err, Details: []any{o},
	})
}

// outcomeOf finds the outcome an activity error carries; the zero Outcome
// means no upstream call was made (a local failure).
func outcomeOf(err error) limiter.Outcome {
	var app *temporal.ApplicationError
	var o limiter.Outcome
	if errors.As(err, &app) && app.HasDetails() {
		if app.Details(&o) == nil {
			return o
		}
	}
	return limiter.Outcome{}
}

// Call describes one Graph activity to run under permits.
type Call struct {
	Ask      AskOptions
	Activity any
	Args     []any
	// ArgsFor, when set, gives the activity's arguments for the permit
	// granted, in place of Args: a divisible ask (AskOptions.MinCost) may
	// be granted fewer requests than it asked for.
	ArgsFor func(p Permit) []any
	// Options are the activity options. The retry policy is replaced by
	// a single attempt: every upstream attempt needs its own permit, so
	// Call retries, not Temporal. StartToCloseTimeout defaults to one
	// minute; Client.Call shortens it to end LeaseMargin before the
	// permit's lease (see WithinLease).
	//
	// Graph calls are never local activities: a worker that dies while a
	// local activity runs leaves no trace of it in history, so the next
	// worker replays the workflow and runs it again under the same permit,
	// an upstream request without a permit of its own.
	Options workflow.ActivityOptions
	// MaxAttempts bounds the attempts (each with a new permit); 0 means
	// 20. Throttles do not need a backoff here: the limiter's breakers
	// hold the next permit back.
	MaxAttempts int
	// Backoff is the pause before retrying a failure that was not a
	// throttle (a 5xx, a timeout, a local failure); it doubles up to a
	// minute. 0 means one second.
	Backoff time.Duration
	// OnAttempt, when set, is told of every attempt once its permit is
	// released, so a caller can report upstream health (the last error
	// and when) while Call still retries. It runs in workflow code.
	OnAttempt func(Attempt)
}

// Attempt is one upstream attempt of a Call: its error (nil for a
// success), what upstream said, and when it ended (workflow time).
type Attempt struct {
	N       int
	Err     error
	Outcome limiter.Outcome
	At      time.Time
}

// WithDefaults returns call as Client.Call runs it: a one-minute
// start-to-close timeout unless a timeout is set, a single Temporal attempt
// (every upstream attempt needs its own permit, so the caller retries),
// 20 attempts and a one-second backoff unless set. Another caller of Graph
// activities (a baseline policy in place of the limiter) uses it to run a
// Call the same way.
func (call Call) WithDefaults() Call {
	if call.Options.StartToCloseTimeout == 0 && call.Options.ScheduleToCloseTimeout == 0 {
		call.Options.StartToCloseTimeout = time.Minute
	}
	call.Options.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: 1}
	if call.MaxAttempts <= 0 {
		call.MaxAttempts = 20
	}
	if call.Backoff <= 0 {
		call.Backoff = time.Second
	}
	return call
}

// ArgsOf is the activity's arguments under permit p: ArgsFor(p) when set,
// else Args.
func (call Call) ArgsOf(p Permit) []any {
	if call.ArgsFor != nil {
		return call.ArgsFor(p)
	}
	return call.Args
}

// LeaseMargin is how long a permit's lease must outlast the activity
// holding it: the time to deliver the grant, schedule the activity and
// deliver its release.
const LeaseMargin = 15 * time.Second

// WithinLease returns opts with its timeouts shortened so that the
// activity, started at now, ends LeaseMargin before p's lease does: once
// the lease expires the limiter gives the permit's concurrency slots to
// someone else, and an activity still running then would be a request over
// the caps. The bound runs from now, not from p.Granted: a spare asked
// ahead is taken up to SpareAge after its grant. A permit without a lease
// (the zero Expires), or a lease (p.Expires - p.Granted, the limiter's
// LeaseTTL) no longer than the margin, leaves opts as they are. A permit
// whose lease has less than the margin left gets minActivityBound: the
// activity most likely times out and is retried under a new permit.
func WithinLease(opts workflow.ActivityOptions, p Permit, now time.Time) workflow.ActivityOptions {
	if p.Expires.IsZero() || p.Expires.Sub(p.Granted) <= LeaseMargin {
		return opts
	}
	if now.Before(p.Granted) {
		now = p.Granted
	}
	bound := max(p.Expires.Sub(now)-LeaseMargin, minActivityBound)
	if opts.StartToCloseTimeout == 0 || opts.StartToCloseTimeout > bound {
		opts.StartToCloseTimeout = bound
	}
	if opts.ScheduleToCloseTimeout > bound {
		opts.ScheduleToCloseTimeout = bound
	}
	return opts
}

// minActivityBound is the shortest timeout WithinLease sets.
const minActivityBound = time.Second

// CallStats says what one Call cost.
type CallStats struct {
	Attempts int
	Waited   time.Duration
}

// Call runs a Graph activity under a permit, releases the permit with the
// outcome the activity observed, and retries retryable failures with a new
// permit each time. result receives the activity's result; when it
// implements Observed, its outcome is what the release reports.
func (c *Client) Call(ctx workflow.Context, call Call, result any) (CallStats, error) {
	call = call.WithDefaults()
	maxAttempts, backoff := call.MaxAttempts, call.Backoff
	var st CallStats
	ask := call.Ask
	for {
		ask.Attempt = st.Attempts
		st.Attempts++
		p, err := c.Acquire(ctx, ask)
		if err != nil {
			return st, err
		}
		st.Waited += p.Waited
		actx := workflow.WithActivityOptions(ctx, WithinLease(call.Options, p, workflow.Now(ctx)))
		err = workflow.ExecuteActivity(actx, call.Activity, call.ArgsOf(p)...).Get(actx, result)
		o := outcomeOf(err)
		if err == nil {
			if obs, ok := result.(Observed); ok {
				o = obs.LimiterOutcome()
			} else {
				o = limiter.Outcome{Status: 200}
			}
		}
		c.Release(ctx, p, o)
		if call.OnAttempt != nil {
			call.OnAttempt(Attempt{N: st.Attempts, Err: err, Outcome: o, At: workflow.Now(ctx)})
		}
		if err == nil {
			return st, nil
		}
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.NonRetryable() {
			return st, err
		}
		if ctx.Err() != nil {
			return st, err
		}
		if st.Attempts >= maxAttempts {
			return st, fmt.Errorf("gave up after %d attempts: %w", st.Attempts, err)
		}
		if !(o.IsThrottle() || o.Code == limiter.CodeConcurrency) {
			t := workflow.NewTimerWithOptions(ctx, backoff, workflow.TimerOptions{
				Summary: fmt.Sprintf("Back off %s after attempt %d failed", backoff, st.Attempts)})
			if err := t.Get(ctx, nil); err != nil {
				return st, err
			}
			backoff = min(2*backoff, time.Minute)
		}
	}
}
