package deploy

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// runSearchAttributes runs deploy/compose/search-attributes.sh (the
// compose job's script) with sh and the temporal CLI, as admin-tools does.
func runSearchAttributes(t *testing.T, env ...string) (stdout, stderr string, err error) {
	t.Helper()
	cli, err := devserver.FindCLI()
	if err != nil {
		t.Skipf("no temporal CLI to run the script with: %v", err)
	}
	cmd := exec.Command("sh", filepath.Join("..", "..", "deploy", "compose", "search-attributes.sh"))
	cmd.Env = append(os.Environ(), append([]string{"TEMPORAL_CLI=" + cli}, env...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// TestSearchAttributeJobRegistersOnceAndRepeatsSafely runs the job's
// script on a fresh namespace of a dev server twice: the first run creates
// the namespace and registers every search attribute the workflows upsert
// as a Keyword, the second finds them all and changes nothing.
func TestSearchAttributeJobRegistersOnceAndRepeatsSafely(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{})
	const ns = "compose-job"
	env := []string{"TEMPORAL_ADDRESS=" + srv.HostPort(), "TEMPORAL_NAMESPACE=" + ns}

	out, errOut, err := runSearchAttributes(t, env...)
	if err != nil {
		t.Fatalf("first run: %v\n%s\n%s", err, out, errOut)
	}
	if !strings.Contains(out, "created namespace "+ns) {
		t.Errorf("first run did not say it created namespace %s:\n%s", ns, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := srv.Client().OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for key := range workflows.SearchAttributes().GetUntypedValues() {
		names = append(names, key.GetName())
	}
	if len(names) == 0 {
		t.Fatal("workflows.SearchAttributes is empty")
	}
	for _, name := range names {
		if got := resp.GetCustomAttributes()[name]; got != enumspb.INDEXED_VALUE_TYPE_KEYWORD {
			t.Errorf("after the job, %s is %v, want Keyword", name, got)
		}
	}

	out, errOut, err = runSearchAttributes(t, env...)
	if err != nil {
		t.Fatalf("second run: %v\n%s\n%s", err, out, errOut)
	}
	for _, name := range names {
		if !strings.Contains(out, name+" is registered") || strings.Contains(out, "registered "+name) {
			t.Errorf("second run should find %s registered and register nothing:\n%s", name, out)
		}
	}
	if strings.Contains(out, "created namespace") {
		t.Errorf("second run created the namespace again:\n%s", out)
	}
}

// TestSearchAttributeJobFailsLoudly points the script at a port nobody
// listens on: it must exit non-zero with the CLI's reason on stderr, so
// compose keeps the workers from starting.
func TestSearchAttributeJobFailsLoudly(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	out, errOut, err := runSearchAttributes(t, "TEMPORAL_ADDRESS="+addr, "SETUP_ATTEMPTS=1")
	if err == nil {
		t.Fatalf("the job succeeded with no server at %s:\n%s", addr, out)
	}
	if !strings.Contains(errOut, "giving up") || !strings.Contains(errOut+out, "connection refused") {
		t.Errorf("the job's failure does not say why:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}
