package chaos

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// workerProc runs the worker binary as a separate OS process (a
// stack.Proc), one incarnation after another, and kills it with SIGKILL on
// demand. Every incarnation appends to one log file.
type workerProc struct {
	// n numbers the worker among the run's (from 1).
	n        int
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

// workers are the run's worker processes, all polling the one task queue.
type workers struct {
	ws []*workerProc

	mu   sync.Mutex
	next int // the next kill that no request names goes to ws[next]
}

// newWorkers makes n workers logging into dir: worker.log for one,
// worker-1.log, worker-2.log, ... for more.
func newWorkers(n int, dir string) *workers {
	p := &workers{}
	for i := range n {
		log := filepath.Join(dir, "worker.log")
		if n > 1 {
			log = filepath.Join(dir, fmt.Sprintf("worker-%d.log", i+1))
		}
		p.ws = append(p.ws, &workerProc{n: i + 1, log: log})
	}
	return p
}

// configure gives every worker its binary, flags and environment.
func (p *workers) configure(bin string, args, env []string) {
	for _, w := range p.ws {
		w.bin, w.args, w.env = bin, args, env
	}
}

// start starts every worker.
func (p *workers) start() error {
	for _, w := range p.ws {
		if err := w.start(); err != nil {
			return err
		}
	}
	return nil
}

// stop ends every worker (workerProc.stop).
func (p *workers) stop(grace time.Duration) {
	for _, w := range p.ws {
		w.stop(grace)
	}
}

// upFor is the least time any worker has been running: 0 while one is
// down.
func (p *workers) upFor() time.Duration {
	least := time.Duration(-1)
	for _, w := range p.ws {
		if up := w.upFor(); least < 0 || up < least {
			least = up
		}
	}
	return max(least, 0)
}

// down returns the workers not running.
func (p *workers) down() []*workerProc {
	var out []*workerProc
	for _, w := range p.ws {
		if !w.running() {
			out = append(out, w)
		}
	}
	return out
}

// starts counts the incarnations of all workers.
func (p *workers) starts() int {
	n := 0
	for _, w := range p.ws {
		w.mu.Lock()
		n += w.starts
		w.mu.Unlock()
	}
	return n
}

// nextVictim is the worker the next kill that no request names goes to:
// each in turn, so that such kills spread over the workers.
func (p *workers) nextVictim() *workerProc {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.ws[p.next%len(p.ws)]
	p.next++
	return w
}

// sender is the worker whose connection r arrived on, found by the
// owner of the connection's client socket in /proc; nextVictim, and found
// false, if none of them owns it.
func (p *workers) sender(r *http.Request) (w *workerProc, found bool) {
	if len(p.ws) == 1 {
		return p.ws[0], true
	}
	var pids []int
	byPID := map[int]*workerProc{}
	for _, w := range p.ws {
		if pr := w.current(); pr != nil {
			if done, _ := pr.Exited(); !done {
				pids = append(pids, pr.PID())
				byPID[pr.PID()] = w
			}
		}
	}
	server, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if server != nil {
		if pid := socketOwner(r.RemoteAddr, server.String(), pids); pid != 0 {
			return byPID[pid], true
		}
	}
	return p.nextVictim(), false
}

// socketOwner returns which of pids holds the client end of the TCP
// connection from client to server (host:port addresses), or 0: the
// socket's inode from /proc/net/tcp and tcp6, then the process whose
// descriptors include it.
func socketOwner(client, server string, pids []int) int {
	inode := socketInode(portSuffix(client), portSuffix(server))
	if inode == "" {
		return 0
	}
	want := "socket:[" + inode + "]"
	for _, pid := range pids {
		fds := filepath.Join("/proc", strconv.Itoa(pid), "fd")
		entries, err := os.ReadDir(fds)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if link, err := os.Readlink(filepath.Join(fds, e.Name())); err == nil && link == want {
				return pid
			}
		}
	}
	return 0
}

// portSuffix is the port of a host:port address as /proc/net/tcp ends an
// address (":D431"), or "" for a bad address.
func portSuffix(addr string) string {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(":%04X", n)
}

// socketInode finds the inode of the TCP socket whose local address ends
// in local and whose remote address ends in remote, or "".
func socketInode(local, remote string) string {
	if local == "" || remote == "" {
		return ""
	}
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) > 9 && strings.HasSuffix(fields[1], local) && strings.HasSuffix(fields[2], remote) && fields[9] != "0" {
				f.Close()
				return fields[9]
			}
		}
		f.Close()
	}
	return ""
}
