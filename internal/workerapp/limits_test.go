package workerapp

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.temporal.io/sdk/worker"

	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/workflows"
)

// writeLimits writes a limits file named name into dir and returns its
// path.
func writeLimits(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// limitsSpec is a good limits file: a scaled-down table that keeps the
// OneNote tuning it leaves out.
const limitsSpec = `{
  "name": "from-file",
  "user": {"windows": [{"limit": 60, "per": "1m"}, {"limit": 200, "per": "1h"}], "concurrency": 3},
  "app": {"windows": [{"limit": 120, "per": "1m"}], "concurrency": 7},
  "tuning": {"cooldown": "20s"}
}`

// TestParseConfigLimitsFile: -limits-file (or NOTEBRIDGE_LIMITS_FILE)
// loads the spec, and a file that cannot be used stops the worker with
// the file's name and what is wrong with it.
func TestParseConfigLimitsFile(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	t.Setenv("NOTEBRIDGE_LIMITS_FILE", "")
	dir := t.TempDir()
	good := writeLimits(t, dir, "good.json", limitsSpec)
	unknown := writeLimits(t, dir, "unknown.json", `{"user": {"windows": [{"limit": 60, "per": "1m"}], "concurrency": 3, "burst": 10}}`)
	negative := writeLimits(t, dir, "negative.json", `{"app": {"windows": [{"limit": 120, "per": "1m"}, {"limit": -5, "per": "1h"}], "concurrency": 7}}`)
	missing := filepath.Join(dir, "missing.json")
	base := []string{"-app-id", "a", "-token-dir", "/tmp/t"}

	c, err := parseConfig(append(base, "-limits-file", good))
	if err != nil {
		t.Fatal(err)
	}
	s := c.LimitsSpec
	switch {
	case s == nil:
		t.Fatal("no spec loaded")
	case s.Name != "from-file" || s.User.Concurrency != 3 || s.App.Concurrency != 7 || len(s.App.Windows) != 1 || s.App.Windows[0].Limit != 120:
		t.Errorf("spec = %+v", s)
	case s.Tuning.Cooldown.D() != 20*time.Second || s.Tuning.LeaseTTL.D() != 2*time.Minute:
		t.Errorf("tuning = %+v, want the file's cooldown and the default lease TTL", s.Tuning)
	}
	if c, err := parseConfig(base); err != nil || c.LimitsSpec != nil {
		t.Errorf("no file: spec %v, error %v; want neither", c.LimitsSpec, err)
	}
	t.Setenv("NOTEBRIDGE_LIMITS_FILE", good)
	if c, err := parseConfig(base); err != nil || c.LimitsSpec == nil || c.LimitsSpec.Name != "from-file" {
		t.Errorf("NOTEBRIDGE_LIMITS_FILE: spec %v, error %v", c.LimitsSpec, err)
	}
	t.Setenv("NOTEBRIDGE_LIMITS_FILE", "")

	for _, tc := range []struct {
		name, path, want string
	}{
		{"unknown field", unknown, "-limits-file (or NOTEBRIDGE_LIMITS_FILE): " + unknown + `: limiter: decode spec: json: unknown field "burst"`},
		{"negative limit", negative, "-limits-file (or NOTEBRIDGE_LIMITS_FILE): " + negative + ": limiter: spec: app.windows[1].limit: must be positive, got -5"},
		{"missing file", missing, "-limits-file (or NOTEBRIDGE_LIMITS_FILE): limiter: load spec: open " + missing + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseConfig(append(base, "-limits-file", tc.path))
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestApplyLimits runs the limiter entity on a dev server: the worker's
// limits file starts the app's limiter with its spec, and an edited file
// reaches the running limiter when the worker starts again.
func TestApplyLimits(t *testing.T) {
	srv := devserver.ForTest(t, devserver.Options{})
	c := srv.Client()
	const queue = "limits-test"
	w := worker.New(c, queue, worker.Options{})
	entity.Register(w, c)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	dir := t.TempDir()
	for _, tc := range []struct {
		body, wantName string
		wantConc       int
	}{
		{limitsSpec, "from-file", 7},
		{`{"name": "edited", "app": {"windows": [{"limit": 100, "per": "1m"}], "concurrency": 4}}`, "edited", 4},
	} {
		path := writeLimits(t, dir, tc.wantName+".json", tc.body)
		spec, err := loadLimits(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg := config{AppID: "app", TaskQueue: queue, LimitsFile: path, LimitsSpec: spec}
		if err := applyLimits(ctx, c, cfg, quietLog()); err != nil {
			t.Fatal(err)
		}
		var st entity.State
		for st.Model.Spec != tc.wantName {
			if ctx.Err() != nil {
				t.Fatalf("the limiter runs spec %q, want %q", st.Model.Spec, tc.wantName)
			}
			v, err := c.QueryWorkflow(ctx, entity.WorkflowID(workflows.LimiterResource, "app"), "", entity.QueryState)
			if err == nil {
				err = v.Get(&st)
			}
			if err != nil {
				t.Logf("query: %v", err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if st.Model.App.Concurrency != tc.wantConc {
			t.Errorf("%s: app concurrency %d, want %d", tc.wantName, st.Model.App.Concurrency, tc.wantConc)
		}
	}
}
