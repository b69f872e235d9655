// Package nodetest runs the conformance suites' Node scripts from Go tests:
// it finds node, checks that a folder's node_modules is what its
// package-lock.json pins (scripts/install-npm.sh installs it), and runs a
// script there with its standard error in the test log.
//
// Node absent is a skip outside CI and a failure under CI=true; node_modules
// missing or stale is always a failure, naming the command that fixes it.
package nodetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// InstallCommand is what a developer runs to install the Node packages.
const InstallCommand = "scripts/install-npm.sh (or make npm)"

// Project is a Node folder whose packages are installed and current.
type Project struct {
	// Dir is the folder holding package.json, package-lock.json and
	// node_modules.
	Dir  string
	node string
}

// inCI reports whether the test runs under CI (CI=true), where a missing
// prerequisite fails instead of skipping.
func inCI() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// Require returns the Node project in dir (relative to the test's package
// folder), ending the test when node is absent (skip, or failure under CI)
// or when dir's node_modules does not match its package-lock.json (failure).
func Require(t testing.TB, dir string) *Project {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if inCI() {
			t.Fatalf("node is not installed (CI=true, so this is a failure, not a skip): the conformance suites need Node 20 or later")
		}
		t.Skip("node is not installed; the conformance suites need Node 20 or later")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckInstalled(abs); err != nil {
		t.Fatalf("%v; run %s", err, InstallCommand)
	}
	return &Project{Dir: abs, node: node}
}

// CheckInstalled says whether every package that dir's package-lock.json
// pins is in dir/node_modules at the pinned version.
func CheckInstalled(dir string) error {
	data, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return fmt.Errorf("read the lockfile: %w", err)
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
			Dev     bool   `json:"dev"`
			Link    bool   `json:"link"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &lock); err != nil {
		return fmt.Errorf("parse %s/package-lock.json: %w", dir, err)
	}
	var missing, stale []string
	for path, p := range lock.Packages {
		if path == "" || p.Link {
			continue
		}
		pj, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path), "package.json"))
		if errors.Is(err, os.ErrNotExist) {
			missing = append(missing, path)
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		var got struct {
			Version string `json:"version"`
		}
		if err := json.Unmarshal(pj, &got); err != nil {
			return fmt.Errorf("parse %s/package.json: %w", path, err)
		}
		if got.Version != p.Version {
			stale = append(stale, fmt.Sprintf("%s is %s, the lockfile pins %s", path, got.Version, p.Version))
		}
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("%s: %d of the locked packages are not installed (first: %s)", dir, len(missing), first(missing))
	case len(stale) > 0:
		return fmt.Errorf("%s: installed packages differ from the lockfile (%s)", dir, first(stale))
	}
	return nil
}

func first(s []string) string {
	m := s[0]
	for _, x := range s[1:] {
		if x < m {
			m = x
		}
	}
	return m
}

// Run runs `node script args...` in the project folder with env added to
// the environment, logs its standard error line by line and decodes its
// standard output, which must be one JSON value, into out. A non-zero exit
// or undecodable output fails the test.
func (p *Project) Run(t testing.TB, timeout time.Duration, env map[string]string, out any, script string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.node, append([]string{script}, args...)...)
	cmd.Dir = p.Dir
	cmd.Env = os.Environ()
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	for line := range strings.Lines(stderr.String()) {
		t.Log("node: " + strings.TrimRight(line, "\n"))
	}
	if ctx.Err() != nil {
		t.Fatalf("node %s %s: no answer within %v", script, strings.Join(args, " "), timeout)
	}
	if err != nil {
		t.Fatalf("node %s %s: %v (standard error above)", script, strings.Join(args, " "), err)
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("node %s %s: its output is not the JSON expected: %v\n%s", script, strings.Join(args, " "), err, stdout.String())
	}
}
