package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// children are the processes of one demo run (each a stack.Proc, in a
// process group of its own), stopped in reverse order.
type children struct {
	mu    sync.Mutex
	procs []*stack.Proc
}

// start runs bin with args. Its stdout and stderr go to logDir/<name>.log
// and logDir/<name>.err; env is added to the demo's environment.
func (cs *children) start(name, logDir, bin string, args, env []string) (*stack.Proc, error) {
	out, err := os.OpenFile(filepath.Join(logDir, name+".log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer out.Close()
	errf, err := os.OpenFile(filepath.Join(logDir, name+".err"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer errf.Close()
	p, err := stack.StartProc(name, bin, args, env, out, errf)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	cs.procs = append(cs.procs, p)
	cs.mu.Unlock()
	return p, nil
}

// list returns the children started so far.
func (cs *children) list() []*stack.Proc {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]*stack.Proc(nil), cs.procs...)
}

// pids returns the process (and group) IDs of every child started.
func (cs *children) pids() []int {
	var ids []int
	for _, p := range cs.list() {
		ids = append(ids, p.PID())
	}
	return ids
}

// stopAll stops every child, last started first (SIGTERM to its process
// group, then SIGKILL after grace), and returns once all have exited and
// their groups are empty.
func (cs *children) stopAll(grace time.Duration) {
	procs := cs.list()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(grace)
	}
}

// waitForLine polls a log file until a line starting with prefix appears
// and returns the rest of that line, trimmed.
func waitForLine(ctx context.Context, c *stack.Proc, path, prefix string, timeout time.Duration) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if data, err := os.ReadFile(path); err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok && strings.TrimSpace(rest) != "" && strings.HasSuffix(string(data), "\n") {
					return strings.TrimSpace(rest), nil
				}
			}
		}
		if done, err := c.Exited(); done {
			return "", fmt.Errorf("waiting for %q in %s: %w", prefix, path, err)
		}
		if err := stack.Sleep(ctx, 100*time.Millisecond); err != nil {
			return "", fmt.Errorf("waiting for %q in %s: %w", prefix, path, err)
		}
	}
}

// tail returns the last n bytes of a file, for error messages.
func tail(path string, n int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > n {
		_, _ = f.Seek(st.Size()-n, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}
