package devserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func echo(ctx workflow.Context, s string) (string, error) { return "echo: " + s, nil }

func runEcho(t *testing.T, c client.Client, id string) {
	t.Helper()
	w := worker.New(c, "devserver-test", worker.Options{})
	w.RegisterWorkflow(echo)
	if err := w.Start(); err != nil {
		t.Fatalf("worker: %v", err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "devserver-test"}, echo, "hi")
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil {
		t.Fatalf("result: %v", err)
	}
	if got != "echo: hi" {
		t.Fatalf("result = %q, want %q", got, "echo: hi")
	}
}

// TestServerRunsWorkflowsAndKeepsThemAcrossRestart proves the helper gives a
// working server and that Restart keeps the database, as the chaos tests need.
func TestServerRunsWorkflowsAndKeepsThemAcrossRestart(t *testing.T) {
	s := ForTest(t, Options{DBFile: filepath.Join(t.TempDir(), "temporal.db")})
	runEcho(t, s.Client(), "before-restart")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.Restart(ctx); err != nil {
		t.Fatalf("restart: %v", err)
	}
	desc, err := s.Client().DescribeWorkflow(ctx, "before-restart", "")
	if err != nil {
		t.Fatalf("workflow from before the restart is gone: %v", err)
	}
	if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus().String(); st != "Completed" {
		t.Errorf("status after restart = %s, want Completed", st)
	}
	runEcho(t, s.Client(), "after-restart")
}

func TestFindCLIHonoursEnvironment(t *testing.T) {
	t.Setenv(EnvCLI, "/nonexistent/temporal")
	if _, err := FindCLI(); err == nil {
		t.Fatal("FindCLI accepted a missing binary")
	}
}
