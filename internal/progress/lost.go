package progress

import (
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	failurepb "go.temporal.io/api/failure/v1"
	workflowpb "go.temporal.io/api/workflow/v1"

	"github.com/notebridge/notebridge/workflows"
)

// LostWorker is an activity a lost worker holds up, as the pending
// activities of a workflow's description show it: a worker that stopped
// heartbeating past the activity's heartbeat timeout (Temporal is about to
// notice), or one Temporal noticed, whose next attempt waits for a worker
// or has not heartbeated yet. Once the new attempt heartbeats, the stall
// is over and the activity is no longer listed.
type LostWorker struct {
	// Activity is the activity type; Workflow the workflow running it.
	Activity, Workflow string
	// Since is the lost worker's last sign of life: its last heartbeat,
	// or the attempt's start.
	Since time.Time
	// Timeout is the activity's heartbeat timeout (0 when the server does
	// not say).
	Timeout time.Duration
	// Noticed is when Temporal timed the lost attempt out (zero while it
	// has not yet).
	Noticed time.Time
	// Attempt is the attempt that runs or waits to run now; Started is
	// set when it runs.
	Attempt int32
	Started bool
}

// LostWorkers finds the activities lost workers hold up among a
// workflow's pending activities at now.
func LostWorkers(workflowID string, pending []*workflowpb.PendingActivityInfo, now time.Time) []LostWorker {
	var out []LostWorker
	for _, a := range pending {
		if a.GetPaused() {
			continue
		}
		hb := a.GetActivityOptions().GetHeartbeatTimeout().AsDuration()
		started := a.GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED || a.GetState() == enumspb.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
		startedAt := a.GetLastStartedTime().AsTime()
		last, beat := startedAt, false
		if h := a.GetLastHeartbeatTime(); h != nil && !h.AsTime().Before(startedAt) {
			last, beat = h.AsTime(), true
		}
		l := LostWorker{Activity: a.GetActivityType().GetName(), Workflow: workflowID, Attempt: a.GetAttempt(), Started: started}
		switch {
		case started && hb > 0 && a.GetLastStartedTime() != nil && now.Sub(last) > hb:
			// Silent past its heartbeat timeout: Temporal times it out
			// any moment now.
			l.Since, l.Timeout = last, hb
		case a.GetAttempt() > 1 && heartbeatTimedOut(a.GetLastFailure()) && !(started && beat):
			// Its heartbeat timed out, and the next attempt has not
			// heartbeated yet.
			switch {
			case a.GetLastAttemptCompleteTime() != nil:
				l.Noticed = a.GetLastAttemptCompleteTime().AsTime()
			case a.GetScheduledTime() != nil:
				l.Noticed = a.GetScheduledTime().AsTime()
			default:
				l.Noticed = now
			}
			l.Since, l.Timeout = l.Noticed.Add(-hb), hb
		default:
			continue
		}
		out = append(out, l)
	}
	return out
}

// where is " in section <path>" for an activity of a section's workflow
// ("" for the notebook's own).
func where(s *Snapshot, l LostWorker) string {
	if l.Workflow == s.ID {
		return ""
	}
	for _, sec := range s.Progress.Sections {
		if workflows.SectionWorkflowID(s.User, s.NotebookID, sec.ID) == l.Workflow {
			return fmt.Sprintf(" in section %q", sec.Path)
		}
	}
	return " in workflow " + l.Workflow
}

// heartbeatTimedOut reports whether f, or a cause of it, is a heartbeat
// timeout: the worker running the attempt stopped heartbeating.
func heartbeatTimedOut(f *failurepb.Failure) bool {
	for ; f != nil; f = f.GetCause() {
		if f.GetTimeoutFailureInfo().GetTimeoutType() == enumspb.TIMEOUT_TYPE_HEARTBEAT {
			return true
		}
	}
	return false
}

// Text is the lost worker as the status display names it at now:
// "EnsureLayout: worker lost 42s ago (no heartbeat for 30s); attempt 2
// waits for a worker".
func (l LostWorker) Text(now time.Time) string {
	why := ""
	if l.Timeout > 0 {
		why = " (no heartbeat for " + ShortDur(l.Timeout) + ")"
	}
	next := fmt.Sprintf("attempt %d waits for a worker", l.Attempt)
	switch {
	case l.Noticed.IsZero():
		why = fmt.Sprintf(" (no heartbeat for %s, past its %s timeout)", ShortDur(now.Sub(l.Since).Round(time.Second)), ShortDur(l.Timeout))
		next = "Temporal runs it again on another worker once it notices, any moment now"
	case l.Started:
		next = fmt.Sprintf("attempt %d started on another worker", l.Attempt)
	}
	return fmt.Sprintf("%s: worker lost %s ago%s; %s", l.Activity, ShortDur(now.Sub(l.Since).Round(time.Second)), why, next)
}

// Short is the lost worker in the one-line status: "EnsureLayout: worker
// lost 42s ago, retrying".
func (l LostWorker) Short(now time.Time) string {
	s := fmt.Sprintf("%s: worker lost %s ago", l.Activity, ShortDur(now.Sub(l.Since).Round(time.Second)))
	if !l.Noticed.IsZero() {
		s += ", retrying"
	}
	return s
}
