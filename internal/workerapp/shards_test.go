package workerapp

import (
	"context"
	"strings"
	"testing"

	notionemu "github.com/notebridge/notebridge/emulator/notion"
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
		{"", []string{"-limiter-users", "40"}, 1, ""},
		{"", []string{"-limiter-users", "41"}, 2, ""},
		{"", []string{"-limiter-users", "10000"}, 250, ""},
		{"1000", nil, 25, ""},
		{"1000", []string{"-limiter-users=3"}, 1, ""},
		{"", []string{"-limiter-users", "0"}, 0, "want at least 1"},
	} {
		t.Setenv("NOTEBRIDGE_LIMITER_USERS", tc.env)
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

// TestWorkerMigratesThroughLimiterShards runs the worker with 4 limiter
// shards (what -limiter-users 160 chooses) and migrates a notebook: every
// Graph request the emulator received had a permit from the user's shard, the coordinator
// leased the app budget, and the single limiter entity never ran.
func TestWorkerMigratesThroughLimiterShards(t *testing.T) {
	stk := newWorkerStack(t, stackSpec{taskQueue: "worker-shards-test", lowLatency: true, sections: 2, pages: 3,
		notion: notionemu.Config{Seed: 1, Rate: 20, Burst: 20}, notionRate: 20, pacing: pacingProcess})
	g, cfg := stk.g, stk.cfg
	cfg.LimiterShards = 4
	defer runWorker(t, cfg)()

	c := stk.srv.Client()
	stk.migrateAlice(t, cfg)
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
