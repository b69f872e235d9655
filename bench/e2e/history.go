package e2e

import (
	"context"
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/workflowservice/v1"
)

// Histories are the event counts of every workflow run in a run's
// namespace.
type Histories struct {
	// Events counts events by type (e.g. "WorkflowExecutionSignaled").
	Events map[string]int
	// Runs counts runs per workflow type, and Longest is each type's
	// longest run in events.
	Runs    map[string]int
	Longest map[string]int
}

// Actions are what a run cost Temporal, from the histories.
type Actions struct {
	// Signals received, activities scheduled, timers started, workflow
	// runs started (children and continue-as-new included), search
	// attribute upserts and markers (side effects, local activities).
	Signals, Activities, Timers, Starts, Upserts, Markers int
	// WorkflowTasks completed: not billed as actions by Temporal, but
	// each is a round trip to a worker.
	WorkflowTasks int
}

// Billed is the sum Temporal bills as actions: everything but workflow
// tasks.
func (a Actions) Billed() int {
	return a.Signals + a.Activities + a.Timers + a.Starts + a.Upserts + a.Markers
}

// Actions sums the histories' events into Actions.
func (h Histories) Actions() Actions {
	e := h.Events
	return Actions{
		Signals:       e["WorkflowExecutionSignaled"],
		Activities:    e["ActivityTaskScheduled"],
		Timers:        e["TimerStarted"],
		Starts:        e["WorkflowExecutionStarted"],
		Upserts:       e["UpsertWorkflowSearchAttributes"],
		Markers:       e["MarkerRecorded"],
		WorkflowTasks: e["WorkflowTaskCompleted"],
	}
}

// ReadHistories reads the history of every workflow run in the namespace
// (open and closed) and counts its events.
func (s *Stack) ReadHistories(ctx context.Context) (Histories, error) {
	h := Histories{Events: map[string]int{}, Runs: map[string]int{}, Longest: map[string]int{}}
	err := s.eachHistory(ctx, func(typ string, events []*historypb.HistoryEvent) {
		for _, ev := range events {
			h.Events[ev.GetEventType().String()]++
		}
		h.Runs[typ]++
		h.Longest[typ] = max(h.Longest[typ], len(events))
	})
	return h, err
}

// eachHistory calls fn with the workflow type and the history's events
// of every workflow run in the namespace, open and closed.
func (s *Stack) eachHistory(ctx context.Context, fn func(typ string, events []*historypb.HistoryEvent)) error {
	var next []byte
	for {
		resp, err := s.C.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{PageSize: 1000, NextPageToken: next})
		if err != nil {
			return fmt.Errorf("list workflows: %w", err)
		}
		for _, e := range resp.GetExecutions() {
			id, run := e.GetExecution().GetWorkflowId(), e.GetExecution().GetRunId()
			it := s.C.GetWorkflowHistory(ctx, id, run, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
			var events []*historypb.HistoryEvent
			for it.HasNext() {
				ev, err := it.Next()
				if err != nil {
					return fmt.Errorf("history of %s/%s: %w", id, run, err)
				}
				events = append(events, ev)
			}
			fn(e.GetType().GetName(), events)
		}
		if next = resp.GetNextPageToken(); len(next) == 0 {
			return nil
		}
	}
}
