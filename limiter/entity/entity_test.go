package entity

import (
	"fmt"
	"slices"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
)

// The tests run a harness workflow that starts the limiter and requesters
// as children, so the test environment routes their signals for real.

const (
	testResource = "graph-test"
	testApp      = "app"
)

// testSpec allows user u 3 concurrent requests, 1,000 a minute.
func testSpec(concurrency int) *limiter.Spec {
	s := limiter.OneNote()
	s.Name = "test"
	s.User = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 1000, Per: limiter.Duration(time.Minute)}}, Concurrency: concurrency}
	s.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 2000, Per: limiter.Duration(time.Minute)}}, Concurrency: 2 * concurrency}
	s.Tuning.Reserve = 0
	s.Tuning.LeaseTTL = limiter.Duration(5 * time.Minute)
	return &s
}

// step is one acquire of a requester: at offset After from the requester's
// start, ask in Lane and hold the permit for Hold (or never release it).
type step struct {
	After   time.Duration
	Lane    limiter.Lane
	Hold    time.Duration
	NoRelse bool
	// Cost and MinCost are asked for (0: 1, and all or nothing); the
	// release says Unsent of the granted units were never sent.
	Cost, MinCost, Unsent int
	// Remaining is the user's work left, as the ask reports it.
	Remaining int
}

type requesterInput struct {
	Name  string
	User  string
	Steps []step
	// AskAhead is the client's (ClientOptions.AskAhead); Spec its spec,
	// set by the harness to the limiter's.
	AskAhead int
	Spec     *limiter.Spec
}

// event is one grant a requester received.
type event struct {
	Requester string
	Step      int
	Lane      limiter.Lane
	Granted   time.Time
	LeaseID   string
	Cost      int
}

type requesterResult struct {
	Events []event
	Stats  ClientStats
}

func requester(ctx workflow.Context, in requesterInput) (requesterResult, error) {
	c := NewClient(ctx, ClientOptions{Resource: testResource, App: testApp, AssumeRunning: true, AskAhead: in.AskAhead, Spec: in.Spec})
	start := workflow.Now(ctx)
	var res requesterResult
	wg := workflow.NewWaitGroup(ctx)
	var firstErr error
	for i, s := range in.Steps {
		wg.Add(1)
		workflow.Go(ctx, func(ctx workflow.Context) {
			defer wg.Done()
			if d := s.After - workflow.Now(ctx).Sub(start); d > 0 {
				_ = workflow.Sleep(ctx, d)
			}
			p, err := c.Acquire(ctx, AskOptions{User: in.User, Lane: s.Lane, Cost: s.Cost, MinCost: s.MinCost, Remaining: s.Remaining})
			if err != nil {
				firstErr = err
				return
			}
			sent := workflow.Now(ctx)
			res.Events = append(res.Events, event{Requester: in.Name, Step: i, Lane: s.Lane, Granted: sent, LeaseID: p.LeaseID, Cost: p.Cost})
			_ = workflow.Sleep(ctx, s.Hold)
			if !s.NoRelse {
				c.Release(ctx, p, limiter.Outcome{Status: 200, Sent: sent, Unsent: s.Unsent})
			}
		})
	}
	wg.Wait(ctx)
	if err := c.Flush(ctx); err != nil {
		return res, err
	}
	res.Stats = c.Stats
	return res, firstErr
}

type harnessInput struct {
	Spec          *limiter.Spec
	ContinueAfter int
	Requesters    []requesterInput
	// Stagger starts requester i at i*Stagger.
	Stagger time.Duration
}

func harness(ctx workflow.Context, in harnessInput) ([]requesterResult, error) {
	lctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        WorkflowID(testResource, testApp),
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_TERMINATE,
	})
	lim := workflow.ExecuteChildWorkflow(lctx, WorkflowName, Input{Resource: testResource, App: testApp, Spec: in.Spec, ContinueAfter: in.ContinueAfter})
	if err := lim.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return nil, err
	}
	futures := make([]workflow.ChildWorkflowFuture, len(in.Requesters))
	for i, r := range in.Requesters {
		if i > 0 && in.Stagger > 0 {
			_ = workflow.Sleep(ctx, in.Stagger)
		}
		r.Spec = in.Spec
		rctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: "requester-" + r.Name})
		futures[i] = workflow.ExecuteChildWorkflow(rctx, requester, r)
	}
	out := make([]requesterResult, len(futures))
	for i, f := range futures {
		if err := f.Get(ctx, &out[i]); err != nil {
			return nil, fmt.Errorf("requester %d: %w", i, err)
		}
	}
	return out, nil
}

func run(t *testing.T, in harnessInput) []requesterResult {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterWorkflow(requester)
	env.RegisterWorkflow(harness)
	env.ExecuteWorkflow(harness, in)
	if !env.IsWorkflowCompleted() {
		t.Fatal("harness did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("harness: %v", err)
	}
	var out []requesterResult
	if err := env.GetWorkflowResult(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

func allEvents(rs []requesterResult) []event {
	var evs []event
	for _, r := range rs {
		evs = append(evs, r.Events...)
	}
	slices.SortStableFunc(evs, func(a, b event) int { return a.Granted.Compare(b.Granted) })
	return evs
}

func TestForegroundIsGrantedFirst(t *testing.T) {
	// One slot. The holder keeps it for a minute; meanwhile three
	// background and two foreground requests queue (background first).
	// When the slot frees, both foreground requests must go before any
	// background one.
	hold := step{Lane: limiter.Background, Hold: time.Minute}
	in := harnessInput{Spec: testSpec(1), Requesters: []requesterInput{{Name: "mix", User: "u", Steps: []step{
		hold,
		{After: 10 * time.Second, Lane: limiter.Background, Hold: time.Second},
		{After: 11 * time.Second, Lane: limiter.Background, Hold: time.Second},
		{After: 12 * time.Second, Lane: limiter.Background, Hold: time.Second},
		{After: 20 * time.Second, Lane: limiter.Foreground, Hold: time.Second},
		{After: 21 * time.Second, Lane: limiter.Foreground, Hold: time.Second},
	}}}}
	evs := allEvents(run(t, in))
	if len(evs) != 6 {
		t.Fatalf("got %d grants, want 6", len(evs))
	}
	var lanes []limiter.Lane
	for _, e := range evs[1:] {
		lanes = append(lanes, e.Lane)
	}
	want := []limiter.Lane{limiter.Foreground, limiter.Foreground, limiter.Background, limiter.Background, limiter.Background}
	if !slices.Equal(lanes, want) {
		t.Errorf("grant order after the holder = %v, want %v", lanes, want)
	}
}

// TestRemainingWorkReachesTheModel: with one slot held, a user with little
// work left asks before a user with much; when the slot frees, the one
// with more work left is granted first (without the reports, the earlier
// ask would be).
func TestRemainingWorkReachesTheModel(t *testing.T) {
	spec := testSpec(1)
	spec.App.Concurrency = 1
	hold := step{Lane: limiter.Background, Hold: time.Minute}
	in := harnessInput{Spec: spec, Requesters: []requesterInput{
		{Name: "holder", User: "h", Steps: []step{hold}},
		{Name: "small", User: "s", Steps: []step{{After: 10 * time.Second, Lane: limiter.Background, Hold: time.Second, Remaining: 5}}},
		{Name: "big", User: "b", Steps: []step{{After: 20 * time.Second, Lane: limiter.Background, Hold: time.Second, Remaining: 50}}},
	}}
	evs := allEvents(run(t, in))
	if len(evs) != 3 {
		t.Fatalf("got %d grants, want 3", len(evs))
	}
	var order []string
	for _, e := range evs {
		order = append(order, e.Requester)
	}
	if want := []string{"holder", "big", "small"}; !slices.Equal(order, want) {
		t.Errorf("grant order %v, want %v", order, want)
	}
}

// TestPartialGrantsAndGivenBackUnits: a divisible ask takes the units
// that fit now, and units a requester reports unsent are free again at
// once, under a limit of 5 a minute.
func TestPartialGrantsAndGivenBackUnits(t *testing.T) {
	spec := testSpec(5)
	spec.User.Windows = []limiter.Window{{Limit: 5, Per: limiter.Duration(time.Minute)}}
	tests := []struct {
		name      string
		steps     []step
		wantCosts []int
		wantAfter []time.Duration // each grant after the first
	}{
		{"a divisible ask takes what fits", []step{
			{Hold: time.Second, Cost: 3},
			{After: 2 * time.Second, Hold: time.Second, Cost: 4, MinCost: 1},
		}, []int{3, 2}, []time.Duration{0, 2 * time.Second}},
		{"an all-or-nothing ask waits for the window", []step{
			{Hold: time.Second, Cost: 3},
			{After: 2 * time.Second, Hold: time.Second, Cost: 4},
		}, []int{3, 4}, []time.Duration{0, time.Minute}},
		{"unsent units are given back", []step{
			{Hold: time.Second, Cost: 3, Unsent: 2},
			{After: 2 * time.Second, Hold: time.Second, Cost: 4},
		}, []int{3, 4}, []time.Duration{0, 2 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			evs := allEvents(run(t, harnessInput{Spec: spec, Requesters: []requesterInput{{Name: "r", User: "u", Steps: tc.steps}}}))
			if len(evs) != len(tc.wantCosts) {
				t.Fatalf("got %d grants, want %d", len(evs), len(tc.wantCosts))
			}
			for i, e := range evs {
				after := e.Granted.Sub(evs[0].Granted)
				if e.Cost != tc.wantCosts[i] || after < tc.wantAfter[i] || after > tc.wantAfter[i]+2*time.Second {
					t.Errorf("grant %d: cost %d after %v, want cost %d after %v", i, e.Cost, after, tc.wantCosts[i], tc.wantAfter[i])
				}
			}
		})
	}
}

func TestConcurrencyCapHoldsAcrossRequesters(t *testing.T) {
	// Four requesters of one user, three requests each held 10 s, with a
	// cap of 2: never more than 2 leases overlap.
	var rs []requesterInput
	for i := range 4 {
		rs = append(rs, requesterInput{Name: fmt.Sprint(i), User: "u", Steps: []step{
			{Hold: 10 * time.Second}, {Hold: 10 * time.Second}, {Hold: 10 * time.Second}}})
	}
	evs := allEvents(run(t, harnessInput{Spec: testSpec(2), Requesters: rs}))
	if len(evs) != 12 {
		t.Fatalf("got %d grants, want 12", len(evs))
	}
	for _, e := range evs {
		overlapping := 0
		for _, o := range evs {
			if !o.Granted.After(e.Granted) && o.Granted.Add(10*time.Second).After(e.Granted) {
				overlapping++
			}
		}
		if overlapping > 2 {
			t.Fatalf("%d leases overlap at %v, cap is 2", overlapping, e.Granted)
		}
	}
}

func TestExpiredLeaseGivesSlotBack(t *testing.T) {
	// The first requester takes the only slot and never releases it (it
	// "dies"). The second gets the slot when the lease TTL (5 min) ends.
	in := harnessInput{Spec: testSpec(1), Stagger: time.Second, Requesters: []requesterInput{
		{Name: "dead", User: "u", Steps: []step{{NoRelse: true}}},
		{Name: "next", User: "u", Steps: []step{{Hold: time.Second}}},
	}}
	rs := run(t, in)
	first, second := rs[0].Events[0].Granted, rs[1].Events[0].Granted
	if got := second.Sub(first); got < 5*time.Minute || got > 5*time.Minute+10*time.Second {
		t.Errorf("second grant came %v after the first, want the lease TTL (5m)", got)
	}
}

func TestContinueAsNewLosesNothing(t *testing.T) {
	// A tiny history budget forces many continue-as-new runs while
	// requests are queued and leased. Every request is granted exactly
	// once and no grant is orphaned.
	var rs []requesterInput
	for i := range 5 {
		var steps []step
		for range 20 {
			steps = append(steps, step{Hold: 3 * time.Second})
		}
		rs = append(rs, requesterInput{Name: fmt.Sprint(i), User: fmt.Sprintf("u%d", i%2), Steps: steps})
	}
	out := run(t, harnessInput{Spec: testSpec(2), ContinueAfter: 7, Requesters: rs})
	seen := make(map[string]bool)
	runs := 0
	for _, r := range out {
		runs = max(runs, r.Stats.LastRun)
		if r.Stats.Orphaned != 0 {
			t.Errorf("%d orphaned grants", r.Stats.Orphaned)
		}
		if len(r.Events) != 20 {
			t.Errorf("requester got %d grants, want 20", len(r.Events))
		}
		for _, e := range r.Events {
			if seen[e.LeaseID] {
				t.Errorf("lease %s granted twice", e.LeaseID)
			}
			seen[e.LeaseID] = true
		}
	}
	if runs < 5 {
		t.Errorf("the limiter ran %d times, want many continue-as-new runs", runs)
	}
}

// dupRequester sends its ask twice and its release twice, then asks again
// on a one-slot limiter: the duplicates must neither grant twice nor free
// the slot twice.
func dupRequester(ctx workflow.Context) (requesterResult, error) {
	c := NewClient(ctx, ClientOptions{Resource: testResource, App: testApp, AssumeRunning: true})
	f, s := workflow.NewFuture(ctx)
	c.waiting["dup-1"] = s
	ask := Ask{RequestID: "dup-1", User: "u", Lane: limiter.Background}
	// Sent twice at once: the limiter queues it once.
	for range 2 {
		if err := c.send(ctx, c.limiterFor("u"), Message{Acquire: []Ask{ask}}); err != nil {
			return requesterResult{}, err
		}
	}
	var g limiter.Grant
	if err := f.Get(ctx, &g); err != nil {
		return requesterResult{}, err
	}
	// Sent again after the grant: the limiter answers with the same lease.
	if err := c.send(ctx, c.limiterFor("u"), Message{Acquire: []Ask{ask}}); err != nil {
		return requesterResult{}, err
	}
	_ = workflow.Sleep(ctx, time.Second) // let the resent grant arrive
	p := Permit{RequestID: "dup-1", LeaseID: g.LeaseID}
	for range 2 {
		c.Release(ctx, p, limiter.Outcome{Status: 200})
		if err := c.Flush(ctx); err != nil {
			return requesterResult{}, err
		}
	}
	res := requesterResult{Events: []event{{Requester: "dup", LeaseID: g.LeaseID, Granted: workflow.Now(ctx)}}}
	// Two more asks on one slot: the second must wait for the first.
	for range 2 {
		p, err := c.Acquire(ctx, AskOptions{User: "u", Lane: limiter.Background})
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, event{Requester: "dup", LeaseID: p.LeaseID, Granted: workflow.Now(ctx)})
		workflow.Go(ctx, func(ctx workflow.Context) {
			_ = workflow.Sleep(ctx, 30*time.Second)
			c.Release(ctx, p, limiter.Outcome{Status: 200})
		})
	}
	if err := c.Flush(ctx); err != nil {
		return res, err
	}
	res.Stats = c.Stats
	return res, nil
}

func dupHarness(ctx workflow.Context, spec *limiter.Spec) (requesterResult, error) {
	lctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID: WorkflowID(testResource, testApp), ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_TERMINATE})
	lim := workflow.ExecuteChildWorkflow(lctx, WorkflowName, Input{Resource: testResource, App: testApp, Spec: spec})
	if err := lim.GetChildWorkflowExecution().Get(ctx, nil); err != nil {
		return requesterResult{}, err
	}
	var res requesterResult
	err := workflow.ExecuteChildWorkflow(workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: "dup"}), dupRequester).Get(ctx, &res)
	return res, err
}

func TestDuplicateSignalsAreHarmless(t *testing.T) {
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(Workflow, workflow.RegisterOptions{Name: WorkflowName})
	env.RegisterWorkflow(dupRequester)
	env.RegisterWorkflow(dupHarness)
	env.ExecuteWorkflow(dupHarness, testSpec(1))
	if err := env.GetWorkflowError(); err != nil {
		t.Fatal(err)
	}
	var res requesterResult
	if err := env.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Stats.Granted != 3 || res.Stats.Orphaned != 0 {
		t.Errorf("stats = %+v, want 3 grants and no orphan", res.Stats)
	}
	if res.Stats.Duplicates != 1 {
		t.Errorf("duplicate grants seen = %d, want 1 (the resent ask answered with the same lease)", res.Stats.Duplicates)
	}
	// With one slot, the third grant waits for the second's 30 s hold:
	// a double release of the first lease must not have freed a phantom
	// slot.
	if gap := res.Events[2].Granted.Sub(res.Events[1].Granted); gap < 30*time.Second {
		t.Errorf("third grant came %v after the second; the slot was free twice", gap)
	}
}
