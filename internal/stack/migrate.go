package stack

import (
	"context"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// StartLimiter starts app's Graph limiter entity with spec on queue, so
// the first requester finds it running and its spec is the one that
// counts.
func StartLimiter(ctx context.Context, c client.Client, queue, app string, spec limiter.Spec) error {
	id := entity.WorkflowID(workflows.LimiterResource, app)
	_, err := c.SignalWithStartWorkflow(ctx, id, entity.SignalRequest, entity.Message{},
		client.StartWorkflowOptions{ID: id, TaskQueue: queue}, entity.WorkflowName,
		entity.Input{Resource: workflows.LimiterResource, App: app, Spec: &spec})
	if err != nil {
		return fmt.Errorf("start limiter %s: %w", id, err)
	}
	return nil
}

// LimiterState queries app's Graph limiter entity.
func LimiterState(ctx context.Context, c client.Client, app string) (entity.State, error) {
	var st entity.State
	v, err := c.QueryWorkflow(ctx, entity.WorkflowID(workflows.LimiterResource, app), "", entity.QueryState)
	if err == nil {
		err = v.Get(&st)
	}
	if err != nil {
		return st, fmt.Errorf("query the limiter: %w", err)
	}
	return st, nil
}

// StartMigration starts MigrateNotebook with in on queue, under the
// notebook workflow ID of in's user and notebook ID nb.
func StartMigration(ctx context.Context, c client.Client, queue, nb string, in workflows.MigrateInput, summary string) (client.WorkflowRun, error) {
	id := workflows.NotebookWorkflowID(in.User, nb)
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: queue, StaticSummary: summary},
		workflows.MigrateNotebookName, in)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", id, err)
	}
	return run, nil
}

// NotebookProgress queries a notebook workflow's progress.
func NotebookProgress(ctx context.Context, c client.Client, id string) (workflows.NotebookProgress, error) {
	var p workflows.NotebookProgress
	v, err := c.QueryWorkflow(ctx, id, "", workflows.QueryProgress)
	if err == nil {
		err = v.Get(&p)
	}
	if err != nil {
		return p, fmt.Errorf("progress of %s: %w", id, err)
	}
	return p, nil
}
