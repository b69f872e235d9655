package workerapp

import (
	"context"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	tlog "go.temporal.io/sdk/log"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/readiness"
	"github.com/notebridge/notebridge/workflows"
)

// Compile-time check: the worker hands activities what they ask for.
var _ activities.Tokens = storeTokens{}

func TestParseConfig(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	t.Setenv("NOTEBRIDGE_TASK_QUEUE", "q-from-env")
	for _, name := range []string{"NOTEBRIDGE_TOKEN_DIR", "NOTEBRIDGE_TOKEN_KEY_FILE", "NOTEBRIDGE_TENANT", "NOTEBRIDGE_AUTHORITY"} {
		t.Setenv(name, "")
	}
	c, err := parseConfig([]string{"-app-id", "app", "-token-dir", "/tmp/t", "-limits", "onenote-x60"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TaskQueue != "q-from-env" || c.Limits != "onenote-x60" || c.NotionToken != "secret_x" || c.TemporalAddress != "127.0.0.1:7233" {
		t.Errorf("config: %+v", c)
	}
	defKey, _ := auth.DefaultKeyFile()
	if c.TokenDir != "/tmp/t" || c.TokenKeyFile != defKey || c.Tenant != "common" ||
		c.Authority != auth.DefaultAuthority {
		t.Errorf("token store defaults: %+v", c)
	}

	defDir, _ := auth.DefaultDir()
	if c, err := parseConfig([]string{"-app-id", "a"}); err != nil || c.TokenDir != defDir {
		t.Errorf("default token dir: %q, %v; want %q", c.TokenDir, err, defDir)
	}

	t.Setenv("NOTEBRIDGE_TOKEN_DIR", "/env/tokens")
	t.Setenv("NOTEBRIDGE_TOKEN_KEY_FILE", "/env/key")
	t.Setenv("NOTEBRIDGE_TENANT", "organizations")
	t.Setenv("NOTEBRIDGE_AUTHORITY", "http://127.0.0.1:8081")
	c, err = parseConfig([]string{"-app-id", "a"})
	if err != nil {
		t.Fatal(err)
	}
	if c.TokenDir != "/env/tokens" || c.TokenKeyFile != "/env/key" || c.Tenant != "organizations" ||
		c.Authority != "http://127.0.0.1:8081" {
		t.Errorf("settings from the environment: %+v", c)
	}

	for _, tc := range []struct {
		args []string
		want string // in the error
	}{
		{[]string{"-token-dir", "/tmp/t"}, "-app-id"},
		{[]string{"-app-id", "a", "-token-dir", "/tmp/t", "-limits", "fast"}, "-limits"},
		// The benchmarks' baselines are not in the product worker.
		{[]string{"-app-id", "a", "-throttle", "backoff"}, "not defined: -throttle"},
		{[]string{"-app-id", "a", "stray"}, "unexpected arguments"},
	} {
		_, err := parseConfig(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one mentioning %q", tc.args, err, tc.want)
		}
	}
	// The codec server named in refusals of plaintext, and the switch
	// that lets plaintext through.
	t.Setenv("NOTEBRIDGE_CODEC_ENDPOINT", "")
	t.Setenv("NOTEBRIDGE_CODEC_ALLOW_PLAINTEXT", "")
	if c, err := parseConfig([]string{"-app-id", "a"}); err != nil || c.CodecEndpoint != codec.DefaultCodecEndpoint || c.CodecAllowPlaintext {
		t.Errorf("codec defaults: %q %v, %v", c.CodecEndpoint, c.CodecAllowPlaintext, err)
	}
	t.Setenv("NOTEBRIDGE_CODEC_ENDPOINT", "https://codec.example")
	t.Setenv("NOTEBRIDGE_CODEC_ALLOW_PLAINTEXT", "true")
	if c, err := parseConfig([]string{"-app-id", "a"}); err != nil || c.CodecEndpoint != "https://codec.example" || !c.CodecAllowPlaintext {
		t.Errorf("codec settings from the environment: %q %v, %v", c.CodecEndpoint, c.CodecAllowPlaintext, err)
	}
	if c, err := parseConfig([]string{"-app-id", "a", "-codec-allow-plaintext=false"}); err != nil || c.CodecAllowPlaintext {
		t.Errorf("-codec-allow-plaintext=false: %v, %v", c.CodecAllowPlaintext, err)
	}

	var extra string
	if _, err := parseConfigWith([]string{"-app-id", "a", "-extra", "x"}, func(fs *flag.FlagSet) {
		fs.StringVar(&extra, "extra", "", "an extension's flag")
	}); err != nil || extra != "x" {
		t.Errorf("an extension's flag: %q, %v", extra, err)
	}
	t.Setenv("NOTION_TOKEN", "")
	if _, err := parseConfig([]string{"-app-id", "a", "-token-dir", "/tmp/t"}); err == nil || !strings.Contains(err.Error(), "NOTION_TOKEN") {
		t.Errorf("missing Notion token: %v", err)
	}
}

// TestParseConfigSkipInk: skipping ink is a migration's option, not the
// worker's: the former -skip-ink flag and NOTEBRIDGE_SKIP_INK are refused
// with an error that names the new home, and the old opt-in flag is gone.
func TestParseConfigSkipInk(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	for _, tc := range []struct {
		env     string
		args    []string
		wantErr string
	}{
		{"", nil, ""},
		{"", []string{"-skip-ink"}, "starter migrate --skip-ink"},
		{"true", nil, "starter migrate --skip-ink"},
		{"", []string{"-ink"}, "not defined: -ink"},
	} {
		t.Setenv("NOTEBRIDGE_SKIP_INK", tc.env)
		_, err := parseConfig(append([]string{"-app-id", "a", "-token-dir", "/tmp/t"}, tc.args...))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("env %q, %v: error %v, want %q", tc.env, tc.args, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("env %q, %v: %v", tc.env, tc.args, err)
		}
	}
}

func TestParseConfigNotionPacing(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	for _, name := range []string{"NOTEBRIDGE_NOTION_RATE", "NOTEBRIDGE_NOTION_WINDOWS", "NOTEBRIDGE_NOTION_PACING"} {
		t.Setenv(name, "")
	}
	for _, tc := range []struct {
		args    []string
		pacing  string
		windows string // the spec's windows, or the error's text
		fails   bool
	}{
		{nil, pacingShared, "3/1s,180/1m0s", false},
		{[]string{"-notion-rate", "30"}, pacingShared, "30/1s,1800/1m0s", false},
		{[]string{"-notion-rate", "0.5"}, pacingShared, "1/2s,30/1m0s", false},
		{[]string{"-notion-windows", "6/1s, 150/1m"}, pacingShared, "6/1s,150/1m0s", false},
		{[]string{"-notion-pacing", "process", "-notion-rate", "10"}, pacingProcess, "10/1s,600/1m0s", false},
		{[]string{"-notion-rate", "-1"}, "", "-notion-rate", true},
		{[]string{"-notion-windows", "3 per second"}, "", "-notion-windows", true},
		{[]string{"-notion-windows", "0/1s"}, "", "-notion-windows", true},
		{[]string{"-notion-pacing", "global"}, "", `-notion-pacing "global"`, true},
	} {
		c, err := parseConfig(append([]string{"-app-id", "a", "-token-dir", "/tmp/t"}, tc.args...))
		switch {
		case tc.fails:
			if err == nil || !strings.Contains(err.Error(), tc.windows) {
				t.Errorf("%v: error %v, want one mentioning %q", tc.args, err, tc.windows)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case c.NotionPacing != tc.pacing || c.NotionSpec.String() != tc.windows:
			t.Errorf("%v: pacing %q, windows %s; want %q, %s", tc.args, c.NotionPacing, c.NotionSpec, tc.pacing, tc.windows)
		}
	}
}

func TestParseConfigNotionFacts(t *testing.T) {
	t.Setenv("NOTION_TOKEN", "secret_x")
	for _, name := range []string{"NOTEBRIDGE_NOTION_PLAN", "NOTEBRIDGE_NOTION_TOKEN_TYPE", "NOTEBRIDGE_NOTION_BLOCKS_USED", "NOTEBRIDGE_NOTION_MEMBERS"} {
		t.Setenv(name, "")
	}
	for _, tc := range []struct {
		args    []string
		want    readiness.Facts
		wantErr string
	}{
		{nil, readiness.Facts{}, ""},
		{[]string{"-notion-plan", "free", "-notion-token-type", "personal", "-notion-blocks-used", "640", "-notion-members", "4"},
			readiness.Facts{Plan: "free", TokenType: "personal", BlocksUsed: 640, Members: 4}, ""},
		{[]string{"-notion-plan", "team"}, readiness.Facts{}, "-notion-plan: plan \"team\": want free"},
		{[]string{"-notion-token-type", "bot"}, readiness.Facts{}, "-notion-token-type"},
		{[]string{"-notion-blocks-used", "-1"}, readiness.Facts{}, "want counts of at least 0"},
	} {
		c, err := parseConfig(append([]string{"-app-id", "a", "-token-dir", "/tmp/t"}, tc.args...))
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%v: %v", tc.args, err)
		case c.NotionFacts != tc.want:
			t.Errorf("%v: facts %+v, want %+v", tc.args, c.NotionFacts, tc.want)
		}
	}
}

func TestOpenStoreKey(t *testing.T) {
	dir := t.TempDir()
	cfg := config{AppID: "app", TokenDir: filepath.Join(dir, "tokens"), TokenKeyFile: filepath.Join(dir, "token.key"),
		Tenant: auth.TenantCommon, Authority: auth.DefaultAuthority}
	t.Setenv(auth.EnvTokenKey, "")
	_, err := openStore(cfg, quietLog())
	if !errors.Is(err, auth.ErrNoKey) || !strings.Contains(err.Error(), "starter login --user <user> --create-key") ||
		!strings.Contains(err.Error(), auth.EnvTokenKey) {
		t.Errorf("no key: %v; want ErrNoKey saying how to create one", err)
	}
	if err := auth.GenerateKeyFile(cfg.TokenKeyFile); err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(cfg, quietLog()); err != nil {
		t.Errorf("with a key file: %v", err)
	}
	fi, err := os.Stat(cfg.TokenDir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("token directory: %v, %v; want mode 0700", fi, err)
	}
	os.Remove(cfg.TokenKeyFile)
	t.Setenv(auth.EnvTokenKey, base64.StdEncoding.EncodeToString(make([]byte, auth.KeySize)))
	if _, err := openStore(cfg, quietLog()); err != nil {
		t.Errorf("with %s: %v", auth.EnvTokenKey, err)
	}
	t.Setenv(auth.EnvTokenKey, "not a key")
	if _, err := openStore(cfg, quietLog()); err == nil || strings.Contains(err.Error(), "not a key") {
		t.Errorf("bad key: %v; want an error that does not echo the key", err)
	}
	cfg.Tenant = "bad/tenant"
	t.Setenv(auth.EnvTokenKey, "")
	if err := auth.GenerateKeyFile(cfg.TokenKeyFile); err != nil {
		t.Fatal(err)
	}
	if _, err := openStore(cfg, quietLog()); err == nil || !strings.Contains(err.Error(), "tenant") {
		t.Errorf("bad tenant: %v", err)
	}
}

// signedInStore is a token store on the Graph emulator's identity
// endpoints, with alice signed in through the device-code flow.
func signedInStore(t *testing.T, g *graph.Server, authority string) (*auth.Store, config) {
	t.Helper()
	dir := t.TempDir()
	cfg := config{AppID: "app", TokenDir: filepath.Join(dir, "tokens"), TokenKeyFile: filepath.Join(dir, "token.key"),
		Tenant: auth.TenantCommon, Authority: authority}
	if err := auth.GenerateKeyFile(cfg.TokenKeyFile); err != nil {
		t.Fatal(err)
	}
	t.Setenv(auth.EnvTokenKey, "")
	key, err := auth.LoadKey(os.Getenv, cfg.TokenKeyFile)
	if err != nil {
		t.Fatal(err)
	}
	// Sign in as `starter login` does, polling every second instead of
	// the five the identity platform asks for.
	login, err := auth.Open(auth.Config{Dir: cfg.TokenDir, Key: key, PollInterval: time.Second,
		Microsoft: auth.Microsoft{ClientID: cfg.AppID, Authority: authority}})
	if err != nil {
		t.Fatal(err)
	}
	err = login.Login(context.Background(), "alice", func(dc auth.DeviceCode) {
		if err := g.ApproveDeviceCode(dc.UserCode, "alice"); err != nil {
			t.Errorf("approve: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("login: %v", err)
	}
	store, err := openStore(cfg, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	return store, cfg
}

func TestStoreTokens(t *testing.T) {
	g := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	g.AddNotebooks("alice", graph.Generate(graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 2})...)
	ts := httptest.NewServer(g)
	defer ts.Close()
	store, _ := signedInStore(t, g, ts.URL)
	tokens := storeTokens{store: store, timeout: 10 * time.Second}

	src, err := tokens.TokenSource("alice")
	if err != nil {
		t.Fatalf("alice: %v", err)
	}
	if _, ok := src.(onenote.TokenInvalidator); !ok {
		t.Error("the token source does not take 401s (onenote.TokenInvalidator)")
	}
	c, err := onenote.New(onenote.Config{BaseURL: ts.URL + "/v1.0", Tokens: src})
	if err != nil {
		t.Fatal(err)
	}
	list, _, err := c.ListNotebooks(context.Background(), "")
	if err != nil || len(list.Notebooks) != 2 {
		t.Fatalf("list alice's notebooks with the stored token: %d, %v", len(list.Notebooks), err)
	}
	// After Graph rejects the token, the next call refreshes it.
	g.ExpireTokens("alice")
	if _, _, err := c.ListNotebooks(context.Background(), ""); !errors.Is(err, onenote.ErrAuth) {
		t.Fatalf("with the token expired upstream: %v, want a 401", err)
	}
	if _, _, err := c.ListNotebooks(context.Background(), ""); err != nil {
		t.Errorf("after the 401 the token source should refresh: %v", err)
	}

	for _, tc := range []struct {
		user string
		is   error
		want string
	}{
		{"bob", auth.ErrNotSignedIn, `run "starter login --user bob"`},
		{"../alice", auth.ErrInvalidUser, "../alice"},
		{"", auth.ErrInvalidUser, "user"},
	} {
		_, err := tokens.TokenSource(tc.user)
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %v saying %q", tc.user, err, tc.is, tc.want)
		}
	}
}

func TestNeedsPerson(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("x: %w", auth.ErrNotSignedIn), true},
		{fmt.Errorf("x: %w", auth.ErrSignInExpired), true},
		{auth.ErrWrongKey, true},
		{auth.ErrTokenFileInvalid, true},
		{auth.ErrInsecurePermissions, true},
		{errors.New("dial tcp: connection refused"), false},
		{context.DeadlineExceeded, false},
	} {
		if got := needsPerson(tc.err); got != tc.want {
			t.Errorf("needsPerson(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestWorkerScansWithStoredSignIn runs the worker as main does, on a dev
// server with both emulators: a signed-in user's scan reads Graph with the
// stored token; a user who never signed in fails at once, with the
// command that fixes it, and without retrying.
func TestWorkerScansWithStoredSignIn(t *testing.T) {
	stk := newWorkerStack(t, stackSpec{taskQueue: "worker-test", sections: 2, pages: 3,
		notion: notionemu.Config{Seed: 1, Rate: -1}, notionRate: 100})
	srv, g, cfg := stk.srv, stk.g, stk.cfg

	defer runWorker(t, cfg)()

	c := srv.Client()
	scan := func(user string) (workflows.ScanResult, error) {
		wctx, wcancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer wcancel()
		run, err := c.ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: "scan/" + user, TaskQueue: cfg.TaskQueue},
			workflows.ScanNotebooksName, workflows.ScanInput{User: user, Limits: cfg.Limits})
		if err != nil {
			t.Fatal(err)
		}
		var res workflows.ScanResult
		return res, run.Get(wctx, &res)
	}
	res, err := scan("alice")
	if err != nil {
		t.Fatalf("alice's scan: %v", err)
	}
	if len(res.Notebooks) != 1 || res.Notebooks[0].Pages != 6 {
		t.Errorf("alice's scan: %+v, want 1 notebook of 6 pages", res.Notebooks)
	}

	_, err = scan("bob")
	if err == nil || !strings.Contains(err.Error(), `starter login --user bob`) {
		t.Fatalf("bob's scan: %v; want a failure naming \"starter login --user bob\"", err)
	}
	attempts := 0
	iter := c.GetWorkflowHistory(context.Background(), "scan/bob", "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == activities.ListNotebooksName {
			attempts++
		}
	}
	if attempts != 1 {
		t.Errorf("bob's scan tried ListNotebooks %d times; a missing sign-in must fail the first attempt", attempts)
	}
	if st := g.Stats(); st.Users["bob"].Requests != 0 || st.Unauthorized != 0 {
		t.Errorf("Graph saw %d requests for bob and %d unauthorized ones; want none", st.Users["bob"].Requests, st.Unauthorized)
	}
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestWorkerMigratesUnderTheSharedNotionPace runs the worker as main does,
// with the default -notion-pacing shared, and migrates a notebook: every
// Notion request goes through the pace entity of the token's fingerprint,
// which handed out a slot for each request the emulator received.
func TestWorkerMigratesUnderTheSharedNotionPace(t *testing.T) {
	stk := newWorkerStack(t, stackSpec{taskQueue: "worker-pace-test", lowLatency: true, sections: 2, pages: 3,
		notion: notionemu.Config{Seed: 1, Rate: 20, Burst: 20}, notionRate: 20, pacing: pacingShared})
	n, cfg, tok := stk.n, stk.cfg, stk.cfg.NotionToken

	defer runWorker(t, cfg)()

	c := stk.srv.Client()
	stk.migrateAlice(t, cfg)

	v, err := c.QueryWorkflow(context.Background(), entity.WorkflowID(entity.ResourceNotion, notion.Fingerprint(tok)), "", entity.QueryPaceState)
	if err != nil {
		t.Fatalf("query the pace entity: %v", err)
	}
	var st entity.PaceState
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	got := n.Stats().Tokens[tok]
	t.Logf("Notion: %d requests (%d answered 429); pace entity: %d slots, spec %s", got.Requests, got.RateLimited, st.Stats.Slots, st.Schedule.Spec)
	if got.Requests == 0 || int64(st.Stats.Slots) < got.Requests {
		t.Errorf("the emulator received %d requests, the pace entity handed out %d slots", got.Requests, st.Stats.Slots)
	}
	if got.RateLimited != 0 {
		t.Errorf("%d requests were answered 429", got.RateLimited)
	}
	if s := st.Schedule.Spec.String(); s != cfg.NotionSpec.String() {
		t.Errorf("the entity runs %s, want the worker's %s", s, cfg.NotionSpec)
	}
}

// stackSpec is what differs between the stacks the worker tests run on.
type stackSpec struct {
	taskQueue       string
	lowLatency      bool // the dev server runs devserver.LowLatencyConfig
	sections, pages int  // alice's one notebook: sections per container, pages per section
	notion          notionemu.Config
	notionRate      float64 // the worker's -notion-rate
	// pacing is the worker's -notion-pacing; when set, cfg.NotionSpec is
	// the pace it and notionRate make, as parseConfig sets it.
	pacing string
}

// workerStack is a dev server, the Graph emulator holding alice's notebook
// and the Notion emulator, with a worker config (cfg) pointing at them and
// alice signed in. The emulators close when the test ends.
type workerStack struct {
	srv *devserver.Server
	g   *graph.Server
	n   *notionemu.Server
	nbs []*graph.Notebook
	cfg config
}

func newWorkerStack(t *testing.T, s stackSpec) *workerStack {
	t.Helper()
	opts := devserver.Options{SearchAttributes: workflows.SearchAttributes()}
	if s.lowLatency {
		opts.DynamicConfig = devserver.LowLatencyConfig()
	}
	st := &workerStack{srv: devserver.ForTest(t, opts), g: graph.NewServer(graph.Config{Seed: 1, TimeScale: 60})}
	st.nbs = graph.Generate(graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, SectionsPerContainer: s.sections, PagesPerSection: s.pages})
	st.g.AddNotebooks("alice", st.nbs...)
	gts := httptest.NewServer(st.g)
	t.Cleanup(gts.Close)
	st.n = notionemu.NewServer(s.notion)
	nts := httptest.NewServer(st.n)
	t.Cleanup(nts.Close)
	_, cfg := signedInStore(t, st.g, gts.URL)
	cfg.TemporalAddress, cfg.Namespace, cfg.TaskQueue = st.srv.HostPort(), "default", s.taskQueue
	cfg.GraphURL, cfg.NotionURL, cfg.NotionToken, cfg.NotionRate = gts.URL+"/v1.0", nts.URL, st.n.IssueToken(), s.notionRate
	cfg.Limits, cfg.StagingDir, cfg.GraphTimeout = "onenote-x60", t.TempDir(), 10*time.Second
	if s.pacing != "" {
		cfg.NotionPacing = s.pacing
		var err error
		if cfg.NotionSpec, err = notionSpec(cfg); err != nil {
			t.Fatal(err)
		}
	}
	st.cfg = cfg
	return st
}

// migrateAlice migrates alice's notebook through the worker running with
// cfg (st.cfg with the test's own settings) and fails the test unless all
// of its six pages were written.
func (st *workerStack) migrateAlice(t *testing.T, cfg config) {
	t.Helper()
	wctx, wcancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer wcancel()
	run, err := st.srv.Client().ExecuteWorkflow(wctx, client.StartWorkflowOptions{ID: "migrate/alice", TaskQueue: cfg.TaskQueue},
		workflows.MigrateNotebookName, workflows.MigrateInput{User: "alice", Notebook: st.nbs[0].ID, NotionParent: st.n.RootPageID(), Limits: cfg.Limits})
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
}

// runWorker starts the worker with cfg; the function it returns stops it
// and fails the test if it stopped with an error.
func runWorker(t *testing.T, cfg config) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, cfg, quietLog()) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	}
}

// TestWorkerRefusesPlaintextInput runs the worker as main does with a
// payload key: a migration started by a client without the codec (as
// `temporal workflow start` without --codec-endpoint starts it) fails at
// its first workflow task with the error that names the codec server,
// while a scan started through the codec runs, and a client without the
// codec can still query it.
func TestWorkerRefusesPlaintextInput(t *testing.T) {
	stk := newWorkerStack(t, stackSpec{taskQueue: "worker-codec-test", lowLatency: true, sections: 1, pages: 2,
		notion: notionemu.Config{Seed: 1, Rate: -1}, notionRate: 100})
	srv, n, nbs, cfg := stk.srv, stk.n, stk.nbs, stk.cfg
	cfg.CodecKeyFile = filepath.Join(t.TempDir(), "codec.key")
	cfg.CodecEndpoint = "http://127.0.0.1:18234"
	if _, err := codec.GenerateKeyFile(cfg.CodecKeyFile); err != nil {
		t.Fatal(err)
	}
	defer runWorker(t, cfg)()

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	plain := srv.Client()
	start := time.Now()
	run, err := plain.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "migrate/alice/plain", TaskQueue: cfg.TaskQueue},
		workflows.MigrateNotebookName, workflows.MigrateInput{User: "alice", Notebook: nbs[0].ID, NotionParent: n.RootPageID()})
	if err != nil {
		t.Fatal(err)
	}
	err = run.Get(ctx, nil)
	t.Logf("plaintext input: failed after %v: %v", time.Since(start).Round(time.Millisecond), err)
	for _, want := range []string{"unencrypted", "--codec-endpoint " + cfg.CodecEndpoint, "starter"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("plaintext input: error %v does not say %q", err, want)
		}
	}
	// What the temporal CLI alone shows of it: the fix.
	cli, err := devserver.FindCLI()
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, cli, "workflow", "describe", "--address", srv.HostPort(), "--namespace", "default",
		"--workflow-id", run.GetID()).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--codec-endpoint "+cfg.CodecEndpoint) {
		t.Errorf("temporal workflow describe does not show the fix: %v\n%s", err, out)
	}
	desc, err := plain.DescribeWorkflow(ctx, run.GetID(), run.GetRunID())
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus(); st != enumspb.WORKFLOW_EXECUTION_STATUS_FAILED {
		t.Errorf("plaintext input: status %v, want failed", st)
	}
	iter := plain.GetWorkflowHistory(ctx, run.GetID(), run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_FAILED, enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, enumspb.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
			t.Errorf("plaintext input: event %d is %v; the workflow must fail before doing anything", ev.GetEventId(), ev.GetEventType())
		}
	}

	// Through the codec the same worker runs workflows.
	copts := client.Options{HostPort: srv.HostPort(), Namespace: "default", Logger: tlog.NewStructuredLogger(quietLog())}
	if _, err := codec.ConfigureClient(&copts, func(string) string { return "" }, cfg.CodecKeyFile, codec.Options{}); err != nil {
		t.Fatal(err)
	}
	cc, err := client.Dial(copts)
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	mrun, err := cc.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "migrate/alice/encrypted", TaskQueue: cfg.TaskQueue},
		workflows.MigrateNotebookName, workflows.MigrateInput{User: "alice", Notebook: nbs[0].ID, NotionParent: n.RootPageID(), Limits: cfg.Limits})
	if err != nil {
		t.Fatal(err)
	}
	// While it runs, a client without the codec: an update without input
	// reaches its handler (accepted, or refused by its validator for a
	// reason of its own), one with input is refused naming the codec
	// server, and a query without input is answered (its result is
	// ciphertext to that client).
	update := func(name string, args ...any) error {
		h, err := plain.UpdateWorkflow(ctx, client.UpdateWorkflowOptions{WorkflowID: mrun.GetID(), UpdateName: name, Args: args,
			WaitForStage: client.WorkflowUpdateStageCompleted})
		if err != nil {
			return err
		}
		return h.Get(ctx, nil)
	}
	if err := update(workflows.UpdateRetryFailed); err != nil && strings.Contains(err.Error(), "unencrypted") {
		t.Errorf("update without input from a client without the codec: %v", err)
	}
	if err := update(workflows.UpdateRetrySection, "Section 1"); err == nil || !strings.Contains(err.Error(), "--codec-endpoint "+cfg.CodecEndpoint) {
		t.Errorf("update with plaintext input: %v; want the refusal naming the codec server", err)
	}
	if _, err := plain.QueryWorkflow(ctx, mrun.GetID(), mrun.GetRunID(), workflows.QueryProgress); err != nil {
		t.Errorf("query without input from a client without the codec: %v", err)
	}
	var rep workflows.NotebookReport
	if err := mrun.Get(ctx, &rep); err != nil || rep.Written != 2 {
		t.Errorf("migration through the codec: wrote %d pages, %v; want 2", rep.Written, err)
	}
}
