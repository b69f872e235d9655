package workerapp

import (
	"context"
	"fmt"
	"log/slog"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// loadLimits reads the -limits-file spec; nil for no file.
func loadLimits(path string) (*limiter.Spec, error) {
	if path == "" {
		return nil, nil
	}
	s, err := limiter.LoadSpec(path)
	if err != nil {
		return nil, fmt.Errorf("-limits-file (or NOTEBRIDGE_LIMITS_FILE): %w", err)
	}
	return &s, nil
}

// applyLimits makes the Graph limiter of the app enforce the -limits-file
// spec: it starts the limiter with it, or hands it to the running one
// with the set-spec signal (units already spent keep counting), so an
// edited file takes effect when a worker restarts. Workflows start the
// limiter with their profile's table only when it is not running. With
// several workers, the last one started wins: give them the same file.
func applyLimits(ctx context.Context, c client.Client, cfg config, log *slog.Logger) error {
	if cfg.LimitsSpec == nil {
		return nil
	}
	res, app := workflows.LimiterResource, cfg.AppID
	type target struct {
		id, name string
		in       any
	}
	targets := []target{{entity.WorkflowID(res, app), entity.WorkflowName, entity.Input{Resource: res, App: app, Spec: cfg.LimitsSpec}}}
	if n := cfg.LimiterShards; n > 1 {
		// Every shard (its user limits) and the coordinator (the app
		// budget it leases out).
		targets = []target{{entity.CoordinatorWorkflowID(res, app), entity.CoordinatorWorkflowName,
			entity.CoordinatorInput{Resource: res, App: app, Shards: n, Spec: cfg.LimitsSpec}}}
		for k := range n {
			targets = append(targets, target{entity.ShardID(res, app, k, n), entity.WorkflowName,
				entity.Input{Resource: res, App: app, Spec: cfg.LimitsSpec, Shard: &entity.ShardConfig{Index: k, Count: n, TaskQueue: cfg.TaskQueue}}})
		}
	}
	for _, t := range targets {
		_, err := c.SignalWithStartWorkflow(ctx, t.id, entity.SignalSetSpec, *cfg.LimitsSpec,
			client.StartWorkflowOptions{
				ID:                    t.id,
				TaskQueue:             cfg.TaskQueue,
				WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
			}, t.name, t.in)
		if err != nil {
			return fmt.Errorf("apply the limits of %s to limiter %s: %w", cfg.LimitsFile, t.id, err)
		}
	}
	log.Info("Graph limits from file", "file", cfg.LimitsFile, "spec", cfg.LimitsSpec.Name, "limiters", len(targets))
	return nil
}
