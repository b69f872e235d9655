package entity_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"

	"github.com/notebridge/notebridge/internal/graphload"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/limiter/shard"
)

// TestIntegrationShardedLimiterHoldsTheAppLimits runs requesters for 8
// users through 4 limiter shards, whose app budget is leased out by the
// coordinator, against the emulator's app and user limits: the emulator
// (the referee) sees no 429 and no window over a limit, every request it
// received had a permit from its user's shard, and the shards together
// granted every request. The clients batch releases and ask ahead.
// Requesters that take permits without calling Graph, routing with
// another shard count, are granted them and send nothing; their shards
// join the coordinator.
func TestIntegrationShardedLimiterHoldsTheAppLimits(t *testing.T) {
	const shards, requesters, each = 4, 8, 30
	f := newFixture(t, 8)
	f.startWorker(t)
	var runs []client.WorkflowRun
	start := func(id string, in graphload.Input) {
		in.Resource, in.App, in.N, in.Workers, in.Spec = itResource, itApp, each, 3, itSpec()
		run, err := f.srv.Client().ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: id, TaskQueue: itTaskQueue}, graphload.Requester, in)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	for i := range requesters {
		start(fmt.Sprintf("sharded-load-%d", i), graphload.Input{Users: []string{f.users[i], f.users[(i+1)%len(f.users)]}, Shards: shards, AskAhead: 3})
	}
	// Two more take their permits and give them back without calling
	// Graph (the benchmark's load of the limiter alone); they route with
	// 2 shards, as a worker started with another -limiter-users would:
	// their shards join the coordinator and share the app budget.
	const permitsOnly, otherCount = 2, 2
	for i := range permitsOnly {
		start(fmt.Sprintf("sharded-permits-%d", i), graphload.Input{Users: []string{f.users[2*i], f.users[2*i+5]}, Shards: otherCount, PermitsOnly: true})
	}
	waitAll(t, runs, each)
	gs := f.graph.Stats()
	if gs.Throttled != 0 {
		t.Errorf("upstream throttled %d requests, want 0 (by status: %v)", gs.Throttled, gs.ByStatus)
	}
	if v := f.graph.Violations(); len(v) != 0 {
		t.Errorf("the emulator found %d windows over a limit, first: %+v", len(v), v[0])
	}
	units := map[string]int{}
	used := map[int]bool{}
	for _, u := range f.users {
		k := shard.Of(u, shards)
		used[k] = true
		for _, n := range []int{shards, otherCount} {
			v, err := f.srv.Client().QueryWorkflow(context.Background(), entity.ShardWorkflowID(itResource, itApp, u, n), "", entity.QueryState)
			if err != nil {
				continue // no run of this user routed with n shards
			}
			var st entity.State
			if err := v.Get(&st); err != nil {
				t.Fatal(err)
			}
			units[u] += st.Stats.Units[u]
		}
	}
	total := 0
	for _, u := range f.users {
		got := gs.Users[u].Requests
		if got > int64(units[u]) {
			t.Errorf("%s: emulator received %d requests, more than the %d permits its shard granted", u, got, units[u])
		}
		total += units[u]
	}
	// Spares asked ahead and given back unsent count as granted.
	if total < (requesters+permitsOnly)*each {
		t.Errorf("the shards granted %d permits, want at least %d", total, (requesters+permitsOnly)*each)
	}
	if sent := int(gs.Requests); sent > total-permitsOnly*each {
		t.Errorf("the emulator received %d requests of the %d permits granted: the %d permits taken without a call reached Graph", sent, total, permitsOnly*each)
	}
	if len(used) < 2 {
		t.Errorf("the 8 users fell in %d shard(s): the test needs several", len(used))
	}
	v, err := f.srv.Client().QueryWorkflow(context.Background(), entity.CoordinatorWorkflowID(itResource, itApp), "", entity.QueryShards)
	if err != nil {
		t.Fatalf("query the coordinator: %v", err)
	}
	var status []shard.ShardStatus
	if err := v.Get(&status); err != nil {
		t.Fatal(err)
	}
	members := map[string]bool{}
	for _, st := range status {
		members[st.Workflow] = true
	}
	for _, want := range []string{entity.ShardID(itResource, itApp, 0, shards), entity.ShardID(itResource, itApp, 0, otherCount), entity.ShardID(itResource, itApp, 1, otherCount)} {
		if !members[want] {
			t.Errorf("the coordinator serves %v, not %s", members, want)
		}
	}
	t.Logf("emulator: %d requests, max concurrency %d; coordinator: %+v", gs.Requests, gs.MaxConcurrent, status)
}

// TestIntegrationShardCancelsLeaseTimers: a shard's timers for its lease
// (the answer to a report, shard.AnswerWait; a retry, shard.RetryAsk)
// are canceled when the lease no longer needs them (the answer came, the
// work fits the lease), rather than let fire to find nothing to do,
// which costs the fired event and the workflow task it wakes. The
// budget is free and the load shorter than a refresh, so no timer of
// the shards should fire.
func TestIntegrationShardCancelsLeaseTimers(t *testing.T) {
	const shards, requesters, each = 4, 4, 150
	f := newFixture(t, 8)
	f.startWorker(t)
	c := f.srv.Client()
	var runs []client.WorkflowRun
	ids := map[string]bool{}
	for i := range requesters {
		in := graphload.Input{Resource: itResource, App: itApp, Users: []string{f.users[i]}, N: each, Workers: 1, Spec: graphload.FreeSpec(), Shards: shards, PermitsOnly: true}
		run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: fmt.Sprintf("lease-timers-%d", i), TaskQueue: itTaskQueue}, graphload.Requester, in)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
		ids[entity.ShardWorkflowID(itResource, itApp, f.users[i], shards)] = true
	}
	waitAll(t, runs, each)
	// Wait until every timer shorter than a refresh is closed: fired or
	// canceled.
	ctx, cancel := context.WithTimeout(context.Background(), shard.AnswerWait+time.Minute)
	defer cancel()
	for id := range ids {
		var started, fired, canceled, answers int
		for {
			open := map[int64]bool{}
			started, fired, canceled, answers = 0, 0, 0, 0
			it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					t.Fatal(err)
				}
				if a := ev.GetTimerStartedEventAttributes(); a != nil && a.GetStartToFireTimeout().AsDuration() <= shard.AnswerWait {
					open[ev.GetEventId()] = true
					started++
					if a.GetStartToFireTimeout().AsDuration() == shard.AnswerWait {
						answers++
					}
				}
				if a := ev.GetTimerFiredEventAttributes(); a != nil && open[a.GetStartedEventId()] {
					delete(open, a.GetStartedEventId())
					fired++
				}
				if a := ev.GetTimerCanceledEventAttributes(); a != nil && open[a.GetStartedEventId()] {
					delete(open, a.GetStartedEventId())
					canceled++
				}
			}
			if len(open) == 0 {
				break
			}
			select {
			case <-ctx.Done():
				t.Fatalf("%s: %d timers still open", id, len(open))
			case <-time.After(500 * time.Millisecond):
			}
		}
		t.Logf("%s: timers under %v: %d started (%d for an answer), %d fired, %d canceled", id, shard.AnswerWait, started, answers, fired, canceled)
		if answers == 0 {
			t.Errorf("%s started no answer timer: the test does not see what it checks", id)
		}
		if fired > 0 {
			t.Errorf("%s: %d of %d timers fired, want all canceled when the lease no longer needed them", id, fired, started)
		}
	}
}

// TestIntegrationShardKeepsLeaseTimerForModelWakeups: a shard whose app
// share binds waits for its window (the model's wake-up, under a second
// here) while its lease waits for a report (a retry or a refresh:
// seconds). The lease's timer is not canceled because the model
// needs an earlier wake-up: each has its own, and a timer canceled and
// started again costs two events. A lease timer is canceled only when
// the lease's own wake-up moved later, which takes a lease, a report or
// the work easing (each a lease or report event in the history), so the
// lease timers canceled in a task that started a model timer are bounded
// by those. With one timer for both, a release that let a queued head
// wait for the window canceled the lease's timer (0.25 events a Graph
// request in the benchmark).
func TestIntegrationShardKeepsLeaseTimerForModelWakeups(t *testing.T) {
	const shards, each = 4, 200
	// The model's only wake-ups are its 1 s window (the user's cap is
	// above the workers, so no head waits for a permit's lease to end):
	// a timer longer than modelWake is the lease's.
	const modelWake = 1100 * time.Millisecond
	spec := graphload.FreeSpec()
	spec.Name = "binding"
	spec.App = limiter.ScopeSpec{Windows: []limiter.Window{{Limit: 30, Per: limiter.Duration(time.Second)}}, Concurrency: 100}
	f := newFixture(t, 1)
	f.startWorker(t)
	c := f.srv.Client()
	in := graphload.Input{Resource: itResource, App: itApp, Users: []string{f.users[0]}, N: each, Workers: 5, Spec: spec, Shards: shards, PermitsOnly: true}
	run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: "lease-kept", TaskQueue: itTaskQueue}, graphload.Requester, in)
	if err != nil {
		t.Fatal(err)
	}
	waitAll(t, []client.WorkflowRun{run}, each)
	id := entity.ShardWorkflowID(itResource, itApp, f.users[0], shards)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	long := map[int64]bool{} // lease timers by started event
	var replaced, leaseEvents, modelTimers int
	var canceledLong, startedShort bool
	it := c.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		switch ev.GetEventType() {
		case enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
			// A new task's commands follow.
			canceledLong, startedShort = false, false
		case enumspb.EVENT_TYPE_TIMER_STARTED:
			if ev.GetTimerStartedEventAttributes().GetStartToFireTimeout().AsDuration() > modelWake {
				long[ev.GetEventId()] = true
			} else {
				modelTimers++
				startedShort = true
			}
		case enumspb.EVENT_TYPE_TIMER_CANCELED:
			if long[ev.GetTimerCanceledEventAttributes().GetStartedEventId()] {
				canceledLong = true
			}
		case enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
			if ev.GetWorkflowExecutionSignaledEventAttributes().GetSignalName() == entity.SignalLease {
				leaseEvents++
			}
		case enumspb.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
			leaseEvents++ // a report
		}
		if canceledLong && startedShort {
			replaced++
			canceledLong, startedShort = false, false
		}
	}
	t.Logf("%s: %d model timers, %d lease timers, %d lease and report events, %d tasks canceled a lease timer and started a model one",
		id, modelTimers, len(long), leaseEvents, replaced)
	if modelTimers == 0 {
		t.Fatalf("%s started no model timer: the budget did not bind, the test does not see what it checks", id)
	}
	if replaced > leaseEvents {
		t.Errorf("%s: %d tasks canceled a lease timer and started a model timer, more than the %d lease and report events that move the lease's wake-up later",
			id, replaced, leaseEvents)
	}
}

// TestIntegrationStarvedShardsWaitForTheBudget: four shards whose work
// exceeds the app budget (30 permits in a 10-s window for 144 asked at
// once) are starved for most of the run. The coordinator sends a starved
// shard a lease unasked when its window frees (Spread, on the
// coordinator's timer), besides answering reports and taking back
// (pushed leases): every permit is granted no faster than the budget
// allows, some leases are neither answers nor pushed, and the shards
// report no more often than their leases' refreshes (a lease below its
// shard's demand lasts shortestLife here, 30 s, so every 10 s).
func TestIntegrationStarvedShardsWaitForTheBudget(t *testing.T) {
	const shards, each = 4, 36
	f := newFixture(t, 8)
	f.startWorker(t)
	c := f.srv.Client()
	spec := graphload.FreeSpec()
	spec.App.Windows = []limiter.Window{{Limit: 30, Per: limiter.Duration(10 * time.Second)}}
	// Users on different shards.
	var users []string
	seen := map[int]bool{}
	for _, u := range f.users {
		if k := shard.Of(u, shards); !seen[k] {
			seen[k] = true
			users = append(users, u)
		}
	}
	if len(users) < 3 {
		t.Fatalf("the fixture's users fall in %d shards: the test needs several", len(users))
	}
	began := time.Now()
	var runs []client.WorkflowRun
	for i, u := range users {
		in := graphload.Input{Resource: itResource, App: itApp, Users: []string{u}, N: each, Workers: 5, Spec: spec, Shards: shards, PermitsOnly: true}
		run, err := c.ExecuteWorkflow(context.Background(), client.StartWorkflowOptions{ID: fmt.Sprintf("starved-%d", i), TaskQueue: itTaskQueue}, graphload.Requester, in)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, run)
	}
	waitAll(t, runs, each)
	took := time.Since(began)
	// The budget lets 30 through every 10 s (and a little more: the
	// windows are padded), so the run takes at least this long.
	if least := time.Duration(len(users)*each/30-1) * 10 * time.Second; took < least {
		t.Errorf("%d permits granted in %v, faster than the budget's %v", len(users)*each, took, least)
	}
	reports, leases, pushed := 0, 0, 0
	it := c.GetWorkflowHistory(context.Background(), entity.CoordinatorWorkflowID(itResource, itApp), "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		ev, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := ev.GetWorkflowExecutionSignaledEventAttributes(); a != nil && a.GetSignalName() == entity.SignalReport {
			reports++
		}
		if a := ev.GetSignalExternalWorkflowExecutionInitiatedEventAttributes(); a != nil && a.GetSignalName() == entity.SignalLease {
			leases++
			var l shard.Lease
			if err := converter.GetDefaultDataConverter().FromPayloads(a.GetInput(), &l); err != nil {
				t.Fatal(err)
			}
			if l.Pushed {
				pushed++
			}
		}
	}
	// A refresh every 10 s, the first ask, and a few for short leases.
	most := len(users) * (int(took/(10*time.Second)) + 4)
	spread := leases - reports - pushed
	t.Logf("%d shards, %d permits in %v: the coordinator received %d reports and sent %d leases (%d pushed, %d offered unasked)", len(users), len(users)*each, took.Round(time.Second), reports, leases, pushed, spread)
	if reports > most {
		t.Errorf("the coordinator received %d reports, want at most %d (starved shards wait for the budget)", reports, most)
	}
	if spread <= 0 {
		t.Errorf("the coordinator sent %d leases for %d reports, %d of them pushed: want some offered unasked as the window freed", leases, reports, pushed)
	}
}
