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
		client.StartWorkflowOptions{ID: id, TaskQueue: queue, StaticSummary: entity.Summary(workflows.LimiterResource, app)}, entity.WorkflowName,
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

// StartMigration starts MigrateNotebook with in on queue, for the notebook
// of ID nb and name name, with the options every start gives
// (workflows.StartOptions).
func StartMigration(ctx context.Context, c client.Client, queue, nb, name string, in workflows.MigrateInput) (client.WorkflowRun, error) {
	o := workflows.StartOptions(queue, nb, name, in)
	run, err := c.ExecuteWorkflow(ctx, o, workflows.MigrateNotebookName, in)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", o.ID, err)
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
