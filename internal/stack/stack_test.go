package stack

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
)

func TestWorkerFlags(t *testing.T) {
	f := WorkerFlags{TemporalAddress: "127.0.0.1:7233", App: "app", StagingDir: "/s", GraphURL: "http://g/v1.0",
		NotionURL: "http://n", Limits: Limits(60), NotionRate: 2.5, Tokens: []string{"-token-dir", "/t"}}
	got := strings.Join(f.Args(), " ")
	want := "-temporal-address 127.0.0.1:7233 -namespace default -task-queue notebridge -app-id app -staging-dir /s " +
		"-graph-url http://g/v1.0 -notion-url http://n -limits onenote-x60 -notion-rate 2.5 -token-dir /t"
	if got != want {
		t.Errorf("Args\n got %s\nwant %s", got, want)
	}
	f.TaskQueue, f.NotionPacing, f.LogLevel, f.Extra = "q", "process", "warn", []string{"-baseline", "backoff"}
	if got := f.Args(); !slices.Contains(got, "q") || !strings.HasSuffix(strings.Join(got, " "),
		"-notion-pacing process -log-level warn -token-dir /t -baseline backoff") {
		t.Errorf("Args with every option: %v", got)
	}
	for scale, want := range map[float64]string{1: "onenote", 60: "onenote-x60", 2.5: "onenote-x2.5"} {
		if got := Limits(scale); got != want {
			t.Errorf("Limits(%g) = %q, want %q", scale, got, want)
		}
	}
}

func TestProcStopsAndKills(t *testing.T) {
	p, err := StartProc("sleeper", "/bin/sh", []string{"-c", "sleep 30"}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if done, _ := p.Exited(); done {
		t.Fatal("exited at once")
	}
	if !p.Kill() {
		t.Fatal("Kill found nothing running")
	}
	if done, err := p.Exited(); !done || !strings.Contains(err.Error(), "sleeper exited") {
		t.Fatalf("after Kill: exited %v, %v", done, err)
	}
	if p.Kill() {
		t.Error("a second Kill reported a running process")
	}

	// Stop ends the whole group: the shell and the sleep it started.
	log := filepath.Join(t.TempDir(), "log")
	p, err = StartProcLogged("group", "/bin/sh", []string{"-c", "echo up; sleep 30 & wait"}, nil, log)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for b, _ := os.ReadFile(log); !strings.Contains(string(b), "up"); b, _ = os.ReadFile(log) {
		if time.Now().After(deadline) {
			t.Fatal("the child never wrote its log")
		}
		time.Sleep(20 * time.Millisecond)
	}
	start := time.Now()
	p.Stop(5 * time.Second)
	if done, _ := p.Exited(); !done || time.Since(start) > 5*time.Second {
		t.Fatalf("Stop: exited %v after %v", done, time.Since(start))
	}
}

func TestSignInUsers(t *testing.T) {
	g := graph.NewServer(graph.Config{Seed: 1, AppID: "app"})
	ts := httptest.NewServer(g)
	defer ts.Close()
	dir := t.TempDir()
	a, err := SignInUsers(context.Background(), SignInOptions{Dir: dir, App: "app", Authority: ts.URL}, g, "alice", "bob")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"alice", "bob"} {
		if err := a.Lost(context.Background(), u); err != nil {
			t.Errorf("%s: sign-in lost right after signing in: %v", u, err)
		}
		if _, err := os.Stat(TokenFile(dir, u)); err != nil {
			t.Errorf("%s: no token file: %v", u, err)
		}
	}
	if err := a.Lost(context.Background(), "carol"); err == nil {
		t.Error("carol never signed in, but her sign-in is not lost")
	}
	key, err := a.Key()
	if err != nil || key == "" {
		t.Fatalf("key %q, %v", key, err)
	}
	args := strings.Join(a.WorkerArgs(), " ")
	if args != "-token-dir "+a.TokenDir+" -token-key-file "+a.KeyFile+" -authority "+ts.URL {
		t.Errorf("worker args %s", args)
	}
}

func TestEachRowAndListingFaults(t *testing.T) {
	n := notionemu.NewServer(notionemu.Config{Seed: 1, Rate: -1})
	if got := CountRows(n.Export().Pages); got != 0 {
		t.Errorf("a fresh workspace holds %d rows", got)
	}
	row := func(id string, archived bool, dbs ...notionemu.Database) notionemu.Page {
		return notionemu.Page{ID: id, Archived: archived, Databases: dbs}
	}
	ws := []notionemu.Page{
		row("nb", false,
			notionemu.Database{Rows: []notionemu.Page{row("a", false, notionemu.Database{Rows: []notionemu.Page{row("a1", false)}}), row("gone", true)}},
			notionemu.Database{Archived: true, Rows: []notionemu.Page{row("in-archived-db", false)}}),
		row("archived-page", true, notionemu.Database{Rows: []notionemu.Page{row("under-archived", false)}}),
	}
	var ids []string
	EachRow(ws, func(r notionemu.Page) { ids = append(ids, r.ID) })
	if strings.Join(ids, ",") != "a,a1" || CountRows(ws) != 2 {
		t.Errorf("rows %v, want a, a1", ids)
	}

	var f ListingFaults
	if f.ListPagesSection("s") != "s" {
		t.Error("the zero ListingFaults fails a listing")
	}
	f.Set("s", true)
	if f.ListPagesSection("s") == "s" || f.ListPagesSection("t") != "t" {
		t.Error("Set did not fail exactly the listing of s")
	}
	f.Set("s", false)
	if f.ListPagesSection("s") != "s" {
		t.Error("the listing of s still fails")
	}
}
