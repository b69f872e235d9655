package devserver

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// TestStartNamesAServerThatExits runs a "CLI" that exits at once, as the
// real one does when another process took its port between FreePort and
// its bind: Start must say so, with the server's words, after trying
// StartAttempts ports, instead of dialling a dead server for a minute.
func TestStartNamesAServerThatExits(t *testing.T) {
	dir := t.TempDir()
	cli := filepath.Join(dir, "temporal")
	calls := filepath.Join(dir, "calls")
	script := "#!/bin/sh\necho call >> " + calls + "\necho \"can't set frontend port: bind: address already in use\" >&2\nexit 1\n"
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvCLI, cli)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{})
	if err == nil {
		s.Stop()
		t.Fatal("Start succeeded with a CLI that exits")
	}
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("error = %v, want ErrExited quoting the server's output", err)
	}
	data, _ := os.ReadFile(calls)
	if n := strings.Count(string(data), "call"); n != StartAttempts {
		t.Errorf("the CLI ran %d times, want %d (a fresh port each)", n, StartAttempts)
	}
	if ctx.Err() != nil {
		t.Errorf("Start waited until its context ended")
	}
}

// TestStartSeesTheRealServerExitOnATakenPort starts the real CLI on a port
// another listener holds: the server exits at once, and start must say so
// rather than dial the other listener until its time ends. (The listener
// accepts and never answers, so one dial takes the SDK's 5 s.)
func TestStartSeesTheRealServerExitOnATakenPort(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the temporal CLI")
	}
	cli, err := FindCLI()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := &Server{cliPath: cli, hostPort: l.Addr().String()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	began := time.Now()
	err = s.start(ctx)
	if err == nil {
		s.Stop()
		t.Fatal("the server started on a port another listener holds")
	}
	if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("error = %v, want ErrExited quoting \"address already in use\"", err)
	}
	t.Logf("a taken port was reported after %s", time.Since(began).Round(time.Millisecond))
}
