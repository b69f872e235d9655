package workflows_test

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// TestReplaySavedHistories replays histories of a real migration (saved by
// TestEndToEnd with NOTEBRIDGE_SAVE_HISTORY=1) against the current code:
// a change that breaks determinism fails here before it breaks running
// migrations.
func TestReplaySavedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no saved histories in testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			r := worker.NewWorkflowReplayer()
			workflows.New(e2eApp).Register(r)
			r.RegisterWorkflowWithOptions(entity.Workflow, workflowRegisterOptions(entity.WorkflowName))
			if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
				t.Fatalf("replay %s: %v", f, err)
			}
		})
	}
}

func workflowRegisterOptions(name string) workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: name}
}
