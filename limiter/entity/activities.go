package entity

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// EnsureLimiterActivity is the registered name of Activities.EnsureLimiter.
const EnsureLimiterActivity = "EnsureLimiter"

// EnsureRequest asks EnsureLimiter to deliver Message to the limiter,
// starting it with Input on TaskQueue if it is not running.
type EnsureRequest struct {
	WorkflowID string  `json:"workflowID"`
	TaskQueue  string  `json:"taskQueue"`
	Input      Input   `json:"input"`
	Message    Message `json:"message"`
}

// Activities holds the activities of the limiter protocol.
type Activities struct {
	Client client.Client
}

// EnsureLimiter signals the limiter with signal-with-start, so the first
// requester starts it and a requester whose plain signal was refused gets
// through.
func (a *Activities) EnsureLimiter(ctx context.Context, req EnsureRequest) error {
	_, err := a.Client.SignalWithStartWorkflow(ctx, req.WorkflowID, SignalRequest, req.Message,
		client.StartWorkflowOptions{
			ID:                    req.WorkflowID,
			TaskQueue:             req.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			StaticSummary:         Summary(req.Input.Resource, req.Input.App),
		}, WorkflowName, req.Input)
	if err != nil {
		activity.GetLogger(ctx).Warn("Signal-with-start of the limiter failed", "limiter", req.WorkflowID, "error", err)
		return fmt.Errorf("signal-with-start %s: %w", req.WorkflowID, err)
	}
	return nil
}

// Summary is the static summary of the limiter of resource and app: what
// the Web UI's list of workflows shows for it.
func Summary(resource, app string) string {
	return fmt.Sprintf("Rate limiter for %s, app %s: grants every Graph request its permit", resource, app)
}

// Register registers the limiter workflow, its activities (SendGrants runs
// as a local activity of the limiter, so on the limiter's worker) and the pace
// entity (PaceWorkflow) on a worker.
func Register(r worker.Registry, c client.Client) {
	r.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	r.RegisterWorkflowWithOptions(PaceWorkflow, workflow.RegisterOptions{Name: PaceWorkflowName})
	r.RegisterWorkflowWithOptions(CoordinatorWorkflow, workflow.RegisterOptions{Name: CoordinatorWorkflowName})
	a := &Activities{Client: c}
	r.RegisterActivityWithOptions(a.EnsureLimiter, activity.RegisterOptions{Name: EnsureLimiterActivity})
	r.RegisterActivityWithOptions(a.EnsureCoordinator, activity.RegisterOptions{Name: EnsureCoordinatorActivity})
	r.RegisterActivityWithOptions(a.SendGrants, activity.RegisterOptions{Name: SendGrantsActivity})
}
