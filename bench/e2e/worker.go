package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// clockTicks is the kernel's USER_HZ, the unit of /proc/<pid>/stat's CPU
// times: 100 on every Linux platform Go supports.
const clockTicks = 100

// Usage is what a process has used so far, from /proc.
type Usage struct {
	// CPU is user plus system time.
	CPU time.Duration
	// RSS is the resident set now and HWM its peak (VmHWM), in bytes.
	RSS, HWM int64
}

// ReadUsage reads pid's CPU time and memory from /proc (Linux only).
func ReadUsage(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, fmt.Errorf("usage of %d: %w", pid, err)
	}
	// Fields after the command name, which is in parentheses and may
	// hold spaces: state is field 3, utime 14 and stime 15.
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return u, fmt.Errorf("usage of %d: short /proc stat", pid)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return u, fmt.Errorf("usage of %d: %w", pid, err)
	}
	u.CPU = time.Duration(ut+st) * time.Second / clockTicks
	status, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("usage of %d: %w", pid, err)
	}
	defer status.Close()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (name != "VmRSS" && name != "VmHWM") {
			continue
		}
		fs := strings.Fields(val) // "123456 kB"
		if len(fs) < 1 {
			continue
		}
		kb, err := strconv.ParseInt(fs[0], 10, 64)
		if err != nil {
			continue
		}
		if name == "VmRSS" {
			u.RSS = kb << 10
		} else {
			u.HWM = kb << 10
		}
	}
	return u, sc.Err()
}

// Sample is one reading of a process's usage.
type Sample struct {
	At time.Duration // since sampling began
	Usage
}

// Worker is the worker binary running as a child process (stack.Proc),
// its usage sampled.
type Worker struct {
	proc *stack.Proc

	mu      sync.Mutex
	samples []Sample
	stop    chan struct{}
	stopped chan struct{}
}

// startWorker runs bin with args and env (added to this process's),
// its output in logPath.
func startWorker(bin string, args, env []string, logPath string) (*Worker, error) {
	p, err := stack.StartProcLogged("worker", bin, args, env, logPath)
	if err != nil {
		return nil, err
	}
	return &Worker{proc: p}, nil
}

// PID is the worker's process ID.
func (w *Worker) PID() int { return w.proc.PID() }

// Exited reports whether the worker has exited, and how.
func (w *Worker) Exited() (bool, error) { return w.proc.Exited() }

// Usage reads the worker's usage now.
func (w *Worker) Usage() (Usage, error) { return ReadUsage(w.PID()) }

// StartSampling records the worker's usage every interval until Stop.
func (w *Worker) StartSampling(interval time.Duration) {
	w.stop, w.stopped = make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if u, err := w.Usage(); err == nil {
				w.mu.Lock()
				w.samples = append(w.samples, Sample{At: time.Since(start), Usage: u})
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-w.proc.Done():
				return
			case <-t.C:
			}
		}
	}()
}

// Samples returns the usage recorded so far.
func (w *Worker) Samples() []Sample {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]Sample(nil), w.samples...)
}

// Stop ends sampling, asks the worker to shut down (SIGTERM), and kills
// it if it has not exited within grace. It returns the last usage read
// before the signal.
func (w *Worker) Stop(grace time.Duration) (Usage, error) {
	if w.stop != nil {
		close(w.stop)
		<-w.stopped
		w.stop = nil
	}
	u, uerr := w.Usage()
	if done, err := w.Exited(); done {
		return u, errors.Join(uerr, fmt.Errorf("early: %w", err))
	}
	w.proc.Stop(grace)
	return u, uerr
}
