package chaos

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// workerProc runs the worker binary as a separate OS process (a
// stack.Proc), one incarnation after another, and kills it with SIGKILL on
// demand. Every incarnation appends to one log file.
type workerProc struct {
	bin, log string
	args     []string
	env      []string

	mu      sync.Mutex
	proc    *stack.Proc
	started time.Time
	starts  int
}

// start starts a new incarnation; the previous one must have exited.
func (w *workerProc) start() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.proc != nil {
		if done, _ := w.proc.Exited(); !done {
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
	// Its own process group: a Ctrl-C to the harness does not reach it,
	// the harness stops it.
	p, err := stack.StartProc("worker", w.bin, w.args, w.env, f, f)
	if err != nil {
		return fmt.Errorf("chaos: %w", err)
	}
	w.proc, w.started = p, time.Now()
	return nil
}

// current is the latest incarnation, or nil.
func (w *workerProc) current() *stack.Proc {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.proc
}

// upFor is how long the current incarnation has been running, or 0 if
// none runs.
func (w *workerProc) upFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.proc == nil {
		return 0
	}
	if done, _ := w.proc.Exited(); done {
		return 0
	}
	return time.Since(w.started)
}

// running reports whether an incarnation is running.
func (w *workerProc) running() bool { return w.upFor() > 0 }

// kill sends SIGKILL to the running incarnation and waits until it has
// exited. It reports false if none was running.
func (w *workerProc) kill() bool {
	p := w.current()
	return p != nil && p.Kill()
}

// stop ends the running incarnation gracefully (SIGTERM), then kills it
// if it has not exited within grace.
func (w *workerProc) stop(grace time.Duration) {
	if p := w.current(); p != nil {
		p.Stop(grace)
	}
}

// logText returns the worker's log so far.
func (w *workerProc) logText() string {
	b, _ := os.ReadFile(w.log)
	return string(b)
}
