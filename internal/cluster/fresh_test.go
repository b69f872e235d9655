package cluster

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// fakeScript is a scripts/cluster.sh whose start fails as a server that
// cannot bind its port does, after writing its log.
const fakeScript = `#!/usr/bin/env bash
dir=$NOTEBRIDGE_CLUSTER_DIR
case "$1" in
env) echo "ADDRESS=127.0.0.1:${NOTEBRIDGE_CLUSTER_PORT:-17233}"; echo "DIR=$dir" ;;
start)
  mkdir -p "$dir/temporal" "$dir/postgres"
  echo "frontend ${NOTEBRIDGE_CLUSTER_PORT:-17233} pg ${NOTEBRIDGE_CLUSTER_PG_PORT:-25432} ui ${NOTEBRIDGE_CLUSTER_UI_PORT:-18233}: bind: address already in use" >"$dir/temporal/server.log"
  echo "postgres says hello" >"$dir/postgres/postgres.log"
  echo "cluster: the Temporal server exited at start: see $dir/temporal/server.log" >&2
  exit 1 ;;
stop|clean) ;;
esac
`

// TestFreshClusterOnItsOwnPortsKeepsAFailedStartsLogs: a fresh cluster
// takes ports of its own, not the defaults a running `make cluster`
// holds, and a start that fails leaves the server's log (and the
// others) in a directory the error names, not in the removed state
// directory the script pointed at.
func TestFreshClusterOnItsOwnPortsKeepsAFailedStartsLogs(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "scripts", "cluster.sh"), []byte(fakeScript), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := StartFresh(ctx, Options{Root: root})
	if err == nil {
		t.Fatal("the failing start succeeded")
	}
	t.Log(err)
	m := regexp.MustCompile(`logs are kept in (\S+) \((\S+) there`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the error names no kept logs: %v", err)
	}
	kept, state := m[1], m[2]
	t.Cleanup(func() { os.RemoveAll(kept) })
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("the state directory %s is still there (%v)", state, err)
	}
	log, err := os.ReadFile(filepath.Join(kept, "temporal", "server.log"))
	if err != nil {
		t.Fatalf("the server's log was not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(kept, "postgres", "postgres.log")); err != nil {
		t.Errorf("PostgreSQL's log was not kept: %v", err)
	}
	for _, def := range []string{"frontend 17233 ", "pg 25432 ", "ui 18233:"} {
		if strings.Contains(string(log), def) {
			t.Errorf("the fresh cluster took a default port (%s), which `make cluster` holds: %s", strings.TrimSpace(def), log)
		}
	}
}
