package workflows_test

import (
	"path/filepath"
	"testing"

	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// TestReplaySavedHistories replays histories of a real migration against
// the current code: a change that breaks determinism fails here before it
// breaks running migrations. Until the first release tag there are no live
// histories and workflow code changes without workflow.GetVersion; after
// such a change, record them again (about 3 minutes; needs bin/temporal):
//
//	NOTEBRIDGE_SAVE_HISTORY=1 go test -count=1 -run 'TestEndToEnd$' ./workflows/
//
// which overwrites testdata/migrate-notebook.json (a retry-section),
// migrate-notebook-links.json (the link pass) and migrate-section.json
// (a section that wrote pages).
func TestReplaySavedHistories(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no saved histories in testdata")
	}
	// A worker started with other settings replays them too: a run keeps
	// the app, the limiter's shard count and the limits profile it began
	// with (recorded in its history), so changing a worker's settings
	// does not break the migrations running.
	workers := []struct {
		name string
		w    *workflows.Workflows
	}{
		{"the recording worker's settings", workflows.New(e2eApp)},
		{"another app, 8 limiter shards, other limits", &workflows.Workflows{App: "another-app", LimiterShards: 8, Limits: "onenote-x60"}},
	}
	for _, f := range files {
		for _, wk := range workers {
			t.Run(filepath.Base(f)+"/"+wk.name, func(t *testing.T) {
				r := worker.NewWorkflowReplayer()
				wk.w.Register(r)
				r.RegisterWorkflowWithOptions(entity.Workflow, workflowRegisterOptions(entity.WorkflowName))
				if err := r.ReplayWorkflowHistoryFromJSONFile(nil, f); err != nil {
					t.Fatalf("replay %s: %v", f, err)
				}
			})
		}
	}
}

func workflowRegisterOptions(name string) workflow.RegisterOptions {
	return workflow.RegisterOptions{Name: name}
}
