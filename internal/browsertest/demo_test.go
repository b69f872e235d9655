package browsertest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// This file runs the demo binary (cmd/demo) as a person would, depending
// only on its command-line flags and its printed output.

// demoSummary is what the test needs from the demo's printed summary.
type demoSummary struct {
	// WorkflowID is the migration workflow's ID.
	WorkflowID string
	// UIURL is the Temporal Web UI page of the workflow; ViewURL the
	// Notion emulator's HTML view.
	UIURL, ViewURL string
	// Migrated is the "pages migrated" count, -1 when not printed.
	Migrated int
}

var (
	reUIURL    = regexp.MustCompile(`(?m)^\s*Temporal Web UI:\s*(https?://\S+)\s*$`)
	reViewURL  = regexp.MustCompile(`(?m)^\s*Notion \(emulator\):\s*(https?://\S+)\s*$`)
	reSummary  = regexp.MustCompile(`(?m)^\s*Summary of (\S+)\s*$`)
	reMigrated = regexp.MustCompile(`(?m)^\s*pages migrated:\s*(\d+)`)
)

// parseDemoOutput finds the summary in the demo's output: ok is false
// until both addresses are printed. The workflow ID comes from the
// "Summary of" line, else from the Web UI address's last path segment.
func parseDemoOutput(out string) (s demoSummary, ok bool, err error) {
	ui, view := lastMatch(reUIURL, out), lastMatch(reViewURL, out)
	if ui == "" || view == "" {
		return s, false, nil
	}
	s = demoSummary{UIURL: ui, ViewURL: view, WorkflowID: lastMatch(reSummary, out), Migrated: -1}
	if s.WorkflowID == "" {
		u, err := url.Parse(ui)
		if err != nil {
			return s, false, fmt.Errorf("the demo's Web UI address %q: %w", ui, err)
		}
		_, id, found := strings.Cut(u.EscapedPath(), "/workflows/")
		if !found || id == "" {
			return s, false, fmt.Errorf("the demo printed no \"Summary of <workflow ID>\" line and its Web UI address %q names no workflow", ui)
		}
		if s.WorkflowID, err = url.PathUnescape(id); err != nil {
			return s, false, fmt.Errorf("the demo's Web UI address %q: %w", ui, err)
		}
	}
	if m := lastMatch(reMigrated, out); m != "" {
		s.Migrated, _ = strconv.Atoi(m)
	}
	return s, true, nil
}

// lastMatch returns the first group of re's last match in s, or "".
func lastMatch(re *regexp.Regexp, s string) string {
	ms := re.FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		return ""
	}
	return ms[len(ms)-1][1]
}

// syncBuffer is a bytes.Buffer safe for a writer and readers at once.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// demoRun is one demo process.
type demoRun struct {
	proc *stack.Proc
	out  *syncBuffer
	// mark is a path every process of the run has on its command line
	// (the run's binaries and work directory live under it).
	mark string
}

// startDemo builds cmd/demo into dir/bin (next to a link to the pinned
// temporal CLI, so the demo's own build of the worker and emulators lands
// there too, apart from other runs) and starts it with args, in its own
// process group, its work directory under dir.
func startDemo(ctx context.Context, root, dir string, args ...string) (*demoRun, error) {
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return nil, fmt.Errorf("demo bin directory: %w", err)
	}
	temporal := filepath.Join(root, "bin", "temporal")
	if _, err := os.Stat(temporal); err != nil {
		return nil, fmt.Errorf("no temporal CLI at %s: run `make temporal` first: %w", temporal, err)
	}
	if err := os.Symlink(temporal, filepath.Join(bin, "temporal")); err != nil {
		return nil, fmt.Errorf("link the temporal CLI: %w", err)
	}
	if err := stack.Build(ctx, root, bin, "./cmd/demo"); err != nil {
		return nil, err
	}
	args = append([]string{"-dir", filepath.Join(dir, "work"), "-bin", bin}, args...)
	d := &demoRun{out: &syncBuffer{}, mark: dir}
	var err error
	if d.proc, err = stack.StartProcIn(root, "the demo", filepath.Join(bin, "demo"), args, nil, d.out, d.out); err != nil {
		return nil, err
	}
	return d, nil
}

// exited reports whether the demo has exited.
func (d *demoRun) exited() bool {
	done, _ := d.proc.Exited()
	return done
}

// waitSummary polls the demo's output until its summary with both
// addresses is printed.
func (d *demoRun) waitSummary(ctx context.Context) (demoSummary, error) {
	for {
		s, ok, err := parseDemoOutput(d.out.String())
		if err != nil || ok {
			return s, err
		}
		if d.exited() {
			return s, fmt.Errorf("the demo exited (%v) before printing its summary", d.proc.ExitErr())
		}
		select {
		case <-ctx.Done():
			return s, fmt.Errorf("waiting for the demo's summary: %w", ctx.Err())
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// processes returns the processes of this run still running: the demo
// and everything it started, found by the run's directory on their
// command lines (the demo starts its children in process groups of their
// own, so its group does not hold them).
func (d *demoRun) processes() ([]Process, error) {
	ps, err := Processes()
	if err != nil {
		return nil, err
	}
	var live []Process
	for _, p := range ps {
		if !p.Zombie() && (p.PID == d.proc.PID() || strings.Contains(p.Cmdline, d.mark)) {
			live = append(live, p)
		}
	}
	return live, nil
}

// interrupt sends the demo SIGINT, as Ctrl-C does, and waits for it to
// exit. It returns an error when the demo does not exit in time (then it
// is killed, with every process of the run) or exits with a status other
// than 0 or 130 (interrupted).
func (d *demoRun) interrupt(timeout time.Duration) error {
	if d.exited() {
		return fmt.Errorf("the demo had already exited: %v", d.proc.ExitErr())
	}
	if err := d.proc.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("interrupt the demo: %w", err)
	}
	select {
	case <-d.proc.Done():
	case <-time.After(timeout):
		d.kill()
		return fmt.Errorf("the demo did not stop within %s of SIGINT; killed it", timeout)
	}
	var ee *exec.ExitError
	if err := d.proc.ExitErr(); err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 130) {
		return fmt.Errorf("the demo exited with %v after SIGINT", err)
	}
	return nil
}

// kill ends every process of the run at once: the demo's group and each
// process carrying the run's directory.
func (d *demoRun) kill() {
	d.proc.Kill()
	if ps, err := d.processes(); err == nil {
		for _, p := range ps {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}
