package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// TestSyncScheduleEndToEnd migrates a notebook, creates its sync schedule
// with starter sync create (every 10 s, deletes archive), sees it with
// the temporal CLI's schedule list, waits for a run whose report is a sync
// report, pauses the schedule with the temporal CLI and observes no run
// in the next 25 s; then starter sync resume, pause, list and delete.
func TestSyncScheduleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for scheduled runs")
	}
	cli, err := devserver.FindCLI()
	if err != nil {
		t.Skip(err)
	}
	h := newHarness(t)
	root := h.notion.RootPageID()
	if r := h.login(t); r.code != 0 {
		t.Fatalf("login:\n%v", r)
	}
	h.startWorker(t)
	if r := h.cmd(t, "migrate", "-user", "alice", "-notebook", h.notebook.DisplayName, "-notion-parent", root,
		"-limits", testProfile, "-interval", "200ms"); r.code != 0 {
		t.Fatalf("migrate:\n%v", r)
	}
	addr := h.st.Server.HostPort()
	id := workflows.SyncWorkflowID("alice", h.notebook.ID)
	r := h.syncCmd(t, "create", "--user", "alice", "--notebook", h.notebook.DisplayName, "--notion-parent", root,
		"--limits", testProfile, "--every", "10s", "--deletes", "archive", "--task-queue", testQueue)
	if r.code != 0 || !strings.Contains(r.stdout, "Created schedule "+id) {
		t.Fatalf("sync create:\n%v", r)
	}
	if again := h.syncCmd(t, "create", "--user", "alice", "--notebook", h.notebook.ID, "--notion-parent", root,
		"--every", "10s", "--task-queue", testQueue); again.code != 1 || !strings.Contains(again.stderr, "already has a sync schedule") {
		t.Errorf("a second sync create:\n%v", again)
	}
	temporal := func(args ...string) string {
		t.Helper()
		full := append(args, "--address", addr, "--namespace", "default")
		out, err := exec.Command(cli, full...).CombinedOutput()
		t.Logf("temporal %s\n%s", strings.Join(full, " "), out)
		if err != nil {
			t.Fatalf("temporal %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	if out := temporal("schedule", "list"); !strings.Contains(out, id) {
		t.Fatalf("temporal schedule list does not show %s", id)
	}

	handle := h.tc.ScheduleClient().GetHandle(context.Background(), id)
	describe := func() *client.ScheduleDescription {
		t.Helper()
		d, err := handle.Describe(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	// The first scheduled run: a sync that finds everything in step.
	deadline := time.Now().Add(time.Minute)
	for len(describe().Info.RecentActions) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the schedule took no action in a minute")
		}
		time.Sleep(500 * time.Millisecond)
	}
	first := describe().Info.RecentActions[0].StartWorkflowResult
	if !strings.HasPrefix(first.WorkflowID, id+"-") {
		t.Errorf("run workflow ID %s, want %s-<time>", first.WorkflowID, id)
	}
	var rep workflows.NotebookReport
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.tc.GetWorkflow(ctx, first.WorkflowID, first.FirstExecutionRunID).Get(ctx, &rep); err != nil {
		t.Fatalf("scheduled run %s: %v", first.WorkflowID, err)
	}
	if rep.Sync == nil || rep.Sync.Unchanged != 6 || rep.Written != 0 || rep.Sync.Deletes != workflows.DeletesArchive {
		t.Fatalf("scheduled run's report: %+v %s", rep.Sync, rep.Message)
	}
	if st := h.cmd(t, "status", "-w", first.WorkflowID); st.code != 0 || !strings.Contains(st.stdout, "6 unchanged") {
		t.Errorf("starter status of the run:\n%v", st)
	}

	temporal("schedule", "toggle", "--pause", "--schedule-id", id, "--reason", "test pauses it")
	if !describe().Schedule.State.Paused {
		t.Fatal("the schedule is not paused after temporal schedule toggle --pause")
	}
	// A run started just before the pause may still be in flight; count
	// from the pause on.
	time.Sleep(time.Second)
	paused := describe().Info.NumActions
	time.Sleep(25 * time.Second)
	if n := describe().Info.NumActions; n != paused {
		t.Errorf("the paused schedule took %d actions in 25 s", n-paused)
	}
	t.Logf("the schedule took %d actions before the pause and none in the 25 s after", paused)

	// Every subcommand takes the notebook by ID or by name, as create does.
	for _, step := range []struct{ verb, notebook, want string }{
		{"resume", h.notebook.ID, "resumed"}, {"pause", h.notebook.DisplayName, "paused"}} {
		if r := h.syncCmd(t, step.verb, "--user", "alice", "--notebook", step.notebook); r.code != 0 || !strings.Contains(r.stdout, step.want) {
			t.Errorf("sync %s --notebook %q:\n%v", step.verb, step.notebook, r)
		}
	}
	if r := h.syncCmd(t, "pause", "--user", "alice", "--notebook", "No such notebook"); r.code != 1 ||
		!strings.Contains(r.stderr, h.notebook.DisplayName) {
		t.Errorf("sync pause of an unknown notebook does not name the ones there are:\n%v", r)
	}
	if r := h.syncCmd(t, "list"); r.code != 0 || !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "paused") ||
		!strings.Contains(r.stdout, h.notebook.DisplayName) {
		t.Errorf("sync list:\n%v", r)
	}
	if r := h.syncCmd(t, "list", "--user", "bob"); r.code != 0 || strings.Contains(r.stdout, id) {
		t.Errorf("sync list --user bob shows alice's schedule:\n%v", r)
	}
	if r := h.syncCmd(t, "list", "--user", "alice"); r.code != 0 || !strings.Contains(r.stdout, id) {
		t.Errorf("sync list --user alice:\n%v", r)
	}
	if r := h.syncCmd(t, "delete", "--user", "alice", "--notebook", h.notebook.DisplayName); r.code != 0 {
		t.Errorf("sync delete:\n%v", r)
	}
	if out := temporal("schedule", "list"); strings.Contains(out, id) {
		t.Errorf("the deleted schedule is still listed")
	}
	if r := h.syncCmd(t, "pause", "--schedule-id", id); r.code != 1 || !strings.Contains(r.stderr, "no sync schedule") {
		t.Errorf("pausing a deleted schedule:\n%v", r)
	}
}

// syncCmd runs a starter sync subcommand against the harness's Temporal
// (the connection flags go after the subcommand).
func (h *harness) syncCmd(t *testing.T, sub string, args ...string) result {
	t.Helper()
	full := append([]string{"sync", sub, "--temporal-address", h.st.Server.HostPort(), "--namespace", "default"}, args...)
	return runStarter(t, full)
}
