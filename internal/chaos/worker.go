package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// buildWorker compiles ./worker of the module at root into dir.
func buildWorker(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "worker")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./worker")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("chaos: go build ./worker: %w\n%s", err, out)
	}
	return bin, nil
}

// workerProc runs the worker binary as a separate OS process, one
// incarnation after another, and kills it with SIGKILL on demand. Every
// incarnation appends to one log file.
type workerProc struct {
	bin, log string
	args     []string
	env      []string

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{} // closed when cmd has exited
	started time.Time
	starts  int
}

// start starts a new incarnation; the previous one must have exited.
func (w *workerProc) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd != nil {
		select {
		case <-w.done:
		default:
			return errors.New("chaos: the worker is still running")
		}
	}
	f, err := os.OpenFile(w.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("chaos: worker log: %w", err)
	}
	defer f.Close()
	w.starts++
	fmt.Fprintf(f, "==== chaos: worker incarnation %d started %s\n", w.starts, time.Now().Format(time.RFC3339Nano))
	cmd := exec.Command(w.bin, w.args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), w.env...)
	// Its own process group: a Ctrl-C to the harness does not reach it,
	// the harness stops it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("chaos: start the worker: %w", err)
	}
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	w.cmd, w.done, w.started = cmd, done, time.Now()
	return nil
}

// upFor is how long the current incarnation has been running, or 0 if
// none runs.
func (w *workerProc) upFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd == nil {
		return 0
	}
	select {
	case <-w.done:
		return 0
	default:
		return time.Since(w.started)
	}
}

// running reports whether an incarnation is running.
func (w *workerProc) running() bool { return w.upFor() > 0 }

// kill sends SIGKILL to the running incarnation and waits until it has
// exited. It reports false if none was running.
func (w *workerProc) kill() bool {
	w.mu.Lock()
	cmd, done := w.cmd, w.done
	w.mu.Unlock()
	if cmd == nil {
		return false
	}
	select {
	case <-done:
		return false
	default:
	}
	_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
	<-done
	return true
}

// stop ends the running incarnation gracefully (SIGTERM), then kills it
// if it has not exited within grace.
func (w *workerProc) stop(grace time.Duration) {
	w.mu.Lock()
	cmd, done := w.cmd, w.done
	w.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(grace):
		_ = syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// logText returns the worker's log so far.
func (w *workerProc) logText() string {
	b, _ := os.ReadFile(w.log)
	return string(b)
}

// moduleRoot walks up from the working directory to the notebridge
// module's root.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("chaos: %w", err)
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			strings.HasPrefix(string(b), "module github.com/notebridge/notebridge\n") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("chaos: no notebridge module above the working directory: run from the repository (or set Options.Root)")
		}
		dir = parent
	}
}
