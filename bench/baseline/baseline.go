// Package baseline holds the Graph pacing policies the end-to-end
// benchmarks compare the limiter with. They run each Graph activity
// directly, with no permit, and differ only in what they do when Graph
// throttles: everything else (non-throttle failures, activity options) is
// handled as entity.Client.Call handles it, so a benchmark compares
// throttle policies and nothing else. They plug into the workflows through
// workflows.Workflows.NewCaller (see NewCaller); the product never uses
// them.
package baseline

import (
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// Policy names a baseline.
type Policy string

// The baselines.
const (
	// Backoff calls Graph directly and retries a throttled call with
	// exponential backoff and jitter, like the Graph SDK's default.
	Backoff Policy = "backoff"
	// QueueRetry calls Graph directly and puts a throttled call back in
	// the queue for 30 seconds (the seed design).
	QueueRetry Policy = "queue-retry"
)

// ErrTypeAbandoned is the type of the error a baseline returns when it
// gives a Graph call up (the Graph SDK's retry handler after its last
// retry). It is non-retryable: the page fails, as it would in an app whose
// SDK returned the 429.
const ErrTypeAbandoned = "GraphCallAbandoned"

// The Graph SDK's default retry handler (kiota-http-go RetryHandler, see
// shared/reference/graph-onenote.md §7): 3 retries of 429, 503 and 504,
// 3·2^(n-1) s apart plus up to 1 s of jitter when there is no Retry-After
// (OneNote never sends one).
const (
	sdkMaxRetries = 3
	sdkBaseDelay  = 3 * time.Second
	sdkJitter     = time.Second
)

// queueRetryDelay is how long the seed design left a throttled or failed
// message invisible in its queue before a worker took it again.
const queueRetryDelay = 30 * time.Second

// ParsePolicy reads a -baseline flag value: "backoff" or "queue-retry".
// The error names the values it accepts.
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case Backoff, QueueRetry:
		return p, nil
	}
	return "", fmt.Errorf("unknown baseline %q: want %q or %q", s, Backoff, QueueRetry)
}

// NewCaller returns what workflows.Workflows.NewCaller takes: a caller of
// policy for each workflow run.
func NewCaller(policy Policy) func(ctx workflow.Context, spec limiter.Spec) workflows.Caller {
	return func(ctx workflow.Context, spec limiter.Spec) workflows.Caller {
		return newBaselineCaller(ctx, policy, spec)
	}
}

// baselineCaller runs Graph activities with no permit and handles
// throttles by its policy. Create it with newBaselineCaller, one per
// workflow run; its state is workflow state.
type baselineCaller struct {
	policy Policy
	// factor is how many times faster than real time the limits run (60
	// for onenote-x60); the policy's delays are divided by it, so they
	// keep their size relative to the windows.
	factor float64
	// seed and calls make the jitter: deterministic on replay, different
	// for every call and workflow run.
	seed  string
	calls int
}

func newBaselineCaller(ctx workflow.Context, policy Policy, spec limiter.Spec) *baselineCaller {
	info := workflow.GetInfo(ctx)
	return &baselineCaller{policy: policy, factor: timeFactor(spec),
		seed: info.WorkflowExecution.ID + "/" + info.WorkflowExecution.RunID}
}

// timeFactor is how many times shorter spec's longest user window is than
// the OneNote hour: F for the profile onenote-xF, 1 for onenote.
func timeFactor(spec limiter.Spec) float64 {
	var longest time.Duration
	for _, w := range spec.User.Windows {
		longest = max(longest, w.Per.D())
	}
	if longest <= 0 {
		return 1
	}
	return float64(time.Hour) / float64(longest)
}

// scaled divides a real-time delay by the time factor.
func (b *baselineCaller) scaled(d time.Duration) time.Duration {
	return max(time.Millisecond, time.Duration(float64(d)/b.factor))
}

// delay is the pause before retry number retry (0 for the first retry)
// of a throttled call.
func (b *baselineCaller) delay(retry int) time.Duration {
	if b.policy == QueueRetry {
		return b.scaled(queueRetryDelay)
	}
	return b.scaled(sdkBaseDelay<<min(retry, 16) + time.Duration(b.jitter(retry)*float64(sdkJitter)))
}

// jitter is a number in [0, 1) drawn from the run, the call and the
// retry: workflow code may not use a random source, and this one replays
// identically.
func (b *baselineCaller) jitter(retry int) float64 {
	h := fnv.New64a()
	h.Write([]byte(b.seed + "/" + strconv.Itoa(b.calls) + "/" + strconv.Itoa(retry)))
	return float64(h.Sum64()>>11) / float64(1<<53)
}

// sdkRetried reports whether the Graph SDK's retry handler retries a
// response: 429 (which covers OneNote's 20166 and 10003), 503 and 504.
func sdkRetried(o limiter.Outcome) bool {
	return o.Status == 429 || o.Status == 503 || o.Status == 504 ||
		o.Code == limiter.CodeThrottled || o.Code == limiter.CodeConcurrency
}

// throttledOutcome reports whether o is a throttle (429, 20166, 10007 or
// 10003).
func throttledOutcome(o limiter.Outcome) bool {
	return o.IsThrottle() || o.Code == limiter.CodeConcurrency
}

// handled reports whether the policy deals with o itself (rather than
// the generic retry of other failures).
func (b *baselineCaller) handled(o limiter.Outcome) bool {
	if b.policy == Backoff {
		return sdkRetried(o)
	}
	return throttledOutcome(o) || o.Status >= 500
}

// Call runs the activity with no permit. A throttle (for backoff also a
// 503 or 504) is retried after the policy's delay: backoff gives up after
// the SDK's 3 retries with a non-retryable ErrTypeAbandoned error;
// queue-retry never gives up on a throttle. call.Ask.Attempt counts the
// retries a caller already made (page.go's resource loop), so they count
// towards the SDK's 3. An activity that reports a throttle in its result
// rather than as an error (FetchResources: some resources fetched, then
// throttled) gets the delay and its result back; the caller asks again for
// what is missing. Other failures are retried as entity.Client.Call
// retries them.
func (b *baselineCaller) Call(ctx workflow.Context, call entity.Call, result any) (entity.CallStats, error) {
	call = call.WithDefaults()
	actx := workflow.WithActivityOptions(ctx, call.Options)
	maxAttempts, backoff := call.MaxAttempts, call.Backoff
	b.calls++
	var st entity.CallStats
	retries := call.Ask.Attempt
	// No permit divides the call: it covers every request asked for.
	args := call.ArgsOf(entity.Permit{User: call.Ask.User, Cost: max(1, call.Ask.Cost)})
	for {
		st.Attempts++
		err := workflow.ExecuteActivity(actx, call.Activity, args...).Get(actx, result)
		if err == nil {
			obs, ok := result.(entity.Observed)
			if !ok {
				return st, nil
			}
			o := obs.LimiterOutcome()
			if !b.handled(o) {
				return st, nil
			}
			// The activity stopped at a throttle and says so in its result.
			if b.givesUp(retries) {
				return st, abandoned(retries, fmt.Errorf("upstream answered %d %s", o.Status, o.Code))
			}
			return st, b.wait(ctx, &st, retries)
		}
		var app *temporal.ApplicationError
		if errors.As(err, &app) && app.NonRetryable() {
			return st, err
		}
		if ctx.Err() != nil {
			return st, err
		}
		if b.handled(outcomeOfError(err)) {
			if b.givesUp(retries) {
				return st, abandoned(retries, err)
			}
			if err := b.wait(ctx, &st, retries); err != nil {
				return st, err
			}
			retries++
			continue
		}
		if st.Attempts >= maxAttempts {
			return st, fmt.Errorf("gave up after %d attempts: %w", st.Attempts, err)
		}
		if err := workflow.Sleep(ctx, backoff); err != nil {
			return st, err
		}
		backoff = min(2*backoff, time.Minute)
	}
}

// givesUp reports whether the policy abandons a call that has been
// retried retries times: backoff after the SDK's 3; queue-retry never.
func (b *baselineCaller) givesUp(retries int) bool {
	return b.policy == Backoff && retries >= sdkMaxRetries
}

// wait sleeps the policy's delay before retry number retries.
func (b *baselineCaller) wait(ctx workflow.Context, st *entity.CallStats, retries int) error {
	d := b.delay(retries)
	st.Waited += d
	return workflow.Sleep(ctx, d)
}

// abandoned is the error of a call given up after retries retries.
func abandoned(retries int, cause error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("Graph call abandoned after %d retries (the Graph SDK's default): %v", retries, cause),
		ErrTypeAbandoned, nil)
}

// outcomeOfError finds the upstream outcome an activity error carries
// (see entity.OutcomeError); the zero Outcome if none.
func outcomeOfError(err error) limiter.Outcome {
	var app *temporal.ApplicationError
	var o limiter.Outcome
	if errors.As(err, &app) && app.HasDetails() && app.Details(&o) == nil {
		return o
	}
	return limiter.Outcome{}
}

// Flush has nothing to deliver: no limiter is involved.
func (b *baselineCaller) Flush(workflow.Context) error { return nil }
