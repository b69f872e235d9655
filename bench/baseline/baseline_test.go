package baseline

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

func TestParsePolicy(t *testing.T) {
	tests := []struct {
		in      string
		want    Policy
		wantErr bool
	}{
		{"backoff", Backoff, false},
		{"queue-retry", QueueRetry, false},
		{"", "", true},
		{"limiter", "", true},
		{"retry", "", true},
	}
	for _, tc := range tests {
		got, err := ParsePolicy(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestTimeFactor(t *testing.T) {
	for name, want := range map[string]float64{"onenote": 1, "onenote-x60": 60, "onenote-x240": 240} {
		if got := timeFactor(mustProfileWF(name)); got < want*0.999 || got > want*1.001 {
			t.Errorf("timeFactor(%s) = %g, want %g", name, got, want)
		}
	}
}

// probeInput is what the probe workflow runs: one Call of the fake Graph
// activity under a policy.
type probeInput struct {
	Policy Policy
	// Attempt is the Ask.Attempt the caller passes (retries it made).
	Attempt int
	// InResult makes the activity report throttles in its result, like
	// FetchResources, rather than as errors.
	InResult bool
}

type probeResult struct {
	Attempts int
	Elapsed  time.Duration
	Waited   time.Duration
	Status   int
}

// fakeGraph answers each attempt with the next outcome of its script
// (200 once the script is used up), as an error or in its result.
type fakeGraph struct {
	mu     sync.Mutex
	script []limiter.Outcome
	calls  int
}

func (f *fakeGraph) run(_ context.Context, inResult bool) (activities.FetchResourcesResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	o := limiter.Outcome{Status: 200}
	if f.calls < len(f.script) {
		o = f.script[f.calls]
	}
	f.calls++
	if o.Status == 200 || inResult {
		return activities.FetchResourcesResult{Outcome: o}, nil
	}
	return activities.FetchResourcesResult{}, entity.OutcomeError(errors.New("upstream refused"), failure.GraphThrottled, o, false)
}

func probe(ctx workflow.Context, in probeInput) (probeResult, error) {
	bc := NewCaller(in.Policy)(ctx, mustProfileWF("onenote-x60"))
	var res probeResult
	start := workflow.Now(ctx)
	var r activities.FetchResourcesResult
	st, err := bc.Call(ctx, entity.Call{Ask: entity.AskOptions{User: "u", Attempt: in.Attempt},
		Activity: "FakeGraph", Args: []any{in.InResult}}, &r)
	res.Attempts, res.Waited, res.Status = st.Attempts, st.Waited, r.Outcome.Status
	res.Elapsed = workflow.Now(ctx).Sub(start)
	return res, err
}

// quietEnv is a test environment that logs nothing (the throttles the
// tests provoke are logged as activity errors).
func quietEnv() *testsuite.TestWorkflowEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.DiscardHandler)))
	return s.NewTestWorkflowEnvironment()
}

func mustProfileWF(name string) limiter.Spec {
	s, err := limiter.Profile(name)
	if err != nil {
		panic(err)
	}
	return s
}

var (
	throttle429 = limiter.Outcome{Status: 429, Code: limiter.CodeThrottled}
	busy10003   = limiter.Outcome{Status: 429, Code: limiter.CodeConcurrency}
	error500    = limiter.Outcome{Status: 500, Code: "10001"}
	error503    = limiter.Outcome{Status: 503, Code: "10007"}
)

// sdkRange is the workflow time n SDK retries take from retry number
// from on, under onenote-x60: 3·2^k s each plus under 1 s of jitter,
// divided by 60.
func sdkRange(from, n int) (lo, hi time.Duration) {
	for k := from; k < from+n; k++ {
		lo += (3 * time.Second << k) / 60
		hi += (3*time.Second<<k + time.Second) / 60
	}
	return lo, hi
}

func TestBaselineCaller(t *testing.T) {
	type span struct{ lo, hi time.Duration }
	sdk := func(from, n int) span { lo, hi := sdkRange(from, n); return span{lo, hi} }
	exactly := func(d time.Duration) span { return span{d, d} }
	tests := []struct {
		name         string
		in           probeInput
		script       []limiter.Outcome
		wantAttempts int
		// wantElapsed is the workflow time the call took (not checked
		// for errors).
		wantElapsed span
		wantErrType string
		wantStatus  int
	}{
		{name: "backoff retries throttles at 3, 6 s (+jitter), scaled", in: probeInput{Policy: Backoff},
			script: []limiter.Outcome{throttle429, busy10003}, wantAttempts: 3, wantElapsed: sdk(0, 2), wantStatus: 200},
		{name: "backoff retries 503 like the SDK", in: probeInput{Policy: Backoff},
			script: []limiter.Outcome{error503}, wantAttempts: 2, wantElapsed: sdk(0, 1), wantStatus: 200},
		{name: "backoff abandons after 3 retries", in: probeInput{Policy: Backoff},
			script: []limiter.Outcome{throttle429, throttle429, throttle429, throttle429, throttle429}, wantAttempts: 4,
			wantErrType: ErrTypeAbandoned},
		{name: "backoff counts the caller's earlier retries", in: probeInput{Policy: Backoff, Attempt: 2},
			script: []limiter.Outcome{throttle429, throttle429}, wantAttempts: 2, wantErrType: ErrTypeAbandoned},
		{name: "backoff leaves 500 to the generic retry (1 s, 2 s)", in: probeInput{Policy: Backoff},
			script: []limiter.Outcome{error500, error500}, wantAttempts: 3, wantElapsed: exactly(3 * time.Second), wantStatus: 200},
		{name: "backoff: throttle in the result waits, then hands the result back", in: probeInput{Policy: Backoff, InResult: true},
			script: []limiter.Outcome{throttle429}, wantAttempts: 1, wantElapsed: sdk(0, 1), wantStatus: 429},
		{name: "backoff: throttle in the result after 3 retries abandons", in: probeInput{Policy: Backoff, InResult: true, Attempt: 3},
			script: []limiter.Outcome{throttle429}, wantAttempts: 1, wantErrType: ErrTypeAbandoned},
		{name: "queue-retry waits 30 s (scaled) per throttle and never gives up", in: probeInput{Policy: QueueRetry},
			script:       []limiter.Outcome{throttle429, throttle429, throttle429, throttle429, throttle429, busy10003},
			wantAttempts: 7, wantElapsed: exactly(6 * 30 * time.Second / 60), wantStatus: 200},
		{name: "queue-retry requeues server errors too", in: probeInput{Policy: QueueRetry},
			script: []limiter.Outcome{error500}, wantAttempts: 2, wantElapsed: exactly(30 * time.Second / 60), wantStatus: 200},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := quietEnv()
			f := &fakeGraph{script: tc.script}
			env.RegisterActivityWithOptions(f.run, activity.RegisterOptions{Name: "FakeGraph"})
			env.RegisterWorkflow(probe)
			env.ExecuteWorkflow(probe, tc.in)
			if !env.IsWorkflowCompleted() {
				t.Fatal("probe did not complete")
			}
			var res probeResult
			err := env.GetWorkflowResult(&res)
			if tc.wantErrType != "" {
				var app *temporal.ApplicationError
				if !errors.As(err, &app) || app.Type() != tc.wantErrType || !app.NonRetryable() {
					t.Fatalf("error %v, want a non-retryable %s", err, tc.wantErrType)
				}
				if f.calls != tc.wantAttempts {
					t.Fatalf("activity ran %d times, want %d", f.calls, tc.wantAttempts)
				}
				return
			}
			if err != nil {
				t.Fatalf("probe: %v", err)
			}
			if res.Attempts != tc.wantAttempts || f.calls != tc.wantAttempts || res.Status != tc.wantStatus {
				t.Fatalf("%d attempts (activity ran %d), status %d; want %d, status %d",
					res.Attempts, f.calls, res.Status, tc.wantAttempts, tc.wantStatus)
			}
			if res.Elapsed < tc.wantElapsed.lo || res.Elapsed > tc.wantElapsed.hi {
				t.Fatalf("the call took %v of workflow time, want %v to %v", res.Elapsed, tc.wantElapsed.lo, tc.wantElapsed.hi)
			}
		})
	}
}

func TestJitterIsDeterministicAndBounded(t *testing.T) {
	a := &baselineCaller{policy: Backoff, factor: 1, seed: "wf/run", calls: 3}
	b := &baselineCaller{policy: Backoff, factor: 1, seed: "wf/run", calls: 3}
	seen := map[float64]bool{}
	for retry := range 3 {
		ja, jb := a.jitter(retry), b.jitter(retry)
		if ja != jb {
			t.Fatalf("retry %d: jitter %g then %g for the same run, call and retry", retry, ja, jb)
		}
		if ja < 0 || ja >= 1 {
			t.Fatalf("jitter %g out of [0, 1)", ja)
		}
		seen[ja] = true
		if d := a.delay(retry); d < 3*time.Second<<retry || d >= 3*time.Second<<retry+time.Second {
			t.Fatalf("delay(%d) = %v, want 3·2^%d s plus under 1 s", retry, d, retry)
		}
	}
	if len(seen) != 3 {
		t.Fatalf("jitter repeats across retries: %v", seen)
	}
}
