package entity

import (
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// updateCallbacks collects one update's outcome in the test environment.
type updateCallbacks struct {
	rejected, failed error
	result           ReserveResult
	done             bool
}

func (u *updateCallbacks) Accept()          {}
func (u *updateCallbacks) Reject(err error) { u.rejected, u.done = err, true }
func (u *updateCallbacks) Complete(v any, err error) {
	u.done, u.failed = true, err
	if r, ok := v.(ReserveResult); ok {
		u.result = r
	}
}

// TestPaceWorkflowHandsOutSlotsPausesAndCarriesStateAcrossRuns drives the
// pace entity with updates in the test environment (mock clock): slots
// keep the window, a pause moves every later slot past it and revokes a
// tentative slot inside it, a bad request is rejected, and after
// MaxUpdates the run continues as new with the schedule in its input.
func TestPaceWorkflowHandsOutSlotsPausesAndCarriesStateAcrossRuns(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	spec := limiter.PaceSpec{Windows: []limiter.Window{{Limit: 2, Per: limiter.Duration(time.Second)}}, Horizon: limiter.Duration(100 * time.Millisecond)}
	start := env.Now()
	calls := []ReserveRequest{
		{Slots: -1},
		{Slots: 2},
		{Slots: 2},
		{PauseUntil: start.Add(5 * time.Second)},
		{Slots: 0, Confirm: start.Add(time.Second)},
	}
	got := make([]*updateCallbacks, len(calls))
	for i, req := range calls {
		got[i] = &updateCallbacks{}
		env.RegisterDelayedCallback(func() { env.UpdateWorkflow(UpdateReserve, "", got[i], req) }, time.Duration(i+1)*time.Millisecond)
	}
	env.ExecuteWorkflow(PaceWorkflow, PaceInput{Resource: ResourceNotion, Key: "fp", Spec: &spec, MaxUpdates: 4})

	if g := got[0]; g.rejected == nil || !strings.Contains(g.rejected.Error(), ErrBadReserve.Error()) {
		t.Errorf("a request for -1 slots: rejected %v, failed %v", g.rejected, g.failed)
	}
	got = got[1:]
	for i, g := range got {
		if !g.done || g.rejected != nil || g.failed != nil {
			t.Fatalf("update %d: done %v, rejected %v, failed %v", i, g.done, g.rejected, g.failed)
		}
	}
	if r := got[0].result; len(r.Slots) != 2 || r.Firm != 2 || r.Spec != "2/1s" {
		t.Errorf("first reservation: %+v", r)
	}
	if r := got[1].result; len(r.Slots) != 2 || r.Firm != 0 || r.Slots[0].Sub(start) < time.Second {
		t.Errorf("second reservation: %+v, want two tentative slots a second on", r)
	}
	if p := got[2].result.Pause; p == nil || !p.Until.Equal(start.Add(5*time.Second)) {
		t.Errorf("pause: %+v", got[2].result)
	}
	if r := got[3].result; r.Confirmed || len(r.Slots) != 1 || r.Slots[0].Before(start.Add(5*time.Second)) {
		t.Errorf("confirming a slot inside the pause: %+v, want it revoked and replaced after the pause", r)
	}

	err := env.GetWorkflowError()
	var can *workflow.ContinueAsNewError
	if !errors.As(err, &can) {
		t.Fatalf("the run ended with %v, want continue-as-new", err)
	}
	var next PaceInput
	if err := converter.GetDefaultDataConverter().FromPayloads(can.Input, &next); err != nil {
		t.Fatal(err)
	}
	if next.Spec != nil || len(next.State) == 0 || next.Stats.Reservations != 3 || next.Stats.Pauses != 1 || next.Stats.Revoked != 1 || next.Stats.Runs != 1 {
		t.Errorf("continued with %+v", next)
	}
	var restored limiter.Schedule
	if err := restored.UnmarshalJSON(next.State); err != nil {
		t.Fatal(err)
	}
	if snap := restored.Snapshot(start); !snap.PausedUntil.Equal(start.Add(5*time.Second)) || snap.Ahead != 3 {
		t.Errorf("carried schedule: %+v", snap)
	}
}

// TestPaceWorkflowAdoptsARequestersSpec checks that a reservation
// carrying another spec (a worker started with new limits) replaces the
// entity's, and that one carrying the same spec changes nothing.
func TestPaceWorkflowAdoptsARequestersSpec(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	old := limiter.PaceSpec{Windows: []limiter.Window{{Limit: 1, Per: limiter.Duration(time.Second)}}}
	raised := limiter.PaceSpec{Windows: []limiter.Window{{Limit: 3, Per: limiter.Duration(time.Second)}}}
	calls := []ReserveRequest{{Slots: 3, Spec: &old}, {Slots: 3, Spec: &raised}, {Slots: 1}}
	got := make([]*updateCallbacks, len(calls))
	for i, req := range calls {
		got[i] = &updateCallbacks{}
		env.RegisterDelayedCallback(func() { env.UpdateWorkflow(UpdateReserve, "", got[i], req) }, time.Duration(i+1)*time.Millisecond)
	}
	env.ExecuteWorkflow(PaceWorkflow, PaceInput{Resource: ResourceNotion, Key: "fp", Spec: &old, MaxUpdates: len(calls)})
	want := []struct {
		spec  string
		slots int
	}{{"1/1s", 1}, {"3/1s", 3}, {"3/1s", 1}}
	for i, g := range got {
		if g.failed != nil || g.rejected != nil || g.result.Spec != want[i].spec || len(g.result.Slots) != want[i].slots {
			t.Errorf("update %d: %+v (failed %v, rejected %v); want spec %s and %d slots", i, g.result, g.failed, g.rejected, want[i].spec, want[i].slots)
		}
	}
	var can *workflow.ContinueAsNewError
	var next PaceInput
	if !errors.As(env.GetWorkflowError(), &can) || converter.GetDefaultDataConverter().FromPayloads(can.Input, &next) != nil {
		t.Fatalf("the run ended with %v", env.GetWorkflowError())
	}
	if next.Stats.SpecChanges != 1 {
		t.Errorf("%d spec changes, want 1", next.Stats.SpecChanges)
	}
}
