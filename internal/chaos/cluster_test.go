package chaos

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/stack"
)

// onCluster enables the chaos run on a PostgreSQL + Temporal cluster
// (`make cluster-test`).
var onCluster = flag.Bool("cluster", false, "run the chaos on a PostgreSQL + Temporal cluster (make cluster-test)")

func TestPlanDatabaseRestarts(t *testing.T) {
	const expected = 1000
	for _, n := range []int{0, 1, 3} {
		p := PlanDatabaseRestarts(4, n, expected)
		if len(p) != n || !slices.Equal(p, PlanDatabaseRestarts(4, n, expected)) {
			t.Fatalf("%d restarts: plan %v (or not the same twice)", n, p)
		}
		for i, e := range p {
			if e.Kind != DatabaseRestart || e.At < expected/10 || e.At > expected*9/10 || (i > 0 && e.At <= p[i-1].At) {
				t.Errorf("%d restarts: event %d is %s", n, i, e)
			}
		}
	}
	// One restart lands in the middle, between the server restarts.
	if at := PlanDatabaseRestarts(1, 1, expected)[0].At; at < 450 || at > 550 {
		t.Errorf("a single database restart at %d of %d requests", at, expected)
	}
}

func TestDatabaseRestartNeedsADatabase(t *testing.T) {
	r := &run{o: Options{DatabaseRestarts: 1}.withDefaults(), res: &Result{}, srv: noDatabase{},
		graph: graph.NewServer(graph.Config{Seed: 1})}
	r.restartDatabase(context.Background())
	if len(r.res.Restarts) != 1 || !strings.Contains(r.res.Restarts[0].Detail, "no database of its own") || len(r.res.Problems) != 1 {
		t.Errorf("a database restart on a server without one: %+v, problems %v", r.res.Restarts, r.res.Problems)
	}
}

// noDatabase is a Server without a database of its own, as the dev
// server is.
type noDatabase struct{ stack.Server }

// TestChaosOnCluster is the chaos run on the production topology: five
// users migrating 40 pages each at once on four worker processes while
// the workers are killed 20 times, the Temporal server process restarted
// twice and PostgreSQL once, each user checked page for page and block
// for block against their notebook.
func TestChaosOnCluster(t *testing.T) {
	if !*onCluster {
		t.Skip("starts a PostgreSQL + Temporal cluster: run `make cluster-test` (go test -args -cluster)")
	}
	var log bytes.Buffer
	res, err := Run(context.Background(), Options{Users: 5, Workers: 4, Pages: 40, Kills: 20, ServerRestarts: 2, DatabaseRestarts: 1,
		Timeout: 45 * time.Minute, Dir: t.TempDir(), Log: &log,
		Server: stack.OnCluster(cluster.Options{Bin: os.Getenv("NOTEBRIDGE_CLUSTER_BIN")})})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var rep bytes.Buffer
	res.WriteText(&rep)
	t.Logf("%s", rep.String())
	if out := os.Getenv("NOTEBRIDGE_CHAOS_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(res.Markdown()), 0o644); err != nil {
			t.Error(err)
		}
	}
	killed := map[int]bool{}
	for _, k := range res.Kills {
		killed[k.Worker] = true
	}
	if len(killed) != 4 {
		t.Errorf("the kills struck %d of the 4 workers", len(killed))
	}
	if len(res.Kills) != 20 || countKind(res.Restarts, ServerRestart) != 2 || countKind(res.Restarts, DatabaseRestart) != 1 {
		t.Errorf("%d kills, %d server and %d database restarts; want 20, 2 and 1", len(res.Kills),
			countKind(res.Restarts, ServerRestart), countKind(res.Restarts, DatabaseRestart))
	}
	if !res.OK() {
		t.Errorf("the chaos run on the cluster failed:\n%s\nprogress:\n%s", strings.Join(res.Problems, "\n"), log.String())
	}
}

func TestReportCountsDatabaseRestartsApart(t *testing.T) {
	r := &Result{Options: Options{Kills: 1, ServerRestarts: 2, DatabaseRestarts: 1}.withDefaults(), Pages: 8,
		Kills: []Fired{{N: 1, Kind: KillAnytime, At: time.Second}},
		Restarts: []Fired{{N: 1, Kind: ServerRestart, At: 2 * time.Second}, {N: 1, Kind: DatabaseRestart, At: 3 * time.Second},
			{N: 2, Kind: ServerRestart, At: 4 * time.Second}}}
	md := r.Markdown()
	for _, want := range []string{"the Temporal server restarted twice and its database (PostgreSQL) once;",
		"1 of 1 worker kills (SIGKILL), 2 of 2 Temporal server restarts, 1 of 1 database restarts", "| database restart |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	ru := &run{o: r.Options, res: r}
	ru.judgeRestarts(func(format string, args ...any) { t.Errorf("judged a problem: "+format, args...) })
	r.Restarts = r.Restarts[:2]
	var problems []string
	ru.judgeRestarts(func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) })
	if len(problems) != 1 || !strings.Contains(problems[0], "1 of 2 server restarts") {
		t.Errorf("one server restart missing: problems %q", problems)
	}
}
