package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/internal/stack"
)

// followInTmux runs `starter status --follow` of the migration id in a
// detached tmux pane cols columns wide, calls then once the pane shows
// the text when, and returns the pane's rows once the migration ended.
func (h *harness) followInTmux(t *testing.T, id string, cols int, when string, then func()) []string {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux")
	}
	root, err := stack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	if err := stack.Build(t.Context(), root, bin, "./starter"); err != nil {
		t.Fatal(err)
	}
	// A tmux server of the test's own (-L), ended with it.
	sock := fmt.Sprintf("starter-test-%d", os.Getpid())
	tmux := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		return string(out), err
	}
	shell := fmt.Sprintf("%s status --temporal-address %s -w %s --follow --interval 100ms; echo exit=$?; sleep 60",
		filepath.Join(bin, "starter"), h.st.Server.HostPort(), shellQuote(id))
	if out, err := tmux("new-session", "-d", "-s", "follow", "-x", fmt.Sprint(cols), "-y", "40", shell); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	t.Cleanup(func() { _, _ = tmux("kill-server") })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		pane, err := tmux("capture-pane", "-p", "-t", "follow")
		if err != nil {
			t.Fatalf("tmux capture-pane: %v\n%s", err, pane)
		}
		if strings.Contains(pane, "exit=") {
			return strings.Split(strings.TrimRight(pane, "\n"), "\n")
		}
		if then != nil && strings.Contains(pane, when) {
			then()
			then = nil
		}
		select {
		case <-ctx.Done():
			t.Fatalf("status --follow did not end:\n%s", pane)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// assertProgressRows checks a pane status --follow drew: the progress
// line (the only output with " · " in it), redrawn, takes one row each
// time it is not redrawn in place (want in all), cut to fit.
func assertProgressRows(t *testing.T, rows []string, cols, want int) {
	t.Helper()
	var progressRows []string
	for _, r := range rows {
		if strings.Contains(r, " · ") || strings.Contains(r, "pages done") {
			progressRows = append(progressRows, r)
		}
	}
	pane := strings.Join(rows, "\n")
	if len(progressRows) != want {
		t.Fatalf("the progress line left %d rows in a %d-column pane, want %d:\n%s", len(progressRows), cols, want, pane)
	}
	for _, row := range progressRows {
		row = strings.TrimRight(row, " ")
		if !strings.HasPrefix(row, "[") || progress.Columns(row) >= cols || !strings.Contains(row, "…") {
			t.Errorf("progress row %q: want the bar first, fewer than %d columns, cut with …:\n%s", row, cols, pane)
		}
	}
	if !strings.Contains(pane, "exit=0") || !strings.Contains(pane, "completed: Notebook") {
		t.Errorf("status --follow did not end with the report and exit 0:\n%s", pane)
	}
}
