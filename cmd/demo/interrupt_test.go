package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/notebridge/notebridge/internal/stack"
)

// TestCtrlCThroughAPipeStopsEverything runs the demo as `make demo | tee
// demo.log` does (the demo and its reader in one process group, like a
// terminal's foreground job), sends that group SIGINT as Ctrl-C does once
// every child runs, and checks that no process the demo started survives:
// tee dies first, and the demo's writes to the broken pipe must not kill
// its cleanup.
func TestCtrlCThroughAPipeStopsEverything(t *testing.T) {
	root, temporalBin := needStack(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	if err := stack.Build(t.Context(), root, bin, "./cmd/demo"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(temporalBin, filepath.Join(bin, "temporal")); err != nil {
		t.Fatal(err)
	}
	// Every process the demo starts inherits this variable: the test
	// finds them by it, even once their parent has gone.
	tag := fmt.Sprintf("NOTEBRIDGE_DEMO_INTERRUPT_TEST=%d.%d", os.Getpid(), time.Now().UnixNano())
	logPath := filepath.Join(tmp, "demo.log")
	var stderr bytes.Buffer
	job, err := stack.StartProc("demo | tee", "/bin/sh",
		[]string{"-c", `"$0" -bin "$1" -dir "$2" -scale 600 -pages 20 | tee "$3" >/dev/null`,
			filepath.Join(bin, "demo"), bin, filepath.Join(tmp, "demo"), logPath},
		[]string{tag}, nil, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		job.Kill()
		for _, pid := range tagged(t, tag) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})

	// The pacing line comes once the dev server, both emulators and the
	// worker run and the notebook is scanned.
	deadline := time.Now().Add(4 * time.Minute)
	for {
		log, _ := os.ReadFile(logPath)
		if bytes.Contains(log, []byte("==> pacing")) {
			break
		}
		if done, err := job.Exited(); done || time.Now().After(deadline) {
			t.Fatalf("the demo never got to the migration (%v):\n%s\n%s", err, log, stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	before := tagged(t, tag)
	if len(before) < 6 { // sh, demo, tee, temporal, two emulators, worker
		t.Errorf("%d tagged processes before Ctrl-C, want sh, demo, tee and the 4 children: %v", len(before), before)
	}

	if err := syscall.Kill(-job.PID(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-job.Done():
	case <-time.After(time.Minute):
		t.Fatal("the pipeline did not end within a minute of Ctrl-C")
	}
	// The demo may outlive the shell by its cleanup (each child gets 10s).
	var left []int
	for end := time.Now().Add(45 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if left = tagged(t, tag); len(left) == 0 {
			break
		}
	}
	for _, pid := range left {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		t.Errorf("process %d survived Ctrl-C: %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	if t.Failed() {
		log, _ := os.ReadFile(logPath)
		t.Logf("demo output:\n%s\nstderr:\n%s", log, stderr.String())
	}
}

// tagged returns the live processes (zombies aside) whose environment
// holds tag.
func tagged(t *testing.T, tag string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append(env, 0), []byte(tag+"\x00")) {
			continue
		}
		if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] == "Z" {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}
