package workerapp

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

func TestParseConfigLimiterShards(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	for _, tc := range []struct {
		env     string
		args    []string
		want    int
		wantErr string
	}{
		{"", nil, 1, ""},
		{"", []string{"-limiter-shards", "16"}, 16, ""},
		{"8", nil, 8, ""},
		{"8", []string{"-limiter-shards=2"}, 2, ""},
		{"", []string{"-limiter-shards", "0"}, 0, "want at least 1"},
	} {
		t.Setenv("NOTEBRIDGE_LIMITER_SHARDS", tc.env)
		c, err := parseConfig(append([]string{"-app-id", "a", "-token-dir", "/tmp/t"}, tc.args...))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("env %q, %v: error %v, want %q", tc.env, tc.args, err, tc.wantErr)
			}
		case err != nil || c.LimiterShards != tc.want:
			t.Errorf("env %q, %v: LimiterShards %d (%v), want %d", tc.env, tc.args, c.LimiterShards, err, tc.want)
		}
	}
}

// TestWorkerMigratesThroughLimiterShards runs the worker with
// -limiter-shards 4 and migrates a notebook: every Graph request the
// emulator received had a permit from the user's shard, the coordinator
// leased the app budget, and the single limiter entity never ran.
func TestWorkerMigratesThroughLimiterShards(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{SearchAttributes: workflows.SearchAttributes(), DynamicConfig: devserver.LowLatencyConfig()})
	g := graph.NewServer(graph.Config{Seed: 1, TimeScale: 60})
	nbs := graph.Generate(graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 3})
	g.AddNotebooks("alice", nbs...)
	gts := httptest.NewServer(g)
	defer gts.Close()
	n := notionemu.NewServer(notionemu.Config{Seed: 1, Rate: 20, Burst: 20})
	nts := httptest.NewServer(n)
	defer nts.Close()
	_, cfg := signedInStore(t, g, gts.URL)
	cfg.TemporalAddress, cfg.Namespace, cfg.TaskQueue = srv.HostPort(), "default", "worker-shards-test"
	cfg.GraphURL, cfg.NotionURL, cfg.NotionToken, cfg.NotionRate = gts.URL+"/v1.0", nts.URL, n.IssueToken(), 20
	cfg.Limits, cfg.StagingDir, cfg.GraphTimeout = "onenote-x60", t.TempDir(), 10*time.Second
	cfg.NotionPacing = pacingProcess
	cfg.LimiterShards = 4
	var err error
	if cfg.NotionSpec, err = notionSpec(cfg); err != nil {
		t.Fatal(err)
	}
	defer runWorker(t, cfg)()

	c := srv.Client()
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	run, err := c.ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: "migrate/alice", TaskQueue: cfg.TaskQueue},
		workflows.MigrateNotebookName, workflows.MigrateInput{User: "alice", Notebook: nbs[0].ID, NotionParent: n.RootPageID(), Limits: cfg.Limits})
	if err != nil {
		t.Fatal(err)
	}
	var rep workflows.NotebookReport
	if err := run.Get(wctx, &rep); err != nil {
		t.Fatalf("migration: %v", err)
	}
	if rep.Written != 6 || rep.FailedPages != 0 {
		t.Errorf("migration wrote %d pages with %d failed; want 6 and none", rep.Written, rep.FailedPages)
	}
	id := entity.ShardWorkflowID(workflows.LimiterResource, cfg.AppID, "alice", cfg.LimiterShards)
	v, err := c.QueryWorkflow(context.Background(), id, "", entity.QueryState)
	if err != nil {
		t.Fatalf("query alice's shard %s: %v", id, err)
	}
	var st entity.State
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	gs := g.Stats()
	got := gs.Users["alice"].Requests
	t.Logf("Graph: %d requests for alice; shard %s: %d permits, %d runs", got, id, st.Stats.Units["alice"], st.Stats.Runs)
	if got == 0 || got > int64(st.Stats.Units["alice"]) {
		t.Errorf("the emulator received %d requests for alice, her shard granted %d permits", got, st.Stats.Units["alice"])
	}
	if gs.Throttled != 0 {
		t.Errorf("upstream throttled %d requests", gs.Throttled)
	}
	if _, err := c.DescribeWorkflow(context.Background(), entity.CoordinatorWorkflowID(workflows.LimiterResource, cfg.AppID), ""); err != nil {
		t.Errorf("the coordinator did not run: %v", err)
	}
	if _, err := c.DescribeWorkflow(context.Background(), entity.WorkflowID(workflows.LimiterResource, cfg.AppID), ""); err == nil {
		t.Error("the single limiter entity ran, want only the shards")
	}
}
