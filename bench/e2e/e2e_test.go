package e2e

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/workflows"
)

// TestHarnessSmoke runs the harness end to end on a tiny notebook: the
// worker built and started as a process, a migration under the limiter at
// a fast time scale, a scan, and every figure the scenarios read.
func TestHarnessSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal dev server and builds the worker (skipped with -short)")
	}
	if _, err := devserver.FindCLI(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{Root: root, Dir: t.TempDir(), Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if err := h.Build(ctx); err != nil {
		t.Fatal(err)
	}
	const scale = 600
	u := User{Name: "smoke", Spec: graph.GenSpec{Seed: 1, Owner: "smoke", Notebooks: 1, SectionsPerContainer: 2,
		PagesPerSection: 4, ImagesPerPage: 1, AttachmentsPerPage: 1}}
	st, err := h.Start(ctx, StackConfig{Name: "smoke", Profile: "onenote-x600", Scale: scale, Users: []User{u}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Stop()

	lat, scan, err := st.Scan(ctx, u.Name, "scan/smoke")
	if err != nil {
		t.Fatal(err)
	}
	if len(scan.Notebooks) != 1 || scan.Notebooks[0].Pages != 8 || scan.Requests != 3 || lat <= 0 {
		t.Fatalf("scan: %+v in %v; want 1 notebook of 8 pages in 3 requests", scan, lat)
	}
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: 2 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	if !m.Completed || m.Report.Written != 8 || m.Report.FailedPages != 0 {
		t.Fatalf("migration completed %v, report %+v; want 8 pages written", m.Completed, m.Report)
	}
	done := st.PagesDone(m.Started)
	if len(done) != 8 {
		t.Fatalf("Notion saw %d pages marked done, want 8", len(done))
	}
	log := st.GraphLog(m.Started)
	// The tree, one listing per section, and 3 requests a page; the scan's
	// 3 came before the migration started.
	var during int
	for _, r := range log {
		if r.At >= 0 {
			during++
		}
		if r.Throttled() {
			t.Errorf("a request was throttled: %+v", r)
		}
	}
	if want := 1 + 2 + 8*3; during != want {
		t.Errorf("Graph requests during the migration %d, want %d", during, want)
	}
	if v := st.Graph.Violations(); len(v) != 0 {
		t.Errorf("the referee found violations: %+v", v)
	}
	for _, d := range done {
		if d <= 0 || d > m.Ended.Sub(m.Started) {
			t.Errorf("page done at %v, outside the migration (0 to %v)", d, m.Ended.Sub(m.Started))
		}
	}
	hist, err := st.ReadHistories(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if hist.Runs[workflows.MigrateNotebookName] != 1 || hist.Runs[workflows.MigrateSectionName] != 2 || hist.Runs[workflows.ScanNotebooksName] != 1 {
		t.Errorf("runs per type %v, want 1 notebook, 2 sections, 1 scan", hist.Runs)
	}
	if a := hist.Actions(); a.Activities < 8*4 || a.Signals == 0 || a.WorkflowTasks == 0 {
		t.Errorf("actions %+v: want at least 4 activities a page, some signals and workflow tasks", a)
	}
	pid := st.Worker.PID()
	usage, err := st.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if usage.CPU <= 0 || usage.HWM < 10<<20 {
		t.Errorf("worker usage %+v: want some CPU and a peak RSS of at least 10 MiB", usage)
	}
	if _, err := os.Stat(filepath.Join("/proc", itoa(pid))); err == nil {
		t.Errorf("worker %d still runs after Stop", pid)
	}
}
