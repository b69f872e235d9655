package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/internal/shell/shelltest"
)

// TestPrintedCommandsPaste collects the commands starter prints (every
// command's temporal CLI equivalent in its help, and the starter commands
// it suggests) for a migration whose ID holds "!", as OneNote IDs do, on
// a Temporal server at another address than the default, pastes each into
// bash with history expansion on, and checks it parses, carries the ID
// as one word and names the server.
func TestPrintedCommandsPaste(t *testing.T) {
	const (
		addr = "127.0.0.1:41937"
		id   = "migrate/alice/0-5f1a!101"
	)
	t.Setenv("TEMPORAL_ADDRESS", addr)
	t.Setenv("TEMPORAL_NAMESPACE", "")
	t.Setenv("NOTEBRIDGE_TASK_QUEUE", "")
	var lines []string
	for _, args := range [][]string{
		{"scan", "--user", "alice"},
		{"migrate", "--user", "alice", "--notebook", "0-5f1a!101", "--notion-parent", "p!1"},
		{"status", "-w", id},
		{"retry", "-w", id, "--section", "0-5f1a!2-9c!s3"},
		{"retry", "-w", id, "--all"},
		{"finish", "-w", id},
		{"report", "-w", id},
		{"list", "--user", "alice"},
		{"login", "--user", "alice"},
	} {
		r := runOffline(t, append(args, "--help")...)
		if r.code != 0 {
			t.Fatalf("%v: %v", args, r)
		}
		_, block, ok := strings.Cut(r.stdout, "The same with the temporal CLI:\n")
		if !ok {
			t.Fatalf("%v: no temporal CLI command in the help", args)
		}
		block, _, _ = strings.Cut(block, "\n\nFlags:")
		for l := range strings.SplitSeq(block, "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "temporal ") {
				lines = append(lines, l)
			}
		}
	}
	tf := &temporalFlags{address: addr, namespace: defaultNamespace}
	lines = append(lines, tf.starter("status", "-w", id, "--follow"), tf.starter("retry", "-w", id),
		tf.starter("finish", "-w", id))
	if len(lines) < 10 {
		t.Fatalf("collected only %d commands: %q", len(lines), lines)
	}
	for _, l := range lines {
		// The temporal CLI's # comments end a line in bash too.
		cmds, err := shelltest.Paste(l)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(cmds) != 1 {
			t.Errorf("%s pastes as %d commands", l, len(cmds))
			continue
		}
		w := cmds[0]
		if strings.Contains(l, "0-5f1a") && !slices.ContainsFunc(w, func(s string) bool { return strings.Contains(s, "0-5f1a!") }) {
			t.Errorf("%s pastes as %q: the ID is not one word", l, w)
		}
		if !slices.Contains(w, addr) {
			t.Errorf("%s names no Temporal address (%s)", l, addr)
		}
		t.Log(l)
	}
	// At the default address, starter's commands say nothing of it.
	def := &temporalFlags{address: defaultAddress, namespace: defaultNamespace}
	if got := def.starter("status", "-w", id); got != "starter status -w 'migrate/alice/0-5f1a!101'" {
		t.Errorf("at the default address: %s", got)
	}
}
