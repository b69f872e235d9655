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
	id := entity.WorkflowID(workflows.LimiterResource, cfg.AppID)
	_, err := c.SignalWithStartWorkflow(ctx, id, entity.SignalSetSpec, *cfg.LimitsSpec,
		client.StartWorkflowOptions{
			ID:                    id,
			TaskQueue:             cfg.TaskQueue,
			WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		}, entity.WorkflowName,
		entity.Input{Resource: workflows.LimiterResource, App: cfg.AppID, Spec: cfg.LimitsSpec})
	if err != nil {
		return fmt.Errorf("apply the limits of %s to limiter %s: %w", cfg.LimitsFile, id, err)
	}
	log.Info("Graph limits from file", "file", cfg.LimitsFile, "spec", cfg.LimitsSpec.Name, "limiter", id)
	return nil
}
