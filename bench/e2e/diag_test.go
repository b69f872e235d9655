package e2e

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
)

func TestDiag(t *testing.T) {
	if os.Getenv("E2E_DIAG") == "" {
		t.Skip()
	}
	ctx := context.Background()
	root, _ := filepath.Abs("../..")
	h := &Harness{Root: root, Dir: "/tmp/e2ediag", Log: slog.Default()}
	if err := h.Build(ctx); err != nil {
		t.Fatal(err)
	}
	secs, _ := strconv.Atoi(os.Getenv("E2E_SP"))
	pp, _ := strconv.Atoi(os.Getenv("E2E_PP"))
	u := User{Name: "bulk", Spec: graph.GenSpec{Seed: 1, Owner: "bulk", Notebooks: 1, SectionsPerContainer: 10, PagesPerSection: 30, ImagesPerPage: 1, AttachmentsPerPage: 1}}
	unlimited := graph.UnlimitedLimits()
	spec := raisedSpec()
	st, err := h.Start(ctx, StackConfig{Name: "diag", Profile: "onenote", Scale: 1, GraphLimits: &unlimited, LimiterSpec: &spec, Users: []User{u}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Stop()
	m, err := st.StartMigration(ctx, u.Name, MigrateOptions{SectionParallelism: secs, PageParallelism: pp})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Await(ctx, []*Migration{m}, AwaitOptions{Horizon: 5 * time.Minute}); err != nil {
		t.Fatal(err)
	}
	log := st.GraphLog(m.Started)
	ts := Times(log, nil)
	t.Logf("sp=%d pp=%d took %v, pages %d, requests %d, first %v last %v rate %.1f/s", secs, pp, m.Ended.Sub(m.Started), len(st.PagesDone(m.Started)), len(ts),
		ts[0], ts[len(ts)-1], float64(len(ts))/(ts[len(ts)-1]-ts[0]).Seconds())
}
