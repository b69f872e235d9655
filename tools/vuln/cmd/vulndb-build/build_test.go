package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLatestFix(t *testing.T) {
	type ev = struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	}
	for _, tc := range []struct {
		name   string
		ranges []osvRange
		want   string
	}{
		{"no fix", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}}}}, ""},
		{"one fix", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}, {Fixed: "1.6.0"}}}}, "1.6.0"},
		{"latest of several", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}, {Fixed: "0.9.2"},
			{Introduced: "1.0.0"}, {Fixed: "1.2.10"}, {Introduced: "1.3.0"}, {Fixed: "1.3.1"}}}}, "1.3.1"},
		{"semver order, not string order", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}, {Fixed: "1.10.0"}, {Introduced: "1.2.0"}, {Fixed: "1.9.0"}}}}, "1.10.0"},
		{"re-introduced after the last fix", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}, {Fixed: "1.2.0"}, {Introduced: "1.5.0"}}}}, ""},
		{"pre-release", []osvRange{{Type: "SEMVER", Events: []ev{{Introduced: "0"}, {Fixed: "2.0.0-rc.1"}}}}, "2.0.0-rc.1"},
		{"other range types ignored", []osvRange{{Type: "GIT", Events: []ev{{Fixed: "abc"}}}}, ""},
	} {
		if got := latestFix(tc.ranges); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

const entryA = `{
  "schema_version": "1.3.1",
  "id": "GO-2020-0001",
  "modified": "0001-01-01T00:00:00Z",
  "published": "2021-04-14T20:04:52Z",
  "summary": "x",
  "affected": [{"package": {"name": "github.com/gin-gonic/gin", "ecosystem": "Go"},
    "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.6.0"}]}],
    "ecosystem_specific": {"imports": [{"path": "github.com/gin-gonic/gin", "symbols": ["Default"]}]}}]
}`

const entryB = `{
  "id": "GO-2024-0100",
  "modified": "2024-05-01T10:00:00Z",
  "affected": [
    {"package": {"name": "stdlib", "ecosystem": "Go"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "0"}, {"fixed": "1.21.10"}]}]},
    {"package": {"name": "stdlib", "ecosystem": "Go"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "1.22.0-0"}, {"fixed": "1.22.3"}]}]},
    {"package": {"name": "github.com/gin-gonic/gin", "ecosystem": "Go"}, "ranges": [{"type": "SEMVER", "events": [{"introduced": "1.7.0"}]}]}
  ]
}`

func writeEntries(t *testing.T, entries map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range entries {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBuildLayout(t *testing.T) {
	src := writeEntries(t, map[string]string{"GO-2020-0001.json": entryA, "GO-2024-0100.json": entryB, "README.md": "not an entry"})
	out := filepath.Join(t.TempDir(), "db")
	if err := os.MkdirAll(filepath.Join(out, "stale"), 0o755); err != nil {
		t.Fatal(err)
	}
	snap := time.Date(2026, 11, 5, 23, 49, 57, 0, time.UTC)
	st, err := build(src, out, snap)
	if err != nil {
		t.Fatal(err)
	}
	if st.Entries != 2 || st.Modules != 2 || !st.Modified.Equal(snap) {
		t.Errorf("stats %+v", st)
	}
	if _, err := os.Stat(filepath.Join(out, "stale")); !os.IsNotExist(err) {
		t.Error("the old database was not replaced")
	}

	var db dbMeta
	readJSON(t, filepath.Join(out, "index", "db.json"), &db)
	if !db.Modified.Equal(snap) {
		t.Errorf("db.json modified %s, want %s", db.Modified, snap)
	}
	var mods []moduleMeta
	readJSON(t, filepath.Join(out, "index", "modules.json"), &mods)
	if len(mods) != 2 || mods[0].Path != "github.com/gin-gonic/gin" || mods[1].Path != "stdlib" {
		t.Fatalf("modules.json: %+v", mods)
	}
	gin := mods[0].Vulns
	if len(gin) != 2 || gin[0].ID != "GO-2020-0001" || gin[0].Fixed != "1.6.0" || !gin[0].Modified.Equal(snap) ||
		gin[1].ID != "GO-2024-0100" || gin[1].Fixed != "" {
		t.Errorf("gin vulns: %+v", gin)
	}
	// Two items for stdlib: one index line, with the later fix.
	if v := mods[1].Vulns; len(v) != 1 || v[0].Fixed != "1.22.3" || !v[0].Modified.Equal(time.Date(2024, 5, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("stdlib vulns: %+v", v)
	}

	// Entries keep every field; a zero modified time becomes the snapshot's.
	var a map[string]any
	readJSON(t, filepath.Join(out, "ID", "GO-2020-0001.json"), &a)
	if a["modified"] != "2026-11-05T23:49:57Z" || a["summary"] != "x" || a["schema_version"] != "1.3.1" || a["affected"] == nil {
		t.Errorf("entry A: %v", a)
	}
	b, err := os.ReadFile(filepath.Join(out, "ID", "GO-2024-0100.json"))
	if err != nil || string(b) != entryB {
		t.Errorf("entry B was rewritten: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".vulndb-build-*")); len(left) != 0 {
		t.Errorf("temporary directories left: %v", left)
	}
}

func TestBuildRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries map[string]string
		snap    time.Time
		want    string
	}{
		{"empty", map[string]string{"x.txt": "x"}, time.Now(), "no OSV entries"},
		{"file name differs from ID", map[string]string{"GO-2020-0002.json": entryA}, time.Now(), "does not match"},
		{"ID that is a path", map[string]string{"x.json": `{"id":"../../etc/x"}`}, time.Now(), "not of the form"},
		{"not JSON", map[string]string{"GO-2020-0001.json": "{"}, time.Now(), "not an OSV entry"},
		{"zero modified, no snapshot", map[string]string{"GO-2020-0001.json": entryA}, time.Time{}, "-modified"},
	} {
		out := filepath.Join(t.TempDir(), "db")
		_, err := build(writeEntries(t, tc.entries), out, tc.snap)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error mentioning %q", tc.name, err, tc.want)
		}
		if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
			t.Errorf("%s: a failed build left %s", tc.name, out)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
