package stack

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/notion"
)

// Proc is a child process in a process group of its own, so that a Ctrl-C
// to its parent does not reach it and stopping it stops whatever it
// started too.
type Proc struct {
	name string
	cmd  *exec.Cmd
	done chan struct{}
	err  error // the Wait error, valid once done is closed
}

// StartProc runs bin with args, env added to this process's environment,
// its output into stdout and stderr (nil discards).
func StartProc(name, bin string, args, env []string, stdout, stderr io.Writer) (*Proc, error) {
	return StartProcIn("", name, bin, args, env, stdout, stderr)
}

// StartProcIn is StartProc in the working directory dir ("" for this
// process's).
func StartProcIn(dir, name, bin string, args, env []string, stdout, stderr io.Writer) (*Proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{name: name, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// StartProcLogged is StartProc with stdout and stderr into one file at
// logPath, appended to.
func StartProcLogged(name, bin string, args, env []string, logPath string) (*Proc, error) {
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	defer f.Close() // the child has its own descriptor
	return StartProc(name, bin, args, env, f, f)
}

// PID is the process's ID, and its process group's.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Done is closed when the process has exited.
func (p *Proc) Done() <-chan struct{} { return p.done }

// Exited reports whether the process has exited, and how, in an error
// that names it.
func (p *Proc) Exited() (bool, error) {
	select {
	case <-p.done:
		if p.err == nil {
			return true, fmt.Errorf("%s exited", p.name)
		}
		return true, fmt.Errorf("%s exited: %w", p.name, p.err)
	default:
		return false, nil
	}
}

// ExitErr is the Wait error once the process has exited (nil for a clean
// exit).
func (p *Proc) ExitErr() error {
	<-p.done
	return p.err
}

// Signal sends sig to the process alone.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill sends SIGKILL to the process group and waits until the process has
// exited. It reports false if it had already exited.
func (p *Proc) Kill() bool {
	select {
	case <-p.done:
		return false
	default:
	}
	_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
	<-p.done
	return true
}

// Stop asks the process group to end (SIGTERM), kills it if the process
// has not exited within grace, and then kills whatever is left in the
// group.
func (p *Proc) Stop(grace time.Duration) {
	pgid := p.PID()
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-p.done
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// Build compiles pkgs (./worker, ...) of the module in dir into the
// directory out (one binary each, named after its package).
func Build(ctx context.Context, dir, out string, pkgs ...string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	args := append([]string{"build", "-o", out + string(filepath.Separator)}, pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", strings.Join(pkgs, " "), err, b)
	}
	return nil
}

// ModuleRoot is the notebridge module's root (the directory of its
// go.mod), found above the working directory (devserver.ModuleRoot).
func ModuleRoot() (string, error) { return devserver.ModuleRoot() }

// Sleep waits d or until ctx ends.
func Sleep(ctx context.Context, d time.Duration) error { return notion.SystemClock{}.Sleep(ctx, d) }
