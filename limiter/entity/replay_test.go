package entity_test

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
)

// TestReplaySavedEntityHistories replays the limiter entity histories in
// testdata (written by TestGenerateEntityHistory: a first run with
// successes, unscoped throttles, a breaker probe and a burst, and the run
// it continued as) against the current code. A change to the entity that
// changes the commands it makes (timers, grant signals, continue-as-new)
// fails here: re-record the histories with TestGenerateEntityHistory
// before the first release tag, version the change with
// workflow.GetVersion after it.
func TestReplaySavedEntityHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no saved limiter histories in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			// As entity.Register registers it on a worker (the replayer
			// runs no activities).
			r.RegisterWorkflowWithOptions(entity.Workflow, workflow.RegisterOptions{Name: entity.WorkflowName})
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}
