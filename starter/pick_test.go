package main

import (
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
)

// TestPickMigration: a user alone names their running migration, else
// the latest completed one (never a later failed start), else the latest;
// the reason says which.
func TestPickMigration(t *testing.T) {
	at := func(h int) time.Time { return time.Date(2026, 12, 4, h, 0, 0, 0, time.UTC) }
	row := func(id string, st enumspb.WorkflowExecutionStatus, h int) migrationRow {
		return migrationRow{id: id, state: st, started: at(h), closed: at(h)}
	}
	const (
		running   = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
		completed = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
		failed    = enumspb.WORKFLOW_EXECUTION_STATUS_FAILED
	)
	for _, tc := range []struct {
		name    string
		rows    []migrationRow // newest first
		want    string
		why     string
		wantErr string
	}{
		{"a failed typo run after the completed migration", []migrationRow{row("migrate/alice/typo", failed, 3), row("migrate/alice/nb", completed, 2)},
			"migrate/alice/nb", "latest completed migration, ended 2026-12-04 02:00 UTC", ""},
		{"the running one first", []migrationRow{row("migrate/alice/a", completed, 3), row("migrate/alice/b", running, 2)},
			"migrate/alice/b", "running migration", ""},
		{"the latest of several completed", []migrationRow{row("migrate/alice/new", completed, 3), row("migrate/alice/old", completed, 1)},
			"migrate/alice/new", "latest completed", ""},
		{"none completed", []migrationRow{row("migrate/alice/x", failed, 3), row("migrate/alice/y", failed, 1)},
			"migrate/alice/x", "latest migration (failed; none completed)", ""},
		{"two running", []migrationRow{row("migrate/alice/a", running, 3), row("migrate/alice/b", running, 1)},
			"", "", "2 running migrations"},
		{"none", nil, "", "", "has no migrations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, why, err := pickMigration("alice", tc.rows)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || r.id != tc.want || !strings.Contains(why, tc.why) {
				t.Errorf("picked %s (%s, %v), want %s (%s)", r.id, why, err, tc.want, tc.why)
			}
		})
	}
}
