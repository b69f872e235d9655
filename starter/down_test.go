package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/shell/shelltest"
	"github.com/notebridge/notebridge/workflows"
)

func TestTopologyNamesTheRestartCommand(t *testing.T) {
	for _, tc := range []struct {
		address, clusterPort string
		want                 string
	}{
		{"127.0.0.1:17233", "", "make cluster"},
		{"127.0.0.1:27233", "27233", "make cluster"},
		{"localhost:7233", "", "bin/temporal server start-dev"},
		{"temporal.internal:7233", "", "docker compose up -d"},
		{"10.0.0.5:9000", "", "start the Temporal server at 10.0.0.5:9000"},
	} {
		tf := &temporalFlags{address: tc.address, getenv: func(k string) string {
			if k == "NOTEBRIDGE_CLUSTER_PORT" {
				return tc.clusterPort
			}
			return ""
		}}
		got := tf.topology().restart
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: restart %q, want %q in it", tc.address, got, tc.want)
		}
		if strings.HasPrefix(got, "start the") {
			continue // advice, not a command
		}
		// (shelltest echoes commands found on no PATH; bin/temporal is
		// a path, so it pastes as temporal would.)
		words, err := shelltest.Paste(strings.TrimPrefix(got, "bin/"))
		if err != nil || len(words) != 1 || strings.Join(words[0], " ") != strings.TrimPrefix(strings.TrimSpace(strings.SplitN(got, "#", 2)[0]), "bin/") {
			t.Errorf("%s: restart %q does not paste as one command: %q, %v", tc.address, got, words, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{serviceerror.NewUnavailable("connection refused"), true},
		{fmt.Errorf("describe: %w", serviceerror.NewDeadlineExceeded("deadline")), true},
		{fmt.Errorf("describe: %w", context.DeadlineExceeded), true},
		{status.Error(codes.Unavailable, "sql: connection refused"), true},
		{serviceerror.NewNotFound("no such workflow"), false},
		{errors.New("bad input"), false},
	} {
		if got := unreachable(tc.err); got != tc.want {
			t.Errorf("unreachable(%v) = %t, want %t", tc.err, got, tc.want)
		}
	}
}

// TestStatusNamesWhatIsDown: with no worker, status names the workers as
// down (not zeros, not a guess); with the server stopped, it names the
// server and the restart command of its topology.
func TestStatusNamesWhatIsDown(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{SearchAttributes: workflows.SearchAttributes()})
	addr := srv.HostPort()
	id := workflows.NotebookWorkflowID("alice", "0-nb!1")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := srv.Client().ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: "no-worker-polls-this"},
		workflows.MigrateNotebookName, workflows.MigrateInput{User: "alice", Notebook: "0-nb!1"}); err != nil {
		t.Fatal(err)
	}
	r := runStarter(t, []string{"status", "-temporal-address", addr, "-w", id})
	if !strings.Contains(r.stdout, `down: the workers (none polled task queue "no-worker-polls-this"`) ||
		strings.Contains(r.stdout, "0/0") {
		t.Errorf("status without a worker:\n%v\nwant the workers named as down, no zero counts", r)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	r = runStarter(t, []string{"status", "-temporal-address", addr, "-w", id})
	if r.code == 0 || !strings.Contains(r.stderr, "down: the Temporal server") {
		t.Errorf("status with the server stopped:\n%v\nwant the server named as down", r)
	}
}
