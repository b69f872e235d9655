package entity

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// TestEnsureLimiterNotOnTheSession checks that a message sent from a
// worker session's context starts the limiter from the workflow's own
// task queue. An activity scheduled with an open session's context goes
// to the session's queue, where only the session's worker polls: a killed
// worker would hold the message, and every ask in it, until the activity
// timed out (a stall of the counters test, issue 32). The test
// environment runs every activity on one queue, so an interceptor looks
// at the context each activity is scheduled with.
func TestEnsureLimiterNotOnTheSession(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	seen := &sessionWatch{}
	env.SetWorkerOptions(worker.Options{EnableSessionWorker: true, Interceptors: []interceptor.WorkerInterceptor{seen}})
	ensured := 0
	env.RegisterActivityWithOptions(func(context.Context, EnsureRequest) error {
		ensured++
		return nil
	}, activity.RegisterOptions{Name: EnsureLimiterActivity})
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) error {
		c := NewClient(ctx, ClientOptions{Resource: testResource, App: testApp})
		sctx, err := workflow.CreateSession(ctx, &workflow.SessionOptions{ExecutionTimeout: time.Hour, CreationTimeout: time.Minute})
		if err != nil {
			return err
		}
		defer workflow.CompleteSession(sctx)
		c.Release(sctx, Permit{RequestID: "r1", LeaseID: "l1", User: "u"}, limiter.Outcome{})
		// Block, so the release goes out as it does in a section: at the
		// end of the workflow task, from the session's context.
		if err := workflow.Sleep(ctx, time.Second); err != nil {
			return err
		}
		return c.Flush(ctx)
	}, workflow.RegisterOptions{Name: "session-requester"})
	env.ExecuteWorkflow("session-requester")
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	if ensured != 1 {
		t.Fatalf("EnsureLimiter ran %d times, want 1", ensured)
	}
	if len(seen.onSession) > 0 {
		t.Fatalf("activities %q were scheduled on the session's worker, want the workflow's own task queue", seen.onSession)
	}
}

// sessionWatch records the activities, other than the session's own,
// scheduled with an open session's context.
type sessionWatch struct {
	interceptor.WorkerInterceptorBase
	onSession []string
}

func (w *sessionWatch) InterceptWorkflow(_ workflow.Context, next interceptor.WorkflowInboundInterceptor) interceptor.WorkflowInboundInterceptor {
	return &sessionWatchInbound{WorkflowInboundInterceptorBase: interceptor.WorkflowInboundInterceptorBase{Next: next}, w: w}
}

type sessionWatchInbound struct {
	interceptor.WorkflowInboundInterceptorBase
	w *sessionWatch
}

func (i *sessionWatchInbound) Init(outbound interceptor.WorkflowOutboundInterceptor) error {
	return i.Next.Init(&sessionWatchOutbound{WorkflowOutboundInterceptorBase: interceptor.WorkflowOutboundInterceptorBase{Next: outbound}, w: i.w})
}

type sessionWatchOutbound struct {
	interceptor.WorkflowOutboundInterceptorBase
	w *sessionWatch
}

func (o *sessionWatchOutbound) ExecuteActivity(ctx workflow.Context, activityType string, args ...any) workflow.Future {
	if info := workflow.GetSessionInfo(ctx); info != nil && info.SessionState == workflow.SessionStateOpen && activityType == EnsureLimiterActivity {
		o.w.onSession = append(o.w.onSession, activityType)
	}
	return o.Next.ExecuteActivity(ctx, activityType, args...)
}
