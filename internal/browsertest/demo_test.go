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
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error // the Wait error, once done is closed
	// mark is a path every process of the run has on its command line
	// (the run's binaries and work directory live under it).
	mark string
}

// moduleRoot walks up from the working directory to the notebridge
// module's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("module root: %w", err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.HasPrefix(data, []byte("module github.com/notebridge/notebridge\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("module root: run the test inside the notebridge repository")
		}
		dir = parent
	}
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
	build := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(bin, "demo"), "./cmd/demo")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/demo: %w\n%s", err, out)
	}
	args = append([]string{"-dir", filepath.Join(dir, "work"), "-bin", bin}, args...)
	d := &demoRun{out: &syncBuffer{}, done: make(chan struct{}), mark: dir}
	d.cmd = exec.Command(filepath.Join(bin, "demo"), args...)
	d.cmd.Dir = root
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.out
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the demo: %w", err)
	}
	go func() {
		d.err = d.cmd.Wait()
		close(d.done)
	}()
	return d, nil
}

// exited reports whether the demo has exited.
func (d *demoRun) exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
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
			return s, fmt.Errorf("the demo exited (%v) before printing its summary", d.err)
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
		if !p.Zombie() && (p.PID == d.cmd.Process.Pid || strings.Contains(p.Cmdline, d.mark)) {
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
		return fmt.Errorf("the demo had already exited: %v", d.err)
	}
	if err := d.cmd.Process.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("interrupt the demo: %w", err)
	}
	select {
	case <-d.done:
	case <-time.After(timeout):
		d.kill()
		return fmt.Errorf("the demo did not stop within %s of SIGINT; killed it", timeout)
	}
	var ee *exec.ExitError
	if d.err != nil && (!errors.As(d.err, &ee) || ee.ExitCode() != 130) {
		return fmt.Errorf("the demo exited with %v after SIGINT", d.err)
	}
	return nil
}

// kill ends every process of the run at once: the demo's group and each
// process carrying the run's directory.
func (d *demoRun) kill() {
	_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
	if ps, err := d.processes(); err == nil {
		for _, p := range ps {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
	<-d.done
}
