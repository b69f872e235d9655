package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
)

const (
	stRunning   = enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING
	stCompleted = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	stFailed    = enumspb.WORKFLOW_EXECUTION_STATUS_FAILED
	stAsNew     = enumspb.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW
)

// runAt is a run of migration id started (and, unless running, closed)
// at hour h of 2026-12-04.
func runAt(id, runID string, st enumspb.WorkflowExecutionStatus, h int) migrationRow {
	at := time.Date(2026, 12, 4, h, 0, 0, 0, time.UTC)
	r := migrationRow{id: id, runID: runID, state: st, started: at}
	if st != stRunning {
		r.closed = at.Add(30 * time.Minute)
	}
	return r
}

// TestPickRun: the one rule for the run a person means, over the runs of
// one migration or the migrations of one user: the running one, else the
// latest completed (never a later failed start), else the latest; the
// reason says which.
func TestPickRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rows    []migrationRow // newest first
		want    string         // run ID
		why     string
		wantErr string
	}{
		{"a failed typo run after the completed migration",
			[]migrationRow{runAt("migrate/alice/typo", "r3", stFailed, 3), runAt("migrate/alice/nb", "r2", stCompleted, 2)},
			"r2", "latest completed migration, ended 2026-12-04 02:30 UTC (skipping 1 later run that did not complete)", ""},
		{"a failed run of the same workflow after its completed one",
			[]migrationRow{runAt("migrate/alice/nb", "r3", stFailed, 3), runAt("migrate/alice/nb", "r2", stCompleted, 2)},
			"r2", "latest completed migration", ""},
		{"the running one first",
			[]migrationRow{runAt("migrate/alice/a", "r3", stCompleted, 3), runAt("migrate/alice/b", "r2", stRunning, 2)},
			"r2", "running migration", ""},
		{"running after a completed run of the same workflow",
			[]migrationRow{runAt("migrate/alice/nb", "r3", stRunning, 3), runAt("migrate/alice/nb", "r2", stCompleted, 2)},
			"r3", "running migration", ""},
		{"the latest of several completed",
			[]migrationRow{runAt("migrate/alice/new", "r3", stCompleted, 3), runAt("migrate/alice/old", "r1", stCompleted, 1)},
			"r3", "latest completed migration, ended 2026-12-04 03:30 UTC", ""},
		{"completed after continuing as new",
			[]migrationRow{runAt("migrate/alice/nb", "r3", stCompleted, 3), runAt("migrate/alice/nb", "r2", stAsNew, 2)},
			"r3", "latest completed", ""},
		{"none completed",
			[]migrationRow{runAt("migrate/alice/x", "r3", stFailed, 3), runAt("migrate/alice/y", "r1", stFailed, 1)},
			"r3", "latest migration (failed; none completed)", ""},
		{"two running", []migrationRow{runAt("migrate/alice/a", "r3", stRunning, 3), runAt("migrate/alice/b", "r1", stRunning, 1)},
			"", "", "2 running migrations (migrate/alice/a, migrate/alice/b)"},
		{"none", nil, "", "", "no migrations"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, why, err := pickRun(tc.rows)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || r.runID != tc.want || !strings.Contains(why, tc.why) {
				t.Errorf("picked %s (%s, %v), want %s (%s)", r.runID, why, err, tc.want, tc.why)
			}
		})
	}
}

// fakeRuns lists runs as Temporal's visibility would: rows newest first,
// but for the runs it has not indexed yet (unlisted), which only a
// describe sees.
type fakeRuns struct {
	rows      []migrationRow
	unlisted  map[string]bool
	notebooks map[string]string // name -> ID, the last scan
}

func (f fakeRuns) list(_ context.Context, lf listFilter, limit int) ([]migrationRow, error) {
	var out []migrationRow
	for _, r := range f.rows {
		if f.unlisted[r.runID] || lf.workflowID != "" && r.id != lf.workflowID ||
			lf.user != "" && !strings.HasPrefix(r.id, "migrate/"+lf.user+"/") {
			continue
		}
		out = append(out, r)
	}
	return out[:min(limit, len(out))], nil
}

func (f fakeRuns) latest(_ context.Context, id, runID string) (migrationRow, error) {
	for _, r := range f.rows {
		if r.id == id && (runID == "" || r.runID == runID) {
			return r, nil
		}
	}
	return migrationRow{}, serviceerror.NewNotFound("workflow not found")
}

func (f fakeRuns) notebookID(_ context.Context, _, name string) string { return f.notebooks[name] }

// TestResolveRun: every way of naming a migration (-w, --user and
// --notebook by ID or name, --user alone) takes its run by pickRun, and
// says which when it is not the latest; --run-id names one.
func TestResolveRun(t *testing.T) {
	nb := "migrate/alice/0-nb!101"
	other := "migrate/alice/0-other"
	failedAfterCompleted := []migrationRow{runAt(nb, "r3", stFailed, 3), runAt(nb, "r2", stCompleted, 2), runAt(nb, "r1", stFailed, 1)}
	for _, tc := range []struct {
		name    string
		flags   targetFlags
		runs    fakeRuns
		want    runRef
		told    []string // in what starter says it picked
		wantErr string
		notTold bool
	}{
		{name: "-w: a failed run after a completed one", flags: targetFlags{workflowID: nb},
			runs: fakeRuns{rows: failedAfterCompleted}, want: runRef{nb, "r2"},
			told: []string{"Migration " + nb + " run r2: its latest completed migration, ended 2026-12-04 02:30 UTC", "the latest run, r3, failed", "--run-id"}},
		{name: "--notebook by ID: a failed run after a completed one", flags: targetFlags{user: "alice", notebook: "0-nb!101"},
			runs: fakeRuns{rows: failedAfterCompleted}, want: runRef{nb, "r2"}, told: []string{"run r2"}},
		{name: "--notebook by name, from the last scan", flags: targetFlags{user: "alice", notebook: "Work"},
			runs: fakeRuns{rows: failedAfterCompleted, notebooks: map[string]string{"Work": "0-nb!101"}}, want: runRef{nb, "r2"}, told: []string{"run r2"}},
		{name: "-w: the latest run running follows the latest", flags: targetFlags{workflowID: nb},
			runs: fakeRuns{rows: []migrationRow{runAt(nb, "r3", stRunning, 3), runAt(nb, "r2", stCompleted, 2)}}, want: runRef{id: nb}, notTold: true},
		{name: "-w: a run visibility has not listed yet", flags: targetFlags{workflowID: nb},
			runs: fakeRuns{rows: []migrationRow{runAt(nb, "r3", stRunning, 3), runAt(nb, "r2", stCompleted, 2)}, unlisted: map[string]bool{"r3": true}},
			want: runRef{id: nb}, notTold: true},
		{name: "-w: only failed runs, the latest", flags: targetFlags{workflowID: nb},
			runs: fakeRuns{rows: []migrationRow{runAt(nb, "r3", stFailed, 3), runAt(nb, "r1", stFailed, 1)}}, want: runRef{id: nb}, notTold: true},
		{name: "--run-id pins a run", flags: targetFlags{workflowID: nb, runID: "r1"},
			runs: fakeRuns{rows: failedAfterCompleted}, want: runRef{nb, "r1"}, notTold: true},
		{name: "--run-id of no run", flags: targetFlags{workflowID: nb, runID: "r9"},
			runs: fakeRuns{rows: failedAfterCompleted}, wantErr: "no run r9 of migration " + nb},
		{name: "--user alone: the completed migration, not a later failed one", flags: targetFlags{user: "alice"},
			runs: fakeRuns{rows: []migrationRow{runAt(other, "o4", stFailed, 4), runAt(nb, "r2", stCompleted, 2)}}, want: runRef{id: nb},
			told: []string{"Migration " + nb + ": the user's latest completed migration", "skipping 1 later run"}},
		{name: "--user alone: a completed run followed by a failed run of it", flags: targetFlags{user: "alice"},
			runs: fakeRuns{rows: failedAfterCompleted}, want: runRef{nb, "r2"}, told: []string{"Migration " + nb + " run r2: the user's latest completed"}},
		{name: "--user alone: none", flags: targetFlags{user: "bob"}, runs: fakeRuns{rows: failedAfterCompleted},
			wantErr: `user "bob" has no migrations`},
		{name: "-w: no such workflow", flags: targetFlags{workflowID: "migrate/alice/nope"}, runs: fakeRuns{rows: failedAfterCompleted},
			wantErr: `no workflow "migrate/alice/nope"`},
		{name: "--notebook: no such notebook", flags: targetFlags{user: "alice", notebook: "Nope"}, runs: fakeRuns{rows: failedAfterCompleted},
			wantErr: `no migration of notebook "Nope" for user "alice"`},
		{name: "nothing named", flags: targetFlags{}, runs: fakeRuns{}, wantErr: "name the migration with -w"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var told bytes.Buffer
			f := tc.flags
			f.told = &told
			ref, err := f.resolve(context.Background(), tc.runs)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v (%+v), want an error naming %q", err, ref, tc.wantErr)
				}
				return
			}
			if err != nil || ref != tc.want {
				t.Fatalf("resolved %+v (%v), want %+v", ref, err, tc.want)
			}
			for _, w := range tc.told {
				if !strings.Contains(told.String(), w) {
					t.Errorf("told %q, want it to name %q", told.String(), w)
				}
			}
			if tc.notTold && told.Len() > 0 {
				t.Errorf("told %q for the run Temporal takes anyway", told.String())
			}
		})
	}
}
