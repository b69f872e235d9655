package entity

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// signalClient is a client whose SignalWorkflow answers from a table by
// workflow ID, and records what was signalled.
type signalClient struct {
	client.Client
	mu     sync.Mutex
	errs   map[string]error
	signal []string
}

func (c *signalClient) SignalWorkflow(_ context.Context, id, _, name string, _ any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.signal = append(c.signal, id+" "+name)
	return c.errs[id]
}

// TestSendGrantsSaysWhatItCouldNotDeliver: SendGrants signals every
// requester; a requester that is gone (not found) is told apart from one
// it could not reach for another reason, and without a client nothing is
// sent and everything is left to the workflow.
func TestSendGrantsSaysWhatItCouldNotDeliver(t *testing.T) {
	msgs := []Addressed{
		{To: Address{WorkflowID: "ok"}, Msg: GrantMessage{Grants: []limiter.Grant{{RequestID: "r1"}}}},
		{To: Address{WorkflowID: "gone"}, Msg: GrantMessage{Grants: []limiter.Grant{{RequestID: "r2"}}}},
		{To: Address{WorkflowID: "busy"}, Msg: GrantMessage{Grants: []limiter.Grant{{RequestID: "r3"}}}},
		{To: Address{WorkflowID: "ok2"}, Msg: GrantMessage{Refused: []Refusal{{RequestID: "r4"}}}},
	}
	cases := []struct {
		name         string
		client       client.Client
		gone, unsent []int
		signalled    int
	}{
		{"every requester signalled; the gone and the unreachable told apart", &signalClient{errs: map[string]error{
			"gone": serviceerror.NewNotFound("workflow execution already completed"),
			"busy": serviceerror.NewUnavailable("try later"),
		}}, []int{1}, []int{2}, 4},
		{"no client: all left to the workflow", nil, nil, []int{0, 1, 2, 3}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestActivityEnvironment()
			a := &Activities{Client: c.client}
			v, err := env.ExecuteLocalActivity(a.SendGrants, msgs)
			if err != nil {
				t.Fatal(err)
			}
			var res SendResult
			if err := v.Get(&res); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(res.Gone, c.gone) || !slices.Equal(res.Unsent, c.unsent) {
				t.Errorf("SendGrants = gone %v unsent %v, want gone %v unsent %v", res.Gone, res.Unsent, c.gone, c.unsent)
			}
			if sc, ok := c.client.(*signalClient); ok {
				if len(sc.signal) != c.signalled {
					t.Errorf("signalled %v, want %d signals", sc.signal, c.signalled)
				}
				for _, s := range sc.signal {
					if s[len(s)-len(SignalGrant):] != SignalGrant {
						t.Errorf("signal %q, want %s", s, SignalGrant)
					}
				}
			}
		})
	}
}

// fakeSendGrants stands for SendGrants in the test environment, whose
// client cannot reach its workflows: it delivers nothing, says the
// requesters named gone are gone and leaves the others to the workflow,
// and counts its calls.
type fakeSendGrants struct {
	mu    sync.Mutex
	gone  map[string]bool
	calls int
}

func (f *fakeSendGrants) send(_ context.Context, msgs []Addressed) (SendResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var res SendResult
	for i, m := range msgs {
		if f.gone[m.To.WorkflowID] {
			res.Gone = append(res.Gone, i)
		} else {
			res.Unsent = append(res.Unsent, i)
		}
	}
	return res, nil
}

// goneHarness starts the limiter, a requester whose grants go nowhere
// (SendGrants says it is gone) and, after it asked, a live requester;
// it returns the live one's result.
func goneHarness(ctx workflow.Context, in harnessInput) (requesterResult, error) {
	lctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: WorkflowID(testResource, testApp), ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_TERMINATE})
	lim := workflow.ExecuteChildWorkflow(lctx, WorkflowName, Input{Resource: testResource, App: testApp, Spec: in.Spec})
	if err := lim.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return requesterResult{}, err
	}
	var res requesterResult
	for i, r := range in.Requesters {
		rctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
			WorkflowID: "requester-" + r.Name, ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_TERMINATE})
		f := workflow.ExecuteChildWorkflow(rctx, requester, r)
		if i < len(in.Requesters)-1 {
			// The ghost: never waited for.
			_ = workflow.Sleep(ctx, in.Stagger)
			continue
		}
		if err := f.Get(ctx, &res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// TestGrantsTheLocalActivityMissedAreSignalled: with one slot, every
// answer goes through SendGrants; what it could not deliver the limiter
// signals itself, so every requester gets its grants; and a grant to a
// requester SendGrants found gone is released at once, so the next
// requester gets the slot without waiting for the lease to expire (5
// minutes).
func TestGrantsTheLocalActivityMissedAreSignalled(t *testing.T) {
	cases := []struct {
		name  string
		gone  map[string]bool
		in    harnessInput
		check func(t *testing.T, env *testsuite.TestWorkflowEnvironment)
	}{
		{"undelivered grants are signalled by the workflow", nil,
			harnessInput{Spec: testSpec(1), Requesters: []requesterInput{
				{Name: "a", User: "u", Steps: []step{{Hold: time.Second}, {Hold: time.Second}, {After: 5 * time.Second, Hold: time.Second}}},
				{Name: "b", User: "v", Steps: []step{{Hold: time.Second}, {Hold: time.Second}}},
			}},
			func(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
				var out []requesterResult
				if err := env.GetWorkflowResult(&out); err != nil {
					t.Fatal(err)
				}
				if n := len(allEvents(out)); n != 5 {
					t.Errorf("%d grants arrived, want 5", n)
				}
			}},
		{"a grant to a requester that is gone is released", map[string]bool{"requester-ghost": true},
			harnessInput{Spec: testSpec(1), Stagger: 5 * time.Second, Requesters: []requesterInput{
				{Name: "ghost", User: "u", Steps: []step{{NoRelse: true}}},
				{Name: "live", User: "u", Steps: []step{{Hold: time.Second}}},
			}},
			func(t *testing.T, env *testsuite.TestWorkflowEnvironment) {
				var res requesterResult
				if err := env.GetWorkflowResult(&res); err != nil {
					t.Fatal(err)
				}
				if len(res.Events) != 1 {
					t.Fatalf("the live requester got %d grants, want 1", len(res.Events))
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var s testsuite.WorkflowTestSuite
			env := s.NewTestWorkflowEnvironment()
			fake := &fakeSendGrants{gone: c.gone}
			env.RegisterActivityWithOptions(fake.send, activity.RegisterOptions{Name: SendGrantsActivity})
			env.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
			env.RegisterWorkflow(requester)
			env.RegisterWorkflow(harness)
			env.RegisterWorkflow(goneHarness)
			start := env.Now()
			if c.gone == nil {
				env.ExecuteWorkflow(harness, c.in)
			} else {
				env.ExecuteWorkflow(goneHarness, c.in)
			}
			if !env.IsWorkflowCompleted() {
				t.Fatal("harness did not complete")
			}
			if err := env.GetWorkflowError(); err != nil {
				t.Fatalf("harness: %v", err)
			}
			c.check(t, env)
			if c.gone != nil {
				var res requesterResult
				_ = env.GetWorkflowResult(&res)
				// The ghost asked at 0; its lease would have held the
				// slot for 5 minutes.
				if wait := res.Events[0].Granted.Sub(start); len(res.Events) > 0 && wait > time.Minute {
					t.Errorf("the live requester was granted %v after the start, want within a minute (the ghost's grant released)", wait)
				}
			}
			if fake.calls == 0 {
				t.Error("SendGrants never ran: the limiter signalled every grant itself")
			}
		})
	}
}
