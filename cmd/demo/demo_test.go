package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/internal/devserver"
	"github.com/notebridge/notebridge/internal/stack"
)

// needStack skips a test that runs the whole demo when -short is set or
// the temporal CLI is missing, and returns the module root and the CLI's
// path.
func needStack(t *testing.T) (root, temporalBin string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a Temporal dev server, two emulators and a worker")
	}
	root, err := stack.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	temporalBin = filepath.Join(root, "bin", "temporal")
	if _, err := os.Stat(temporalBin); err != nil {
		t.Skipf("no temporal CLI in %s/bin: run `make temporal`", root)
	}
	return root, temporalBin
}

// TestDemoRunsEndToEnd runs the whole demo in process on a fast profile and
// checks its summary against the Notion emulator's export and that no child
// process outlives it.
func TestDemoRunsEndToEnd(t *testing.T) {
	needStack(t)
	dir := filepath.Join(t.TempDir(), "demo")
	ctx, cancel := context.WithTimeout(context.Background(), 7*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	start := time.Now()
	res, err := run(ctx, []string{"-exit", "-scale", "600", "-pages", "16", "-dir", dir}, &out, &errOut)
	t.Logf("demo took %s; output:\n%s%s", time.Since(start).Round(time.Second), out.String(), errOut.String())
	if res != nil {
		defer assertNoSurvivors(t, res.PIDs)
	}
	if err != nil {
		t.Fatalf("demo failed: %v", err)
	}

	summary := out.String()
	migrated := summaryInts(t, summary, `pages migrated: +(\d+) of (\d+)`)
	failed := summaryInts(t, summary, `pages failed: +(\d+) \(sections failed: (\d+)\)`)
	violations := summaryInts(t, summary, `Graph violations: +(\d+)`)
	inNotion := summaryInts(t, summary, `pages in Notion: +(\d+)`)
	if migrated[0] != migrated[1] || migrated[1] < 60 {
		t.Errorf("summary: %d of %d pages migrated, want all of 60 or more", migrated[0], migrated[1])
	}
	if failed[0] != 0 || failed[1] != 0 {
		t.Errorf("summary: %d pages and %d sections failed, want none", failed[0], failed[1])
	}
	if violations[0] != 0 {
		t.Errorf("summary: %d Graph violations, want 0", violations[0])
	}
	// Every page was read back from Notion and holds what was written.
	verified := summaryInts(t, summary, `verification: +(\d+) of (\d+) pages verified \((\d+) Notion reads\)`)
	if verified[0] != migrated[1] || verified[1] != migrated[1] || verified[2] < migrated[1] {
		t.Errorf("summary: %d of %d pages verified (%d reads), want all %d, at least a read each", verified[0], verified[1], verified[2], migrated[1])
	}

	raw, err := os.ReadFile(filepath.Join(dir, "notion-export.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ws any
	if err := json.Unmarshal(raw, &ws); err != nil {
		t.Fatalf("decode export: %v", err)
	}
	rows := liveRows(ws)
	if rows != migrated[0] || rows != inNotion[0] {
		t.Errorf("the Notion export holds %d live rows; the summary says %d migrated and %d in Notion", rows, migrated[0], inNotion[0])
	}
	if res.Written+res.Skipped != rows || res.Failed != 0 || res.Violations != 0 {
		t.Errorf("result %+v does not match the export's %d rows", res, rows)
	}
	if !strings.Contains(summary, "bin/temporal workflow start") || !strings.Contains(summary, "--type MigrateNotebook") {
		t.Errorf("the output does not show the temporal CLI command that started the migration")
	}

	// The user signed in through starter login: the token store holds an
	// encrypted file, and no token is in plain text anywhere in it.
	if !strings.Contains(summary, "bin/starter login -user alice") || !strings.Contains(summary, "approving code") {
		t.Errorf("the output does not show the sign-in through starter login")
	}
	entries, err := os.ReadDir(filepath.Join(dir, "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
		raw, err := os.ReadFile(filepath.Join(dir, "tokens", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		// The emulator's access tokens start "nbg.", refresh tokens "nbr.".
		if bytes.Contains(raw, []byte("nbg.")) || bytes.Contains(raw, []byte("nbr.")) {
			t.Errorf("%s holds a token in plain text", e.Name())
		}
	}
	if !slices.Contains(files, "alice.json.enc") || slices.Contains(files, "alice.token") {
		t.Errorf("token directory holds %v, want alice.json.enc and no plaintext alice.token", files)
	}
}

// summaryInts returns the integers the pattern's groups capture in the
// summary.
func summaryInts(t *testing.T, summary, pattern string) []int {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("no line matching %q in the summary", pattern)
	}
	var ns []int
	for _, s := range m[1:] {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		ns = append(ns, n)
	}
	return ns
}

// liveRows counts, anywhere in a decoded export, the rows that are not
// archived of databases that are not archived, under pages that are not
// archived.
func liveRows(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if a, _ := v["archived"].(bool); a {
			return 0
		}
		if rows, ok := v["rows"].([]any); ok {
			for _, r := range rows {
				if m, ok := r.(map[string]any); ok {
					if a, _ := m["archived"].(bool); !a {
						n++
					}
				}
			}
		}
		for k, c := range v {
			if k != "blocks" && k != "uploads" && k != "stats" && k != "properties" {
				n += liveRows(c)
			}
		}
	case []any:
		for _, c := range v {
			n += liveRows(c)
		}
	}
	return n
}

// assertNoSurvivors checks that no child, and nothing in a child's process
// group, is alive.
func assertNoSurvivors(t *testing.T, pids []int) {
	t.Helper()
	if len(pids) < 4 {
		t.Errorf("the demo reports %d child processes, want 4 (temporal, two emulators, worker)", len(pids))
	}
	for _, pid := range pids {
		for _, target := range []int{pid, -pid} {
			if err := syscall.Kill(target, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("process (group) %d survived the demo: kill 0: %v", target, err)
			}
		}
	}
}

func TestReadRealEnvNamesWhatIsMissing(t *testing.T) {
	env := map[string]string{"NOTION_TOKEN": "secret_x"}
	_, err := readRealEnv(func(k string) string { return env[k] })
	if err == nil {
		t.Fatal("no error with variables missing")
	}
	for _, name := range []string{"NOTEBRIDGE_APP_ID", "NOTEBRIDGE_NOTION_PARENT"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s: %v", name, err)
		}
	}
	if first := strings.SplitN(err.Error(), "\n", 2)[0]; strings.Contains(first, "NOTION_TOKEN,") || strings.Contains(first, "TOKEN_FILE") {
		t.Errorf("error names a variable that is set or not needed: %v", err)
	}
	env["NOTEBRIDGE_NOTION_PARENT"], env["NOTEBRIDGE_APP_ID"] = "p", "a"
	e, err := readRealEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	defDir, _ := auth.DefaultDir()
	defKey, _ := auth.DefaultKeyFile()
	if e.User != "me" || e.GraphURL != "https://graph.microsoft.com/v1.0" || e.NotionURL != "https://api.notion.com" ||
		e.Tenant != "common" || e.Authority != auth.DefaultAuthority || e.TokenDir != defDir || e.KeyFile != defKey {
		t.Errorf("defaults not filled: %+v", e)
	}
	env["NOTEBRIDGE_TOKEN_DIR"], env["NOTEBRIDGE_TOKEN_KEY_FILE"], env["NOTEBRIDGE_TENANT"] = "/t", "/k", "contoso.com"
	if e, err := readRealEnv(func(k string) string { return env[k] }); err != nil || e.TokenDir != "/t" || e.KeyFile != "/k" || e.Tenant != "contoso.com" {
		t.Errorf("token store settings: %+v, %v", e, err)
	}
	env["NOTEBRIDGE_USER"] = "../me"
	if _, err := readRealEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "NOTEBRIDGE_USER") {
		t.Errorf("a user ID that is a path: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"notebridge":        "notebridge",
		"migrate/alice/1!2": "'migrate/alice/1!2'",
		`{"user":"alice"}`:  `'{"user":"alice"}'`,
		"it's":              `'it'\''s'`,
		"":                  "''",
		"127.0.0.1:7233":    "127.0.0.1:7233",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestDemoStartsTheDevServerAgainOnFreshPorts runs the demo with a temporal
// CLI that exits at once, as the real one does when another process took its
// port between the demo finding it free and the server binding it. The demo
// must try devserver.StartAttempts port pairs, each different, and its error
// must say the server exited and quote what the server printed.
func TestDemoStartsTheDevServerAgainOnFreshPorts(t *testing.T) {
	bin := t.TempDir()
	calls := filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"$@\" >> " + calls + "\necho \"can't set frontend port: address already in use\" >&2\nexit 2\n"
	if err := os.WriteFile(filepath.Join(bin, "temporal"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	_, err := run(ctx, []string{"-exit", "-no-build", "-bin", bin, "-dir", filepath.Join(t.TempDir(), "demo")}, &out, &errOut)
	if !errors.Is(err, devserver.ErrExited) {
		t.Fatalf("demo error = %v, want one wrapping devserver.ErrExited; output:\n%s", err, out.String())
	}
	if !strings.Contains(err.Error(), "address already in use") {
		t.Errorf("the error does not quote the server's output: %v", err)
	}
	data, rerr := os.ReadFile(calls)
	if rerr != nil {
		t.Fatal(rerr)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != devserver.StartAttempts {
		t.Fatalf("the CLI was started %d times, want %d:\n%s", len(lines), devserver.StartAttempts, data)
	}
	ports := map[string]bool{}
	for _, l := range lines {
		f := strings.Fields(l)
		i := slices.Index(f, "--port")
		if i < 0 || i+1 >= len(f) {
			t.Fatalf("no --port in %q", l)
		}
		ports[f[i+1]] = true
	}
	if len(ports) != len(lines) {
		t.Errorf("the attempts reused a port: %v", lines)
	}
}
