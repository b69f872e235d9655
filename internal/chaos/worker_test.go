package chaos

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// TestSocketOwner finds the process holding the client end of a loopback
// connection: this test's, not another process's.
func TestSocketOwner(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	other := os.Getppid()
	client, server := conn.LocalAddr().String(), ln.Addr().String()
	if got := socketOwner(client, server, []int{other, os.Getpid()}); got != os.Getpid() {
		t.Errorf("socketOwner(%s -> %s) = %d, want this process %d", client, server, got, os.Getpid())
	}
	if got := socketOwner(client, server, []int{other}); got != 0 {
		t.Errorf("socketOwner among processes without the socket = %d, want 0", got)
	}
	if got := socketOwner("no-port", server, []int{os.Getpid()}); got != 0 {
		t.Errorf("socketOwner of a bad address = %d, want 0", got)
	}
}

// TestWorkersSender kills the worker a request came from, and spreads
// the kills no request names over the workers in turn.
func TestWorkersSender(t *testing.T) {
	sleepBin, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	p := newWorkers(3, t.TempDir())
	if got := filepath.Base(p.ws[2].log); got != "worker-3.log" {
		t.Errorf("the third worker logs to %s", got)
	}
	p.configure(sleepBin, []string{"60"}, nil)
	if err := p.start(); err != nil {
		t.Fatal(err)
	}
	defer p.stop(0)
	var order []int
	for range 4 {
		order = append(order, p.nextVictim().n)
	}
	if want := []int{1, 2, 3, 1}; !slices.Equal(order, want) {
		t.Errorf("kills without a request went to workers %v, want %v", order, want)
	}
	// A request from this process (none of the workers) falls back to
	// the next in turn.
	var got *workerProc
	found := true
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got, found = p.sender(r) }))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got == nil || got.n != 2 || found {
		t.Errorf("a request from no worker went to %+v, want worker 2", got)
	}
	if !p.ws[0].kill() {
		t.Fatal("worker 1 was not running")
	}
	if down := p.down(); len(down) != 1 || down[0].n != 1 || p.upFor() != 0 {
		t.Errorf("after killing worker 1: down %v, least uptime %s", down, p.upFor())
	}
	if p.starts() != 3 {
		t.Errorf("%d incarnations, want 3", p.starts())
	}
}
