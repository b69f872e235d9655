package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is one process the demo started, in its own process group so that
// stopping it also stops anything it started.
type child struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the Wait error, valid once done is closed
}

// children are the processes of one demo run, stopped in reverse order.
type children struct {
	mu    sync.Mutex
	procs []*child
}

// start runs bin with args in its own process group. Its stdout and stderr
// go to logDir/<name>.log and logDir/<name>.err; env is added to the
// demo's environment.
func (cs *children) start(name, logDir, bin string, args, env []string) (*child, error) {
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
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, errf
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	c := &child{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	cs.mu.Lock()
	cs.procs = append(cs.procs, c)
	cs.mu.Unlock()
	return c, nil
}

// exited reports whether the child has exited, with why.
func (c *child) exited() (bool, error) {
	select {
	case <-c.done:
		if c.err == nil {
			return true, fmt.Errorf("%s exited", c.name)
		}
		return true, fmt.Errorf("%s exited: %w", c.name, c.err)
	default:
		return false, nil
	}
}

// list returns the children started so far.
func (cs *children) list() []*child {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return append([]*child(nil), cs.procs...)
}

// pids returns the process (and group) IDs of every child started.
func (cs *children) pids() []int {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var ids []int
	for _, c := range cs.procs {
		ids = append(ids, c.cmd.Process.Pid)
	}
	return ids
}

// stopAll stops every child, last started first: SIGTERM to its process
// group, then SIGKILL after grace. It returns once all have exited and
// their groups are empty.
func (cs *children) stopAll(grace time.Duration) {
	cs.mu.Lock()
	procs := cs.procs
	cs.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		c := procs[i]
		pgid := c.cmd.Process.Pid
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-c.done:
		case <-time.After(grace):
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
			<-c.done
		}
		// The leader is gone; take down anything left in its group.
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// waitForLine polls a log file until a line starting with prefix appears
// and returns the rest of that line, trimmed.
func waitForLine(ctx context.Context, c *child, path, prefix string, timeout time.Duration) (string, error) {
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
		if done, err := c.exited(); done {
			return "", fmt.Errorf("waiting for %q in %s: %w", prefix, path, err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("waiting for %q in %s: %w", prefix, path, ctx.Err())
		case <-time.After(100 * time.Millisecond):
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
