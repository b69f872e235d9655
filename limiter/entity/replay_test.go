package entity_test

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
)

// TestReplaySavedEntityHistories replays the limiter entity histories in
// testdata (written by TestGenerateEntityHistory) against the current
// code. limiter-v0*.json were recorded before limiter-blame-slack, so they
// replay only while the entity keeps the old blame and reserve defaults
// for a run without that version marker; limiter-v1*.json were recorded
// after it and before limiter-settle-sent, limiter-v2*.json after that,
// with every release saying when its request was sent (ignoring the send
// times, they do not replay). A change to the entity that is not versioned with
// workflow.GetVersion fails here before it breaks running limiters.
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
