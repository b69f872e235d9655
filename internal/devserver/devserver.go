// Package devserver starts real Temporal dev servers (`temporal server
// start-dev`, from the project-local temporal CLI) for integration tests and
// benchmarks: free loopback ports, a fresh SQLite file, a connected client,
// and a clean stop.
//
// The CLI is found at $NOTEBRIDGE_TEMPORAL_CLI or at bin/temporal in the
// module root; `make temporal` builds it there. Integration tests fail, with
// that instruction, when it is missing, and skip under `go test -short`.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
)

// EnvCLI names the environment variable that overrides the CLI's path.
const EnvCLI = "NOTEBRIDGE_TEMPORAL_CLI"

// Options configures a dev server. The zero value is a headless server on
// free ports with a fresh database in a temporary directory.
type Options struct {
	// DBFile is the SQLite file the server keeps its state in, so that
	// Restart keeps every workflow. Empty means an in-memory database,
	// which is much faster (no disk sync per workflow task) but does not
	// survive Restart.
	DBFile string
	// UI enables the Web UI, on the gRPC port + 1000 unless UIPort is set.
	UI bool
	// UIPort overrides the Web UI port.
	UIPort int
	// SearchAttributes are registered at start.
	SearchAttributes temporal.SearchAttributes
	// DynamicConfig values, as KEY=JSON.
	DynamicConfig []string
	// Log receives the server's output; nil discards it.
	Log io.Writer
}

// LowLatencyConfig are the dynamic config values (KEY=JSON) every server
// started here gets, and the ones the README tells operators to pass to
// `temporal server start-dev`. The history service polls each shard's
// transfer and timer queues at most 20 times a second by default; the dev
// server has one shard, so every signal between workflows and every timer
// waited up to 50 ms for the next poll. Raising the rate took the limiter
// entity's permit round trip on an idle server from a p50 of 200 ms to
// about 20 ms (bench/cmd/limiterbench -requesters 1).
//
// The timer queue also refuses to schedule a task to fire sooner than
// timerProcessorMaxTimeShift (a second by default) from now, a margin for
// clock skew between history hosts, so every timer shorter than a second
// fired after a second. The limiter entity's wake-ups, when a window
// slides, are such timers under time-scaled limits (bench/e2e found
// one-second stalls); a single-host server needs no such margin.
func LowLatencyConfig() []string {
	return []string{
		"history.transferProcessorMaxPollRPS=1000",
		"history.timerProcessorMaxPollRPS=1000",
		"history.visibilityProcessorMaxPollRPS=1000",
		`history.timerProcessorMaxTimeShift="10ms"`,
	}
}

// Server is a running dev server.
type Server struct {
	opts     Options
	cliPath  string
	hostPort string
	proc     *process
}

// FindCLI returns the path of the temporal CLI, or an error that says how
// to install it.
func FindCLI() (string, error) {
	if p := os.Getenv(EnvCLI); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("devserver: %s=%s: %w", EnvCLI, p, err)
		}
		return p, nil
	}
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	p := filepath.Join(root, "bin", "temporal")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("devserver: no temporal CLI at %s: run `make temporal` in %s (or set %s)", p, root, EnvCLI)
	}
	return p, nil
}

// ModuleRoot is the directory holding the application's go.mod, found
// above the working directory.
func ModuleRoot() (string, error) { return moduleRoot() }

// moduleRoot walks up from the working directory to the directory holding
// the application's go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("devserver: %w", err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && isAppModule(data) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("devserver: cannot find the notebridge module root above the working directory")
		}
		dir = parent
	}
}

func isAppModule(gomod []byte) bool {
	const want = "module github.com/notebridge/notebridge\n"
	return len(gomod) >= len(want) && string(gomod[:len(want)]) == want
}

// StartAttempts is how many ports a dev server is started on before giving
// up. A port found free can be taken by another process before the server
// binds it; the server then exits at once ("address already in use") and
// the next port is tried.
const StartAttempts = 3

// Start starts a dev server on a free port and waits until it accepts
// clients. If the server exits while starting, Start tries another port,
// and its error carries the end of the server's output.
func Start(ctx context.Context, opts Options) (*Server, error) {
	cli, err := FindCLI()
	if err != nil {
		return nil, err
	}
	var errs []error
	for range StartAttempts {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		s := &Server{opts: opts, cliPath: cli, hostPort: net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
		err = s.start(ctx)
		if err == nil {
			return s, nil
		}
		errs = append(errs, err)
		if !errors.Is(err, ErrExited) {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// ErrExited is wrapped by the errors of a server that exited before it
// accepted clients.
var ErrExited = errors.New("the dev server exited while starting")

// args is the CLI's command line for this server.
func (s *Server) args() ([]string, error) {
	host, port, err := net.SplitHostPort(s.hostPort)
	if err != nil {
		return nil, fmt.Errorf("devserver: %w", err)
	}
	args := []string{
		"server", "start-dev",
		"--ip", host, "--port", port,
		"--namespace", "default",
		"--log-level", "error",
		"--dynamic-config-value", "frontend.enableServerVersionCheck=false",
		"--dynamic-config-value", "system.forceSearchAttributesCacheRefreshOnRead=true",
	}
	for _, kv := range append(LowLatencyConfig(), s.opts.DynamicConfig...) {
		args = append(args, "--dynamic-config-value", kv)
	}
	if !s.opts.UI {
		args = append(args, "--headless")
	}
	if s.opts.UIPort != 0 {
		args = append(args, "--ui-port", strconv.Itoa(s.opts.UIPort))
	}
	if s.opts.DBFile != "" {
		args = append(args, "--db-filename", s.opts.DBFile)
	}
	for key := range s.opts.SearchAttributes.GetUntypedValues() {
		args = append(args, "--search-attribute", key.GetName()+"="+key.GetValueType().String())
	}
	return args, nil
}

func (s *Server) start(ctx context.Context) error {
	args, err := s.args()
	if err != nil {
		return err
	}
	p, err := startProcess(s.cliPath, args, s.opts.Log)
	if err != nil {
		return fmt.Errorf("devserver: start %s: %w", s.hostPort, err)
	}
	if err := p.dial(ctx, s.hostPort); err != nil {
		p.stop()
		return fmt.Errorf("devserver: start %s: %w", s.hostPort, err)
	}
	s.proc = p
	return nil
}

// Client returns a client connected to the server's default namespace. It
// is closed by Stop; after Restart, call Client again.
func (s *Server) Client() client.Client { return s.proc.client }

// HostPort is the server's gRPC address.
func (s *Server) HostPort() string { return s.hostPort }

// Stop closes the client and stops the server, waiting for it to exit.
func (s *Server) Stop() error {
	if s.proc == nil {
		return nil
	}
	err := s.proc.stop()
	s.proc = nil
	return err
}

// Restart stops the server and starts it again on the same port and
// database file, as an operator restarting Temporal would. It needs
// Options.DBFile.
func (s *Server) Restart(ctx context.Context) error {
	if s.opts.DBFile == "" {
		return errors.New("devserver: Restart needs a database file (Options.DBFile)")
	}
	if err := s.Stop(); err != nil {
		return err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := s.start(ctx)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// ForTest starts a server for one test and stops it when the test ends. It
// skips under -short and fails, saying how to install the CLI, when the CLI
// is missing.
func ForTest(t testing.TB, opts Options) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test: needs a Temporal dev server (skipped with -short)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("devserver: stop: %v", err)
		}
	})
	return s
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("devserver: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// quietLogger drops the SDK client's own chatter during server start.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
