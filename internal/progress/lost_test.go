package progress

import (
	"strings"
	"testing"
	"time"

	activitypb "go.temporal.io/api/activity/v1"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	workflowpb "go.temporal.io/api/workflow/v1"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/notebridge/notebridge/workflows"
)

// pending is a pending activity as DescribeWorkflowExecution shows it,
// its times in seconds before now (-1 for unset).
type pending struct {
	state                            enumspb.PendingActivityState
	attempt                          int32
	hbTimeout                        time.Duration
	started, heartbeat, lastComplete int
	failure                          *failurepb.Failure
	paused                           bool
}

func (p pending) info(now time.Time) *workflowpb.PendingActivityInfo {
	at := func(s int) *timestamppb.Timestamp {
		if s < 0 {
			return nil
		}
		return timestamppb.New(now.Add(-time.Duration(s) * time.Second))
	}
	a := &workflowpb.PendingActivityInfo{ActivityId: "7", ActivityType: &commonpb.ActivityType{Name: "EnsureLayout"},
		State: p.state, Attempt: p.attempt, LastStartedTime: at(p.started), LastHeartbeatTime: at(p.heartbeat),
		LastAttemptCompleteTime: at(p.lastComplete), ScheduledTime: at(p.lastComplete), LastFailure: p.failure, Paused: p.paused}
	if p.hbTimeout > 0 {
		a.ActivityOptions = &activitypb.ActivityOptions{HeartbeatTimeout: durationpb.New(p.hbTimeout), StartToCloseTimeout: durationpb.New(10 * time.Minute)}
	}
	return a
}

func heartbeatTimeout() *failurepb.Failure {
	return &failurepb.Failure{Message: "activity Heartbeat timeout",
		FailureInfo: &failurepb.Failure_TimeoutFailureInfo{TimeoutFailureInfo: &failurepb.TimeoutFailureInfo{TimeoutType: enumspb.TIMEOUT_TYPE_HEARTBEAT}}}
}

// TestLostWorkers: an activity whose worker stopped heartbeating past its
// heartbeat timeout, or whose next attempt (after a heartbeat timeout)
// waits for a worker or has not heartbeated yet, is named with how long
// ago its worker was lost; one that heartbeats, or failed otherwise, is
// not.
func TestLostWorkers(t *testing.T) {
	const (
		startedSt   = enumspb.PENDING_ACTIVITY_STATE_STARTED
		scheduledSt = enumspb.PENDING_ACTIVITY_STATE_SCHEDULED
		hb          = 30 * time.Second
	)
	notionDown := &failurepb.Failure{Message: "Notion 503", FailureInfo: &failurepb.Failure_ApplicationFailureInfo{
		ApplicationFailureInfo: &failurepb.ApplicationFailureInfo{Type: "NotionRetryable"}}}
	wrapped := &failurepb.Failure{Message: "activity error", Cause: heartbeatTimeout()}
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		p           pending
		text, short string // "" for none lost
	}{
		{"heartbeating", pending{state: startedSt, attempt: 1, hbTimeout: hb, started: 100, heartbeat: 10, lastComplete: -1}, "", ""},
		{"quiet, but within its heartbeat timeout", pending{state: startedSt, attempt: 1, hbTimeout: hb, started: 100, heartbeat: 25, lastComplete: -1}, "", ""},
		{"silent past its heartbeat timeout", pending{state: startedSt, attempt: 1, hbTimeout: hb, started: 100, heartbeat: 34, lastComplete: -1},
			"EnsureLayout: worker lost 34s ago (no heartbeat for 34s, past its 30s timeout); Temporal runs it again on another worker once it notices",
			"EnsureLayout: worker lost 34s ago"},
		{"never heartbeated, past its heartbeat timeout", pending{state: startedSt, attempt: 1, hbTimeout: hb, started: 31, heartbeat: -1, lastComplete: -1},
			"EnsureLayout: worker lost 31s ago (no heartbeat for 31s", "EnsureLayout: worker lost 31s ago"},
		{"no heartbeat timeout known: nothing to tell by", pending{state: startedSt, attempt: 1, started: 300, heartbeat: -1, lastComplete: -1}, "", ""},
		{"noticed: the next attempt waits for a worker",
			pending{state: scheduledSt, attempt: 2, hbTimeout: hb, started: 45, heartbeat: 42, lastComplete: 12, failure: heartbeatTimeout()},
			"EnsureLayout: worker lost 42s ago (no heartbeat for 30s); attempt 2 waits for a worker",
			"EnsureLayout: worker lost 42s ago, retrying"},
		{"noticed, as the dev server shows it: no start time while the next attempt waits",
			pending{state: scheduledSt, attempt: 2, hbTimeout: hb, started: -1, heartbeat: -1, lastComplete: 5, failure: heartbeatTimeout()},
			"EnsureLayout: worker lost 35s ago (no heartbeat for 30s); attempt 2 waits for a worker", "retrying"},
		{"noticed: the next attempt started, no heartbeat yet",
			pending{state: startedSt, attempt: 2, hbTimeout: hb, started: 1, heartbeat: 42, lastComplete: 2, failure: heartbeatTimeout()},
			"EnsureLayout: worker lost 32s ago (no heartbeat for 30s); attempt 2 started on another worker",
			"EnsureLayout: worker lost 32s ago, retrying"},
		{"a heartbeat timeout in the cause", pending{state: scheduledSt, attempt: 3, hbTimeout: hb, started: 40, heartbeat: -1, lastComplete: 5, failure: wrapped},
			"attempt 3 waits for a worker", "retrying"},
		{"the next attempt heartbeats: over", pending{state: startedSt, attempt: 2, hbTimeout: hb, started: 8, heartbeat: 3, lastComplete: 9, failure: heartbeatTimeout()}, "", ""},
		{"retried after another failure", pending{state: scheduledSt, attempt: 2, hbTimeout: hb, started: 40, heartbeat: 41, lastComplete: 5, failure: notionDown}, "", ""},
		{"paused by an operator", pending{state: startedSt, attempt: 1, hbTimeout: hb, started: 100, heartbeat: 90, lastComplete: -1, paused: true}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lost := LostWorkers("migrate/alice/nb", []*workflowpb.PendingActivityInfo{tc.p.info(now)}, now)
			if tc.text == "" {
				if len(lost) != 0 {
					t.Fatalf("named %q, want nothing", lost[0].Text(now))
				}
				return
			}
			if len(lost) != 1 {
				t.Fatalf("named %d lost workers, want 1", len(lost))
			}
			if got := lost[0].Text(now); !strings.Contains(got, tc.text) {
				t.Errorf("text %q, want it to hold %q", got, tc.text)
			}
			if got := lost[0].Short(now); !strings.Contains(got, tc.short) {
				t.Errorf("short %q, want it to hold %q", got, tc.short)
			}
		})
	}
}

// TestLostWorkerShown: the status display and the one-line status name a
// lost worker while the migration runs (in which section, for a
// section's activity), before the workflow's own minute-long stall
// threshold, and the line changes key when it appears.
func TestLostWorkerShown(t *testing.T) {
	now := time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC)
	secID := workflows.SectionWorkflowID("alice", "nb", "s1")
	snap := &Snapshot{ID: "migrate/alice/nb", User: "alice", NotebookID: "nb", Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING,
		Started: now.Add(-time.Minute), Now: now, ProgressOK: true,
		Progress: workflows.NotebookProgress{Phase: "migrating", Sections: []workflows.SectionSummary{
			{SectionRef: workflows.SectionRef{ID: "s1", Path: "NB / Work"}, Status: workflows.SectionRunning}}}}
	before := Key(snap, TotalsOf(snap, nil))
	if h := HealthShort(snap); strings.Contains(h, "lost") {
		t.Fatalf("health %q before any loss", h)
	}
	snap.Lost = []LostWorker{
		{Activity: "EnsureLayout", Workflow: snap.ID, Since: now.Add(-42 * time.Second), Noticed: now.Add(-12 * time.Second), Timeout: 30 * time.Second, Attempt: 2},
		{Activity: "WritePage", Workflow: secID, Since: now.Add(-35 * time.Second), Timeout: 30 * time.Second, Attempt: 1, Started: true},
	}
	if got, want := HealthShort(snap), "STALLED EnsureLayout: worker lost 42s ago, retrying (+1 more)"; got != want {
		t.Errorf("health %q, want %q", got, want)
	}
	if !strings.Contains(Line(snap, TotalsOf(snap, nil)), "STALLED EnsureLayout: worker lost 42s ago, retrying") {
		t.Errorf("line %q does not name the lost worker", Line(snap, TotalsOf(snap, nil)))
	}
	if Key(snap, TotalsOf(snap, nil)) == before {
		t.Error("the line's key did not change when a worker was lost")
	}
	var rows []string
	for _, r := range HealthLines(snap) {
		if r[0] == "worker lost" {
			rows = append(rows, r[1])
		}
	}
	if len(rows) != 2 || strings.Contains(rows[0], "section") || !strings.Contains(rows[1], `WritePage: worker lost 35s ago`) ||
		!strings.Contains(rows[1], `in section "NB / Work"`) {
		t.Errorf("health rows %q, want EnsureLayout's, then WritePage's in section \"NB / Work\"", rows)
	}
	snap.Status = enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED
	if h := HealthShort(snap); h != "" {
		t.Errorf("health %q of a migration that ended", h)
	}
}
