package workflows

import (
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/internal/shell/shelltest"
)

// TestProgressNamesAStalledStep: a step of the notebook's own (here the
// layout, whose worker was lost in issue 35) that shows no change for
// over stepStallAfter is named in progress as stalled, with the commands
// that show its activity and the workers; a step that moves, or one
// younger than that, is not; nor are the phases that wait by design.
func TestProgressNamesAStalledStep(t *testing.T) {
	start := time.Date(2026, 12, 5, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		phase string
		since time.Duration // how long ago the phase began
		stall bool
	}{
		{"layout for 2 minutes", "creating Notion containers", 2 * time.Minute, true},
		{"layout for 40 s", "creating Notion containers", 40 * time.Second, false},
		{"report for 5 minutes", "writing the migration report", 5 * time.Minute, true},
		{"link pass moving", "rewriting links: 40 of about 160 pages", 10 * time.Second, false},
		{"waiting for the operator", PhaseWaiting, time.Hour, false},
		{"done", "done", time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now := start.Add(time.Hour)
			nb := &notebook{dep: deployment{App: "app", Shards: 1}, in: MigrateInput{User: "alice"}, id: "0-nb!1", taskQueue: "notebridge",
				phase: tc.phase, now: now, step: stepWatch{phase: tc.phase, since: now.Add(-tc.since)}, live: map[string]*SectionPulse{}}
			h := nb.progress().Health
			if got := h.Stall != ""; got != tc.stall {
				t.Fatalf("stall %q, want stalled %t", h.Stall, tc.stall)
			}
			if !tc.stall {
				return
			}
			if h.State != "stalled" || !strings.Contains(h.Stall, tc.phase) || !strings.Contains(h.Stall, tc.since.String()) {
				t.Errorf("stall %q (state %s): want the step %q named with how long", h.Stall, h.State, tc.phase)
			}
			for _, want := range []string{"temporal workflow describe", "temporal task-queue describe"} {
				if !strings.Contains(h.Next, want) {
					t.Errorf("next %q: want %q", h.Next, want)
				}
			}
			for _, cmd := range backticked(h.Next) {
				if _, err := shelltest.Paste(cmd); err != nil {
					t.Errorf("next %q does not paste: %v", cmd, err)
				}
			}
		})
	}
}

// backticked is the commands in backticks in s.
func backticked(s string) []string {
	parts := strings.Split(s, "`")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	return out
}
