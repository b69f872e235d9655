package nodetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckInstalled(t *testing.T) {
	const lock = `{"lockfileVersion":3,"packages":{
		"":{"name":"x"},
		"node_modules/a":{"version":"1.0.0"},
		"node_modules/@s/b":{"version":"2.1.0"},
		"node_modules/a/node_modules/c":{"version":"0.1.0"}}}`
	install := func(t *testing.T, dir string, pkgs map[string]string) {
		for path, version := range pkgs {
			p := filepath.Join(dir, filepath.FromSlash(path))
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "package.json"), []byte(`{"version":"`+version+`"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := map[string]string{"node_modules/a": "1.0.0", "node_modules/@s/b": "2.1.0", "node_modules/a/node_modules/c": "0.1.0"}
	for _, tc := range []struct {
		name      string
		installed map[string]string
		lock      string
		wantErr   string
	}{
		{"current", all, lock, ""},
		{"nothing installed", nil, lock, "3 of the locked packages are not installed"},
		{"a nested package missing", map[string]string{"node_modules/a": "1.0.0", "node_modules/@s/b": "2.1.0"}, lock, "node_modules/a/node_modules/c"},
		{"another version", map[string]string{"node_modules/a": "1.0.1", "node_modules/@s/b": "2.1.0", "node_modules/a/node_modules/c": "0.1.0"}, lock, "node_modules/a is 1.0.1, the lockfile pins 1.0.0"},
		{"no lockfile", all, "", "read the lockfile"},
		{"a broken lockfile", all, "{", "parse"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.lock != "" {
				if err := os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(tc.lock), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			install(t, dir, tc.installed)
			err := CheckInstalled(dir)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("CheckInstalled: %v, want nil", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("CheckInstalled: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestSuitesAreInstalled checks the real suites' folders the way their
// tests do, so a stale node_modules shows up here first.
func TestSuitesAreInstalled(t *testing.T) {
	for _, dir := range []string{"../../graphsdk", "../../notionsdk"} {
		Require(t, dir)
	}
}
