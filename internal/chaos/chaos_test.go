package chaos

import (
	"bytes"
	"context"
	"github.com/notebridge/notebridge/internal/verify"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestPlan(t *testing.T) {
	const expected = 1000
	p := Plan(1, 20, 2, expected)
	if !slices.Equal(p, Plan(1, 20, 2, expected)) {
		t.Fatal("the same seed gave two plans")
	}
	if slices.Equal(p, Plan(2, 20, 2, expected)) {
		t.Error("two seeds gave the same plan")
	}
	kinds := map[Kind]int{}
	var restarts []int64
	for i, e := range p {
		kinds[e.Kind]++
		if e.At < expected*3/100 || e.At > expected*90/100 {
			t.Errorf("%s is outside 3%%..90%% of %d requests", e, expected)
		}
		if i > 0 && e.At < p[i-1].At {
			t.Errorf("event %d (%s) comes before event %d (%s)", i, e, i-1, p[i-1])
		}
		if e.Kind == ServerRestart {
			restarts = append(restarts, e.At)
		} else if e.Pause <= 0 || e.Pause > 2*time.Second {
			t.Errorf("%s: pause %s", e, e.Pause)
		}
	}
	if kinds[KillDuringGraph] != 7 || kinds[KillDuringNotionWrite] != 7 || kinds[KillAnytime] != 6 || kinds[ServerRestart] != 2 {
		t.Errorf("kinds: %v", kinds)
	}
	// Two restarts: one around a third of the work, one around two thirds.
	if len(restarts) != 2 || restarts[0] > expected/2 || restarts[1] < expected/2 {
		t.Errorf("restarts at %v of %d requests", restarts, expected)
	}
	if got := Plan(1, 0, 0, expected); len(got) != 0 {
		t.Errorf("an empty plan has %d events", len(got))
	}
}

func TestOptionsValidate(t *testing.T) {
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"too few pages", Options{Pages: 2}, "-pages"},
		{"negative kills", Options{Kills: -1}, "-kills"},
		{"slowed down time", Options{TimeScale: 0.5}, "time scale"},
		{"negative Notion rate", Options{NotionRate: -3}, "Notion rate"},
		{"too many pages per run", Options{PagesPerRun: 9999}, "pages per run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.o.withDefaults().validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one naming %q", err, c.want)
			}
		})
	}
	if err := (Options{}).withDefaults().validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func TestMatchers(t *testing.T) {
	cases := []struct {
		method, path  string
		graph, notion bool
	}{
		{"GET", "/v1.0/me/onenote/pages/x/content", true, false},
		{"POST", "/common/oauth2/v2.0/token", false, false},
		{"GET", "/_emulator/stats", false, false},
		{"GET", "/v1/blocks/x/children", false, false},
		{"POST", "/v1/databases/x/query", false, false},
		{"POST", "/v1/pages", false, true},
		{"PATCH", "/v1/blocks/x/children", false, true},
		{"PATCH", "/v1/pages/x", false, true},
		{"DELETE", "/v1/blocks/x", false, true},
		{"POST", "/v1/file_uploads/x/send", false, true},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.path, nil)
		if graphRequest(r) != c.graph || notionWrite(r) != c.notion {
			t.Errorf("%s %s: graph %v notion %v, want %v and %v", c.method, c.path, graphRequest(r), notionWrite(r), c.graph, c.notion)
		}
	}
}

// TestTrap kills a real process from inside a request: the upstream
// effect happens, the process is gone before the answer is written, and
// the trap fires once.
func TestTrap(t *testing.T) {
	sleepBin, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	w := &workerProc{bin: sleepBin, args: []string{"60"}, log: filepath.Join(t.TempDir(), "worker.log")}
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	defer w.kill()
	tr := newTrap(&workers{ws: []*workerProc{w}})
	var applied atomic.Int32
	upstream := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		applied.Add(1)
		rw.Header().Set("X-Applied", "yes")
		rw.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(rw, `{"object":"page"}`)
	})
	srv := httptest.NewServer(tr.wrap(KillDuringNotionWrite, upstream, notionWrite))
	defer srv.Close()
	post := func() *http.Response {
		resp, err := http.Post(srv.URL+"/v1/pages", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}

	// Unarmed, and armed but not matching: nothing happens to the worker.
	post().Body.Close()
	tr.arm(KillDuringNotionWrite, 1)
	if resp, err := http.Get(srv.URL + "/v1/pages/x"); err == nil {
		resp.Body.Close()
	}
	if !w.running() {
		t.Fatal("the worker died on a request the trap does not match")
	}

	post().Body.Close() // skipped
	if !w.running() {
		t.Fatal("the worker died on the request the trap was to let through")
	}
	resp := post()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("X-Applied") != "yes" || !bytes.Contains(body, []byte("page")) {
		t.Errorf("the answer was not passed on: %d %v %s", resp.StatusCode, resp.Header, body)
	}
	if w.running() {
		t.Error("the worker survived the trap")
	}
	select {
	case s := <-tr.sprung:
		if s.kind != KillDuringNotionWrite || s.detail != "POST /v1/pages" {
			t.Errorf("sprung: %+v", s)
		}
	default:
		t.Error("the trap did not report the kill")
	}
	if got := applied.Load(); got != 4 {
		t.Errorf("upstream applied %d requests, want 4 (the killing one included)", got)
	}
	if tr.disarm() {
		t.Error("the trap was still armed after it fired")
	}

	// Restarted, the worker runs on: the trap fires only once.
	if err := w.start(); err != nil {
		t.Fatal(err)
	}
	post().Body.Close()
	if !w.running() {
		t.Error("a fired trap killed again")
	}
	if n := strings.Count(w.logText(), "incarnation"); n != 2 {
		t.Errorf("the log shows %d incarnations, want 2", n)
	}
}

// TestRawBytes finds a secret inside a payload, which protojson writes in
// base64 where a plain search misses it.
func TestRawBytes(t *testing.T) {
	secret := "nbg.0123456789abcdef"
	hist := &historypb.History{Events: []*historypb.HistoryEvent{{
		EventId: 1,
		Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
				Input: &commonpb.Payloads{Payloads: []*commonpb.Payload{{
					Metadata: map[string][]byte{"encoding": []byte("json/plain")},
					Data:     []byte(`{"token":"` + secret + `"}`),
				}}},
			},
		},
	}}}
	js, err := protojson.Marshal(hist)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte(secret)) {
		t.Fatal("protojson wrote the payload in clear; the test no longer shows why payloads are decoded")
	}
	raw := rawBytes(hist)
	if !bytes.Contains(raw, []byte(secret)) || !bytes.Contains(raw, []byte("json/plain")) {
		t.Errorf("rawBytes missed the payload's bytes: %q", raw)
	}
}

func TestReport(t *testing.T) {
	r := &Result{Options: Options{Kills: 2, ServerRestarts: 1, Seed: 5, TimeScale: 60, NotionRate: 30}.withDefaults(),
		Pages: 8, Migrations: []*Migration{{User: "alice", WorkflowID: "migrate/alice/nb", Input: `{"user":"alice"}`}},
		Kills: []Fired{
			{N: 1, Kind: KillDuringGraph, At: 3 * time.Second, GraphRequests: 10, Detail: "GET /v1.0/x"},
			{N: 2, Kind: KillAnytime, At: 9 * time.Second, GraphRequests: 30},
		},
		Restarts: []Fired{{N: 1, Kind: ServerRestart, At: 5 * time.Second, GraphRequests: 20, Took: time.Second}},
	}
	md := r.Markdown()
	for _, want := range []string{"# Chaos run: PASS", "2 of 2 worker kills", "1 during a Graph request, 0 during a Notion write, 1 at a random moment", `{"user":"alice"}`} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	k1, re, k2 := strings.Index(md, "| kill 1 |"), strings.Index(md, "| restart 1 |"), strings.Index(md, "| kill 2 |")
	if k1 < 0 || !(k1 < re && re < k2) {
		t.Errorf("events are not in time order:\n%s", md)
	}
	// Kills inside refreshes and a lost sign-in.
	r.Options.RefreshKills, r.Options.TokenTTL, r.Options.StrictRefreshRotation = 2, 45*time.Second, true
	r.Kills = append(r.Kills,
		Fired{N: 3, Kind: KillDuringRefresh, At: 12 * time.Second, GraphRequests: 40, BeforeStore: true},
		Fired{N: 4, Kind: KillAfterRefresh, At: 20 * time.Second, GraphRequests: 50})
	r.GraphRequests = 100
	r.SignIns = SignIns{Refreshes: 8, Reused: 0, Rejected: map[string]int64{"already redeemed": 1},
		Lost: []LostSignIn{{N: 1, At: 13 * time.Second, GraphRequests: 41, Error: `run "starter login --user alice"`, AfterKill: "kill 3"}}}
	md = r.Markdown()
	for _, want := range []string{"2 inside a token refresh (1 before the answer reached the worker, 1 right after it; 1 of them before the new tokens were stored)",
		"access tokens live 45s; strict refresh rotation", "8 refreshes for 100 Graph requests (0.080 per request)",
		"refused refreshes: 1 already redeemed; 1 sign-ins lost", "## Lost sign-ins", `| 1 | 13s | 41 | run "starter login --user alice" | kill 3 |`} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	r.Problems = []string{"2 of 3 kills happened"}
	var b bytes.Buffer
	r.WriteText(&b)
	if !strings.Contains(b.String(), "Chaos run: FAIL") || !strings.Contains(b.String(), "PROBLEM: 2 of 3 kills happened") {
		t.Errorf("text report:\n%s", b.String())
	}
}

// TestReportCountsUploadsOnce: the workspace's unattached file uploads,
// which every user's comparison counts alike, are one line of the
// report, not one a user, and are not called repaired; each user keeps
// their own archived rows.
func TestReportCountsUploadsOnce(t *testing.T) {
	r := &Result{Options: Options{Seed: 5, TimeScale: 60, NotionRate: 30}.withDefaults(), Pages: 16}
	for i, u := range []string{"alice", "bob"} {
		r.Migrations = append(r.Migrations, &Migration{User: u, WorkflowID: "migrate/" + u + "/nb",
			Verify: &verify.Report{ArchivedRows: i + 1, UnattachedUploads: 7}})
	}
	md := r.Markdown()
	if n := strings.Count(md, "unattached file uploads"); n != 1 {
		t.Errorf("the uploads are counted on %d lines, want 1:\n%s", n, md)
	}
	for _, want := range []string{"7 in the whole workspace", "rows archived (alice) | 1 ", "rows archived (bob) | 2 "} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "repaired") {
		t.Errorf("the report calls leftovers repaired:\n%s", md)
	}
}

// TestChaosShort is the short chaos run of the default tests: two users
// migrating 20 pages each at once on two worker processes, 3 kills and a
// restart of the dev server, each user checked like the full run (`make
// chaos`).
func TestChaosShort(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test: builds the worker and runs a Temporal dev server (skipped with -short)")
	}
	var log bytes.Buffer
	res, err := Run(context.Background(), Options{Pages: 20, Users: 2, Workers: 2, Kills: 3, ServerRestarts: 1, Seed: 2,
		Timeout: 10 * time.Minute, Dir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var rep bytes.Buffer
	res.WriteText(&rep)
	t.Logf("%s", rep.String())
	if len(res.Kills) != 3 || len(res.Restarts) != 1 {
		t.Errorf("%d kills and %d restarts, want 3 and 1\n%s", len(res.Kills), len(res.Restarts), log.String())
	}
	for _, k := range res.Kills {
		// A kill inside a request strikes the worker that sent it.
		if (k.Kind == KillDuringGraph || k.Kind == KillDuringNotionWrite) && strings.Contains(k.Detail, "sender not found") {
			t.Errorf("kill %d: %s", k.N, k.Detail)
		}
	}
	if !res.OK() {
		t.Errorf("the chaos run failed:\n%s\nprogress:\n%s", strings.Join(res.Problems, "\n"), log.String())
	}
}
