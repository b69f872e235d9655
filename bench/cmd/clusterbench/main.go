// Command clusterbench runs the cost scenario (bench/e2e scenario 6's
// shape: one notebook, limits raised out of reach, so Temporal and the
// worker set the pace) on the dev server and on a PostgreSQL + Temporal
// cluster (scripts/cluster.sh) in one run, and writes the two rows to
// bench/results/cluster.md.
//
//	cd bench && go run ./cmd/clusterbench -pages 1000
//
// It needs the temporal CLI in bin/ (make temporal); the cluster's
// binaries are built into bin/ the first time.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/bench/e2e"
	"github.com/notebridge/notebridge/internal/cluster"
	"github.com/notebridge/notebridge/internal/stack"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "clusterbench:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("clusterbench", flag.ContinueOnError)
	pages := fs.Int("pages", 1000, "pages of the notebook (20 sections)")
	horizon := fs.Duration("horizon", 20*time.Minute, "wall-clock time each migration may take before it is stopped and reported as far as it got")
	out := fs.String("out", "results/cluster.md", "the report (relative to the bench module)")
	work := fs.String("work", filepath.Join(os.TempDir(), "notebridge-clusterbench"), "work directory: the worker binary and each run's logs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := stack.ModuleRoot()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	h := &e2e.Harness{Root: root, Dir: *work, Log: log}
	log.Info("building the worker")
	if err := h.Build(ctx); err != nil {
		return err
	}
	c, err := cluster.Open(ctx, cluster.Options{Root: root})
	if err != nil {
		return err
	}
	runs := []struct {
		name, label string
		start       stack.StartServer
	}{
		{"cost-dev", "dev server (`temporal server start-dev` v1.5.1, in-memory SQLite)", nil},
		{"cost-cluster", fmt.Sprintf("cluster: Temporal server v%s on PostgreSQL 15 (4 history shards)", c.ServerVersion),
			stack.OnCluster(cluster.Options{Root: root, Port: 17633, PGPort: 25732, UIPort: 18633, Bin: os.Getenv("NOTEBRIDGE_CLUSTER_BIN"), Log: stderr})},
	}
	var costs []e2e.Cost
	t0 := time.Now()
	for _, r := range runs {
		log.Info("migrating", "server", r.label, "pages", *pages)
		cost, err := h.MeasureCost(ctx, r.name, r.label, r.start, *pages, *horizon)
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
		log.Info("done", "server", r.label, "pages", cost.Done, "took", cost.Took)
		costs = append(costs, cost)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# The cost scenario on the dev server and on a PostgreSQL cluster\n\n")
	fmt.Fprintf(&b, "`cd bench && go run ./cmd/clusterbench -pages %d` on %s (%s wall-clock for both): one notebook of %d pages "+
		"(20 sections, one image and one attachment a page), the Graph emulator unlimited and the limiter started with limits no run "+
		"reaches, 10 sections and 8 pages a section at a time, so Temporal and the worker set the pace (bench/e2e scenario 6's shape). "+
		"One worker process each. Actions and workflow tasks are counted from every history in the namespace; limiter events are the "+
		"limiter entity's counters; a permit round trip is from the request signal a workflow sent to the grant signal it got, by "+
		"request ID, from the histories; CPU is user+system time of the worker and the Temporal server process from /proc; "+
		"PostgreSQL writes are rows inserted+updated+deleted and commits in the two Temporal databases (pg_stat_database).\n\n",
		*pages, time.Now().UTC().Format("2006-01-02"), time.Since(t0).Round(time.Second), costs[0].Pages)
	b.WriteString(e2e.CostTable(costs))
	if err := os.WriteFile(*out, []byte(b.String()), 0o644); err != nil {
		return err
	}
	fmt.Print(b.String())
	return nil
}
