// Package cluster drives the production topology that scripts/cluster.sh
// runs as plain processes on loopback: PostgreSQL, the Temporal server on
// it (built from source at the version docker-compose.yml pins) and the
// Web UI. The script is the one home of how the cluster is built, set up,
// started and stopped; this package runs it for tests and benchmarks and
// adds what a Go program needs: a connected client, the server's process
// for CPU figures, and PostgreSQL's write counters.
//
// `make cluster` starts a cluster for a person, `make cluster-test` runs
// the tests that need one (the chaos run on it among them).
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"

	"github.com/notebridge/notebridge/internal/devserver"
)

// Options are a cluster's settings. The zero value is the script's
// defaults: the state under $TMPDIR/notebridge-cluster, the frontend on
// 127.0.0.1:17233, PostgreSQL on 25432, the Web UI on 18233.
type Options struct {
	// Dir holds the cluster's state (data, logs, pids).
	Dir string
	// Port is the frontend's gRPC port (the other services take the
	// ports just above it); PGPort PostgreSQL's; UIPort the Web UI's.
	Port, PGPort, UIPort int
	// Bin is where the server, SQL tool and UI binaries are built and
	// reused (the module's bin/).
	Bin string
	// Root is the module root (found above the working directory when
	// empty).
	Root string
	// Log receives the script's progress lines; nil discards them.
	Log io.Writer
}

// Cluster is a cluster started by the script.
type Cluster struct {
	opts Options
	root string
	env  []string
	log  io.Writer

	// Address is the frontend's gRPC address, UI the Web UI's URL, Dir
	// the state directory; ServerVersion and UIVersion what runs.
	Address, UI, Dir         string
	ServerVersion, UIVersion string

	mu sync.Mutex
	c  client.Client
}

// TempDir makes a fresh state directory for a cluster that the postgres
// user can reach (os.MkdirTemp's are private to their owner), for Options.Dir;
// Clean removes it.
func TempDir() (string, error) {
	dir, err := os.MkdirTemp("", "notebridge-cluster-")
	if err != nil {
		return "", fmt.Errorf("cluster: state directory: %w", err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		return "", fmt.Errorf("cluster: state directory: %w", err)
	}
	return dir, nil
}

// Open describes the cluster the script manages with these options,
// without starting anything: for Check on a cluster someone else started.
func Open(ctx context.Context, o Options) (*Cluster, error) {
	c := &Cluster{opts: o, log: o.Log}
	if c.log == nil {
		c.log = io.Discard
	}
	c.root = o.Root
	if c.root == "" {
		root, err := devserver.ModuleRoot()
		if err != nil {
			return nil, err
		}
		c.root = root
	}
	set := func(name, v string) {
		if v != "" {
			c.env = append(c.env, name+"="+v)
		}
	}
	port := func(p int) string {
		if p == 0 {
			return ""
		}
		return strconv.Itoa(p)
	}
	set("NOTEBRIDGE_CLUSTER_DIR", o.Dir)
	set("NOTEBRIDGE_CLUSTER_PORT", port(o.Port))
	set("NOTEBRIDGE_CLUSTER_PG_PORT", port(o.PGPort))
	set("NOTEBRIDGE_CLUSTER_UI_PORT", port(o.UIPort))
	set("NOTEBRIDGE_CLUSTER_BIN", o.Bin)
	vars, err := c.vars(ctx)
	if err != nil {
		return nil, err
	}
	c.Address, c.UI, c.Dir = vars["ADDRESS"], vars["UI"], vars["DIR"]
	c.ServerVersion, c.UIVersion = vars["SERVER_VERSION"], vars["UI_VERSION"]
	return c, nil
}

// Start builds what is missing, starts the cluster (or finds it running)
// and connects a client to its default namespace.
func Start(ctx context.Context, o Options) (*Cluster, error) {
	c, err := Open(ctx, o)
	if err != nil {
		return nil, err
	}
	if _, err := c.script(ctx, "start"); err != nil {
		// Stop what did start: nothing is left running.
		_ = c.Stop()
		return nil, err
	}
	cl, err := client.DialContext(ctx, client.Options{HostPort: c.Address, Namespace: "default", Logger: sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler))})
	if err != nil {
		_ = c.Stop()
		return nil, fmt.Errorf("cluster: connect to %s: %w", c.Address, err)
	}
	c.c = cl
	return c, nil
}

// Fresh is a cluster in a state directory of its own (TempDir) whose Stop
// removes that directory too: one per test or benchmark run, so that no
// run sees another's workflows.
type Fresh struct{ *Cluster }

// StartFresh starts a cluster in a new state directory; o.Dir is ignored.
// Ports left zero are picked free (FreePorts), so a fresh cluster runs
// beside one `make cluster` started. When the start fails, the logs
// (the server's, PostgreSQL's, the schema tool's, the UI's) are kept in
// a directory the error names, and the rest is removed.
func StartFresh(ctx context.Context, o Options) (*Fresh, error) {
	dir, err := TempDir()
	if err != nil {
		return nil, err
	}
	o.Dir = dir
	if o.Port == 0 {
		if o.Port, err = FreePorts(); err != nil {
			return nil, err
		}
	}
	for _, p := range []*int{&o.PGPort, &o.UIPort} {
		if *p == 0 {
			if *p, err = devserver.FreePort(); err != nil {
				return nil, fmt.Errorf("cluster: a free port: %w", err)
			}
		}
	}
	c, err := Start(ctx, o)
	if err != nil {
		kept, kerr := keepLogs(dir)
		_ = os.RemoveAll(dir)
		if kerr != nil {
			return nil, fmt.Errorf("%w (its logs could not be kept: %v)", err, kerr)
		}
		return nil, fmt.Errorf("%w\nthe failed cluster's logs are kept in %s (%s there stands for it)", err, kept, dir)
	}
	return &Fresh{c}, nil
}

// FreePorts picks a frontend port whose whole set is free: the script
// gives the frontend, history, matching and worker services that port and
// the ones just above it (+1, +2, +6, the HTTP API +10, metrics +767),
// and membership the seven ports from 300 below it.
func FreePorts() (int, error) {
	offsets := []int{0, 1, 2, 6, 10, 767}
	for i := range 7 {
		offsets = append(offsets, -300+i)
	}
	for range 50 {
		p, err := devserver.FreePort()
		if err != nil {
			return 0, fmt.Errorf("cluster: a free port: %w", err)
		}
		if p < 1024+300 || p+767 > 65535 {
			continue
		}
		free := true
		for _, off := range offsets {
			l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p+off)))
			if err != nil {
				free = false
				break
			}
			l.Close()
		}
		if free {
			return p, nil
		}
	}
	return 0, errors.New("cluster: no free set of ports for the Temporal services found in 50 tries")
}

// keepLogs copies the *.log files under dir into a new directory, at
// the same relative paths, and returns it.
func keepLogs(dir string) (string, error) {
	kept, err := os.MkdirTemp("", "notebridge-cluster-failed-")
	if err != nil {
		return "", err
	}
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".log") {
			return nil // best effort: the data directories may not be ours to read
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if err := os.MkdirAll(filepath.Join(kept, filepath.Dir(rel)), 0o700); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(kept, rel), raw, 0o600)
	})
	return kept, err
}

// Stop stops the cluster and removes its state.
func (f *Fresh) Stop() error { return f.Clean() }

// script runs scripts/cluster.sh with args and returns its standard
// output; its progress lines go to the log. A failure carries the
// script's last words (they say what to run).
func (c *Cluster) script(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(c.root, "scripts", "cluster.sh"), args...)
	cmd.Dir = c.root
	cmd.Env = append(os.Environ(), c.env...)
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = io.MultiWriter(&errb, c.log)
	cmd.WaitDelay = 10 * time.Second
	if err := cmd.Run(); err != nil {
		return out.String(), &ScriptError{Command: strings.Join(args, " "), Output: strings.TrimSpace(errb.String()), Err: err}
	}
	return out.String(), nil
}

// ScriptError is a failed run of the script: Output is what it said.
type ScriptError struct {
	Command string
	Output  string
	Err     error
}

func (e *ScriptError) Error() string {
	return fmt.Sprintf("scripts/cluster.sh %s: %v: %s", e.Command, e.Err, lastLine(e.Output))
}

func (e *ScriptError) Unwrap() error { return e.Err }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// vars reads the script's KEY=VALUE description of the cluster.
func (c *Cluster) vars(ctx context.Context) (map[string]string, error) {
	out, err := c.script(ctx, "env")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			m[k] = v
		}
	}
	return m, nil
}

// Check reports whether the server answers and both databases have the
// schema the server needs; its error says what to run.
func (c *Cluster) Check(ctx context.Context) error {
	_, err := c.script(ctx, "check")
	return err
}

// Client returns the client connected at Start. It outlives restarts of
// the server and of PostgreSQL: the SDK reconnects.
func (c *Cluster) Client() client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.c
}

// HostPort is the frontend's gRPC address.
func (c *Cluster) HostPort() string { return c.Address }

// Restart stops the Temporal server process and starts it again on the
// same database, waiting until it answers.
func (c *Cluster) Restart(ctx context.Context) error {
	_, err := c.script(ctx, "restart-server")
	return err
}

// RestartDatabase stops PostgreSQL (a fast shutdown: connections are
// cut, in-flight transactions rolled back) and starts it again.
func (c *Cluster) RestartDatabase(ctx context.Context) error {
	_, err := c.script(ctx, "restart-postgres")
	return err
}

// Stop closes the client and stops every process of the cluster, keeping
// its data.
func (c *Cluster) Stop() error {
	c.mu.Lock()
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, err := c.script(ctx, "stop")
	return err
}

// Clean stops the cluster and removes its state directory; the Cluster
// cannot be used afterwards.
func (c *Cluster) Clean() error {
	if err := c.Stop(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := c.script(ctx, "clean")
	return err
}

// ServerPID is the Temporal server's process ID, for CPU figures.
func (c *Cluster) ServerPID(ctx context.Context) (int, error) {
	vars, err := c.vars(ctx)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(vars["SERVER_PID"])
	if err != nil {
		return 0, fmt.Errorf("cluster: no Temporal server process (%q)", vars["SERVER_PID"])
	}
	return pid, nil
}

// Writes are PostgreSQL's cumulative counters for the two Temporal
// databases: rows inserted, updated and deleted, and transactions
// committed.
type Writes struct {
	Rows, Commits int64
}

// Sub is the writes between then and w.
func (w Writes) Sub(then Writes) Writes {
	return Writes{Rows: w.Rows - then.Rows, Commits: w.Commits - then.Commits}
}

// PGWrites reads PostgreSQL's write counters (pg_stat_database).
func (c *Cluster) PGWrites(ctx context.Context) (Writes, error) {
	out, err := c.script(ctx, "pg-writes")
	if err != nil {
		return Writes{}, err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return Writes{}, fmt.Errorf("cluster: pg-writes said %q", out)
	}
	rows, err1 := strconv.ParseInt(f[0], 10, 64)
	commits, err2 := strconv.ParseInt(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return Writes{}, fmt.Errorf("cluster: pg-writes said %q: %w", out, err)
	}
	return Writes{Rows: rows, Commits: commits}, nil
}
