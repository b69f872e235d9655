package workflows

import (
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/readiness"
)

// directCaller runs Graph activities without permits, for unit tests of
// the workflow logic (the permit path is tested end to end).
type directCaller struct{ calls *int }

func (d directCaller) Call(ctx workflow.Context, call entity.Call, result any) (entity.CallStats, error) {
	*d.calls++
	opts := call.Options
	opts.RetryPolicy = &temporal.RetryPolicy{MaximumAttempts: 1}
	err := workflow.ExecuteActivity(workflow.WithActivityOptions(ctx, opts), call.Activity, call.Args...).Get(ctx, result)
	if call.OnAttempt != nil {
		call.OnAttempt(entity.Attempt{N: 1, Err: err, At: workflow.Now(ctx)})
	}
	return entity.CallStats{Attempts: 1}, err
}

func (directCaller) Flush(workflow.Context) error { return nil }

// unitWorkerOptions are the test environment's worker options. The SDK's
// deadlock detector allows a workflow task one second; under -race on a
// loaded two-core machine a task of ours has taken longer without blocking
// (TMPRL1101 in TestNotebookNotFoundListsTheNames at load average 22). Ten
// seconds still catches a real deadlock.
func unitWorkerOptions() worker.Options {
	return worker.Options{EnableSessionWorker: true, DeadlockDetectionTimeout: 10 * time.Second}
}

// newEnv returns a test environment with the workflows and (to be mocked)
// activities registered, and a counter of Graph calls.
func newEnv(t testing.TB) (*testsuite.TestWorkflowEnvironment, *int) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetWorkerOptions(unitWorkerOptions())
	calls := new(int)
	w := &Workflows{App: "test", NewCaller: func(workflow.Context, limiter.Spec) Caller { return directCaller{calls} }}
	w.Register(env)
	(&activities.Activities{}).Register(env)
	mockReadiness(env)
	return env, calls
}

// mockReadiness makes the Notion readiness check pass (readiness_test.go
// tests it failing).
func mockReadiness(env *testsuite.TestWorkflowEnvironment) {
	env.OnActivity(activities.CheckReadinessName, mock.Anything, mock.Anything).Return(
		activities.CheckReadinessResult{Verdict: readiness.Verdict{Ready: true}, Text: "Notion readiness: ready."}, nil).Maybe()
}

func mustProfile(t *testing.T, name string) limiter.Spec {
	t.Helper()
	s, err := limiter.Profile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// update sends an operator update to the workflow under test; done gets
// the notebook's answer, or the error it was refused or failed with, once
// the environment has run it.
func update(env *testsuite.TestWorkflowEnvironment, name string, done func(answer string, err error), args ...any) {
	env.UpdateWorkflow(name, "", &testsuite.TestUpdateCallback{
		OnReject: func(err error) { done("", err) },
		OnAccept: func() {},
		OnComplete: func(v any, err error) {
			answer, _ := v.(string)
			done(answer, err)
		},
	}, args...)
}

// mustUpdate sends an operator update the workflow must accept.
func mustUpdate(t *testing.T, env *testsuite.TestWorkflowEnvironment, name string, args ...any) {
	t.Helper()
	update(env, name, func(_ string, err error) {
		if err != nil {
			t.Errorf("%s %v refused: %v", name, args, err)
		}
	}, args...)
}
