package workflows_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/workflows"
)

// TestCancelledNotebookReleasesPermits cancels, then terminates, a
// notebook while its sections hold limiter permits: the sections are
// asked to cancel (by the cancelled notebook, or by ParentClosePolicy
// REQUEST_CANCEL when it is terminated), wind down and give every permit
// back, released rather than left to expire.
func TestCancelledNotebookReleasesPermits(t *testing.T) {
	h := newHarness(t)
	for _, terminate := range []bool{false, true} {
		name := "cancel"
		if terminate {
			name = "terminate"
		}
		t.Run(name, func(t *testing.T) { h.endMidSection(t, terminate) })
	}
}

// endMidSection starts a migration and ends it (cancel or terminate)
// mid-section, then checks that the limiter got every permit back.
func (h *harness) endMidSection(t *testing.T, terminate bool) {
	run := h.start(t, h.input())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// Mid-section: pages are running, several permits held at once.
	before := h.limiterState(t)
	start := h.limiterState(t).Stats.Granted[e2eUser]
	for len(before.Model.Leases) < 3 || before.Stats.Granted[e2eUser] < start+20 {
		if ctx.Err() != nil {
			t.Fatal("the sections never held several permits at once")
		}
		time.Sleep(10 * time.Millisecond)
		before = h.limiterState(t)
	}
	if terminate {
		if err := h.c.TerminateWorkflow(ctx, run.GetID(), run.GetRunID(), "test: the notebook ends mid-section"); err != nil {
			t.Fatal(err)
		}
		var terminated *temporal.TerminatedError
		if err := run.Get(ctx, nil); !errors.As(err, &terminated) {
			t.Fatalf("notebook ended with %v, want terminated", err)
		}
	} else {
		if err := h.c.CancelWorkflow(ctx, run.GetID(), run.GetRunID()); err != nil {
			t.Fatal(err)
		}
		var canceled *temporal.CanceledError
		if err := run.Get(ctx, nil); !errors.As(err, &canceled) {
			t.Fatalf("notebook ended with %v, want cancelled", err)
		}
	}
	// Every section that ran ends cancelled (or had finished before).
	for _, sec := range emuSections(h.notebooks[0]) {
		id := workflows.SectionWorkflowID(e2eUser, h.notebooks[0].ID, sec.ID)
		for {
			desc, err := h.c.DescribeWorkflow(ctx, id, "")
			if err != nil { // never started
				break
			}
			st := desc.RawResponse.GetWorkflowExecutionInfo().GetStatus()
			if st == enums.WORKFLOW_EXECUTION_STATUS_CANCELED || st == enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
				break
			}
			if st != enums.WORKFLOW_EXECUTION_STATUS_RUNNING || ctx.Err() != nil {
				t.Fatalf("section %s is %v after its notebook ended", sec.DisplayName, st)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Their releases reach the limiter: no lease left, none expired.
	after := h.limiterState(t)
	for len(after.Model.Leases) > 0 || after.Model.Queued != [2]int{} {
		if ctx.Err() != nil {
			t.Fatalf("the limiter still holds %d leases, %v queued, after the sections ended", len(after.Model.Leases), after.Model.Queued)
		}
		time.Sleep(50 * time.Millisecond)
		after = h.limiterState(t)
	}
	granted := 0
	for _, n := range after.Stats.Granted {
		granted += n
	}
	t.Logf("cancelled with %d leases held; the limiter then had %d granted, %d released, %d expired",
		len(before.Model.Leases), granted, after.Stats.Released, after.Stats.Expired)
	if after.Stats.Expired != before.Stats.Expired {
		t.Errorf("%d leases expired after the cancel: the sections did not release them", after.Stats.Expired-before.Stats.Expired)
	}
	if after.Stats.Released < granted-after.Stats.Expired {
		t.Errorf("%d permits granted, %d released, %d expired: some were never given back", granted, after.Stats.Released, after.Stats.Expired)
	}
}
