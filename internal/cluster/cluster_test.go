package cluster

import (
	"context"
	"errors"
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// live enables the tests that start a real cluster (minutes: the first
// one builds the server). `make cluster-test` sets it.
var live = flag.Bool("cluster", false, "start a PostgreSQL + Temporal cluster for the tests that need one (make cluster-test)")

// forTest starts a cluster for the test on ports of its own and a state
// directory of its own, and removes it when the test ends. It skips
// unless -cluster is given.
func forTest(t *testing.T) *Cluster {
	t.Helper()
	if !*live {
		t.Skip("starts a PostgreSQL + Temporal cluster: run `make cluster-test` (go test -args -cluster)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	c, err := StartFresh(ctx, Options{Bin: os.Getenv("NOTEBRIDGE_CLUSTER_BIN"), Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Errorf("clean: %v", err)
		}
	})
	return c.Cluster
}

// testLog sends the script's progress lines to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestCheckSaysWhatToRunWhenNothingAnswers runs the check against a port
// no server listens on.
func TestCheckSaysWhatToRunWhenNothingAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the temporal CLI (skipped with -short)")
	}
	if _, err := devserver.FindCLI(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := Open(ctx, Options{Dir: t.TempDir(), Port: freePort(t), PGPort: freePort(t)})
	if err != nil {
		t.Fatal(err)
	}
	err = c.Check(ctx)
	var se *ScriptError
	if !errors.As(err, &se) {
		t.Fatalf("check on a port nobody listens on: %v; want a ScriptError", err)
	}
	for _, want := range []string{"no Temporal server answers on " + c.Address, "make cluster"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("check said %q; want it to say %q", err, want)
		}
	}
}

// TestClusterLifecycle starts a cluster and checks what `make cluster`
// promises: the server answers with the schema it needs, the default
// namespace has the workflows' search attributes, the server and
// PostgreSQL can each be restarted under a connected client, a schema
// older than the server's is reported with what to run, and stopping
// leaves no process behind.
func TestClusterLifecycle(t *testing.T) {
	c := forTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := c.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(c.ServerVersion) || !strings.HasPrefix(c.UI, "http://127.0.0.1:") {
		t.Errorf("server version %q, UI %q", c.ServerVersion, c.UI)
	}

	sa, err := c.Client().OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: "default"})
	if err != nil {
		t.Fatal(err)
	}
	for k := range workflows.SearchAttributes().GetUntypedValues() {
		if _, ok := sa.GetCustomAttributes()[k.GetName()]; !ok {
			t.Errorf("search attribute %s is not registered (have %v)", k.GetName(), sa.GetCustomAttributes())
		}
	}

	describe := func(when string) {
		t.Helper()
		dctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		for {
			_, err := c.Client().WorkflowService().DescribeNamespace(dctx, &workflowservice.DescribeNamespaceRequest{Namespace: "default"})
			if err == nil {
				return
			}
			if dctx.Err() != nil {
				t.Fatalf("%s: the client cannot reach the server: %v", when, err)
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	pid, err := c.ServerPID(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Restart(ctx); err != nil {
		t.Fatal(err)
	}
	describe("after the server restart")
	if pid2, err := c.ServerPID(ctx); err != nil || pid2 == pid || alive(pid) {
		t.Errorf("server restart: pid %d before, %d (%v) after; old one alive: %v", pid, pid2, err, alive(pid))
	}
	w0, err := c.PGWrites(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.RestartDatabase(ctx); err != nil {
		t.Fatal(err)
	}
	describe("after the PostgreSQL restart")
	if w1, err := c.PGWrites(ctx); err != nil || w1.Commits < w0.Commits || w0.Commits == 0 {
		t.Errorf("PostgreSQL writes %+v before the restart, %+v (%v) after", w0, w1, err)
	}

	// The same check against a server that needs a newer schema.
	bin := t.TempDir()
	schema := "temporal-schema-" + c.ServerVersion
	src := filepath.Join(c.binDir(), schema, "version.go")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(bin, schema), 0o755); err != nil {
		t.Fatal(err)
	}
	newer := regexp.MustCompile(`const Version = "[^"]*"`).ReplaceAll(data, []byte(`const Version = "99.0"`))
	if err := os.WriteFile(filepath.Join(bin, schema, "version.go"), newer, 0o644); err != nil {
		t.Fatal(err)
	}
	o := c.opts
	o.Bin = bin
	other, err := Open(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	err = other.Check(ctx)
	if err == nil || !strings.Contains(err.Error(), "needs 99.0") || !strings.Contains(err.Error(), "make cluster") {
		t.Errorf("check with a schema older than the server's said %v; want it to name both versions and `make cluster`", err)
	}

	pid, _ = c.ServerPID(ctx)
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if alive(pid) {
		t.Errorf("the Temporal server (pid %d) still runs after Stop", pid)
	}
	if conn, err := net.DialTimeout("tcp", c.Address, time.Second); err == nil {
		conn.Close()
		t.Errorf("something still listens on %s after Stop", c.Address)
	}
}

// binDir is where the cluster's binaries are.
func (c *Cluster) binDir() string {
	if c.opts.Bin != "" {
		return c.opts.Bin
	}
	return filepath.Join(c.root, "bin")
}

func alive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
