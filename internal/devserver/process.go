package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
)

const (
	// readyTimeout bounds how long a server may take to accept clients.
	readyTimeout = 2 * time.Minute
	// dialEvery is the pause between attempts to connect while it starts.
	dialEvery = 100 * time.Millisecond
	// stopTimeout is how long Stop waits after an interrupt before it kills.
	stopTimeout = 30 * time.Second
	// outputTail is how much of the server's output an error quotes.
	outputTail = 2048
)

// process is a running CLI server process and, once it accepts them, a
// connected client. Unlike the SDK's testsuite.StartDevServer, it notices a
// server that exits while starting instead of dialling it for a minute,
// and never leaves a process behind when it fails.
type process struct {
	cmd    *exec.Cmd
	out    *tail
	exited chan struct{} // closed when the process has exited
	err    error         // cmd.Wait's result, set before exited closes
	client client.Client
}

// startProcess starts the CLI with args, its output going to log (if not
// nil) and to a tail kept for errors.
func startProcess(cli string, args []string, log io.Writer) (*process, error) {
	out := &tail{}
	var w io.Writer = out
	if log != nil {
		w = io.MultiWriter(log, out)
	}
	cmd := exec.Command(cli, args...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, out: out, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// dial connects to the server's default namespace, retrying while it
// starts, until it accepts, exits (ErrExited), or readyTimeout or ctx ends.
func (p *process) dial(ctx context.Context, hostPort string) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	tick := time.NewTicker(dialEvery)
	defer tick.Stop()
	for {
		c, err := client.DialContext(ctx, client.Options{HostPort: hostPort, Namespace: "default", Logger: quietLogger{}})
		if err == nil {
			p.client = c
			return nil
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%w (%v); its output ends: %q", ErrExited, p.err, p.out)
		case <-ctx.Done():
			return fmt.Errorf("not accepting clients after %s: %w (last: %v); its output ends: %q", readyTimeout, ctx.Err(), err, p.out)
		case <-tick.C:
		}
	}
}

// stop closes the client, interrupts the server and waits for it to exit,
// killing it after stopTimeout. A non-zero exit is a clean stop: an
// interrupted server exits so.
func (p *process) stop() error {
	if p.client != nil {
		p.client.Close()
	}
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("devserver: interrupt: %w", err)
	}
	select {
	case <-p.exited:
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		return fmt.Errorf("devserver: stop: %w", p.err)
	}
	return nil
}

// tail keeps the last outputTail bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if over := len(t.buf) - outputTail; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}
