package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeKeepsOtherScenarios: merging a run of scenario 5 made
// elsewhere replaces scenario 5 in the report, keeps scenario 1, and
// brings the run's plots along.
func TestMergeKeepsOtherScenarios(t *testing.T) {
	out, other := t.TempDir(), t.TempDir()
	save := func(dir string, rs ...*Result) {
		raw, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "e2e.json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	save(out, &Result{N: 1, Section: "## 1. seed, kept\n"}, &Result{N: 5, Section: "## 5. hidden, old\n"})
	save(other, &Result{N: 5, Section: "## 5. hidden, new\n"})
	if err := os.WriteFile(filepath.Join(other, "e2e-hidden.png"), []byte("png"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := &Bench{Opts: Options{Out: out}}
	if err := b.Merge(other); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "e2e.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed, kept", "hidden, new"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(string(md), "hidden, old") {
		t.Error("report still has the old scenario 5")
	}
	if _, err := os.Stat(filepath.Join(out, "e2e-hidden.png")); err != nil {
		t.Errorf("plot not copied: %v", err)
	}
	if err := b.Merge(t.TempDir()); err == nil {
		t.Error("merging a directory without results succeeded")
	}
}
