package graphload

import (
	"context"
	"strconv"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// The naive design, measured beside ours: every message goes through a
// signal-with-start activity, the limiter handles one signal per workflow
// task and waits for each grant signal to be delivered before the next.
// It uses the same limit model, so only the protocol differs.

const (
	naiveSignal      = "naive-message"
	naiveGrantSignal = "naive-grant"
	naiveActivity    = "NaiveSignal"
)

// naiveMessage is one acquire or one release.
type naiveMessage struct {
	From      entity.Address  `json:"from"`
	RequestID string          `json:"requestID"`
	User      string          `json:"user,omitempty"`
	LeaseID   string          `json:"leaseID,omitempty"`
	Outcome   limiter.Outcome `json:"outcome"`
	Release   bool            `json:"release,omitempty"`
}

type naiveInput struct {
	Spec  limiter.Spec `json:"spec"`
	State []byte       `json:"state,omitempty"`
}

type naiveSignalRequest struct {
	WorkflowID string       `json:"workflowID"`
	TaskQueue  string       `json:"taskQueue"`
	Spec       limiter.Spec `json:"spec"`
	Message    naiveMessage `json:"message"`
}

// NaiveLimiter is the naive limiter workflow.
func NaiveLimiter(ctx workflow.Context, in naiveInput) error {
	now := workflow.Now(ctx)
	m, err := limiter.New(in.Spec, now)
	if err != nil {
		return err
	}
	if len(in.State) > 0 {
		if err := m.UnmarshalJSON(in.State); err != nil {
			return err
		}
	}
	from := make(map[string]entity.Address)
	ch := workflow.GetSignalChannel(ctx, naiveSignal)
	for {
		var msg naiveMessage
		sel := workflow.NewSelector(ctx)
		got := false
		sel.AddReceive(ch, func(c workflow.ReceiveChannel, _ bool) { c.Receive(ctx, &msg); got = true })
		if wake := m.NextWakeup(workflow.Now(ctx)); !wake.IsZero() {
			sel.AddFuture(workflow.NewTimer(ctx, max(time.Millisecond, wake.Sub(workflow.Now(ctx)))), func(workflow.Future) {})
		}
		sel.Select(ctx)
		now := workflow.Now(ctx)
		if got {
			if msg.Release {
				m.Release(msg.LeaseID, msg.Outcome, now)
			} else {
				from[msg.RequestID] = msg.From
				_ = m.Enqueue(limiter.Request{ID: msg.RequestID, User: msg.User, Lane: limiter.Background}, now)
			}
		}
		for _, g := range m.Grant(now) {
			to := from[g.RequestID]
			delete(from, g.RequestID)
			_ = workflow.SignalExternalWorkflow(ctx, to.WorkflowID, to.RunID, naiveGrantSignal, g).Get(ctx, nil)
		}
		if workflow.GetInfo(ctx).GetContinueAsNewSuggested() && ch.Len() == 0 && len(from) == 0 {
			state, err := m.MarshalJSON()
			if err != nil {
				return err
			}
			return workflow.NewContinueAsNewError(ctx, NaiveLimiter, naiveInput{Spec: in.Spec, State: state})
		}
	}
}

// NaiveWorkflowID is the naive limiter's workflow ID for an app.
func NaiveWorkflowID(app string) string { return "naive-limiter/" + app }

// NaiveRequester makes N Graph requests, each under a permit from the
// naive limiter.
func NaiveRequester(ctx workflow.Context, in Input) (Output, error) {
	info := workflow.GetInfo(ctx)
	self := entity.Address{WorkflowID: info.WorkflowExecution.ID, RunID: info.WorkflowExecution.RunID}
	grants := workflow.GetSignalChannel(ctx, naiveGrantSignal)
	sctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 100 * time.Millisecond},
	})
	gctx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Second, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 1}})
	signal := func(m naiveMessage) error {
		m.From = self
		return workflow.ExecuteActivity(sctx, naiveActivity, naiveSignalRequest{
			WorkflowID: NaiveWorkflowID(in.App), TaskQueue: info.TaskQueueName, Spec: in.Spec, Message: m}).Get(sctx, nil)
	}
	var out Output
	for i := range in.N {
		id := self.RunID + "/" + strconv.Itoa(i)
		asked := workflow.Now(ctx)
		if err := signal(naiveMessage{RequestID: id, User: in.User}); err != nil {
			return out, err
		}
		var g limiter.Grant
		grants.Receive(ctx, &g)
		out.Waits = append(out.Waits, workflow.Now(ctx).Sub(asked))
		var r Result
		err := workflow.ExecuteActivity(gctx, GraphGetActivity, in.User).Get(gctx, &r)
		o := r.Outcome
		if err != nil {
			o = limiter.Outcome{Status: 500}
		}
		if err := signal(naiveMessage{RequestID: id, LeaseID: g.LeaseID, Outcome: o, Release: true}); err != nil {
			return out, err
		}
		if err == nil {
			out.Done++
		}
	}
	return out, nil
}

type naiveActivities struct{ client client.Client }

// NaiveSignal delivers one message with signal-with-start.
func (a *naiveActivities) NaiveSignal(ctx context.Context, req naiveSignalRequest) error {
	_, err := a.client.SignalWithStartWorkflow(ctx, req.WorkflowID, naiveSignal, req.Message, client.StartWorkflowOptions{
		ID: req.WorkflowID, TaskQueue: req.TaskQueue, WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
	}, NaiveLimiter, naiveInput{Spec: req.Spec})
	return err
}

func registerNaive(w worker.Worker, c client.Client) {
	w.RegisterWorkflow(NaiveLimiter)
	w.RegisterWorkflow(NaiveRequester)
	w.RegisterActivityWithOptions((&naiveActivities{client: c}).NaiveSignal, activity.RegisterOptions{Name: naiveActivity})
}
