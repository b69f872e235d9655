package entity

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// silentEntity is a Temporal client whose pace entity leaves its first
// silent round trips unanswered (they last until the caller's round trip
// times out, as when the entity's worker died holding its task), answers
// the next with a slot at the fake clock's now, or with answerErr if set.
type silentEntity struct {
	client.Client // not called: the methods below are all a sharedPace uses
	mu            sync.Mutex
	silent        int
	answerErr     error
	asks          int
	now           func() time.Time
}

func (e *silentEntity) answer(ctx context.Context) (client.WorkflowUpdateHandle, error) {
	e.mu.Lock()
	e.asks++
	silent := e.asks <= e.silent
	e.mu.Unlock()
	if silent {
		<-ctx.Done()
		return nil, client.NewWorkflowUpdateServiceTimeoutOrCanceledError(ctx.Err())
	}
	if e.answerErr != nil {
		return nil, e.answerErr
	}
	return answered{ReserveResult{Slots: []time.Time{e.now()}, Firm: 1}}, nil
}

func (e *silentEntity) UpdateWorkflow(ctx context.Context, _ client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return e.answer(ctx)
}

func (e *silentEntity) UpdateWithStartWorkflow(ctx context.Context, _ client.UpdateWithStartWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	return e.answer(ctx)
}

func (e *silentEntity) NewWithStartWorkflowOperation(client.StartWorkflowOptions, any, ...any) client.WithStartWorkflowOperation {
	return nil
}

// answered is an update handle holding its result.
type answered struct{ res ReserveResult }

func (answered) WorkflowID() string { return "pace" }
func (answered) RunID() string      { return "run" }
func (answered) UpdateID() string   { return "update" }
func (a answered) Get(_ context.Context, out any) error {
	*out.(*ReserveResult) = a.res
	return nil
}

// TestPaceAsksASilentEntityAgain: a round trip the entity does not
// answer within Timeout is asked again, backing off 1 s, 2 s, 4 s, ...
// (10 s at most), until Patience runs out; an answer that is an error
// fails the wait at once.
func TestPaceAsksASilentEntityAgain(t *testing.T) {
	for _, tc := range []struct {
		name      string
		silent    int
		answerErr error
		patience  time.Duration
		wantErr   bool
		asks      int
		sleeps    []time.Duration
	}{
		{name: "answers at once", asks: 1, patience: time.Minute},
		{name: "silent three times, then answers", silent: 3, patience: time.Minute, asks: 4,
			sleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{name: "silent for good: gives up once Patience would run out", silent: 100, patience: 20 * time.Second, wantErr: true, asks: 5,
			sleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}},
		{name: "silent past the 10 s cap", silent: 6, patience: time.Minute, asks: 7,
			sleeps: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}},
		{name: "an answer that is an error is not asked again", answerErr: serviceerror.NewInvalidArgument("bad spec"),
			patience: time.Minute, wantErr: true, asks: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			now := time.Date(2026, 12, 2, 5, 0, 0, 0, time.UTC)
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			var sleeps []time.Duration
			e := &silentEntity{silent: tc.silent, answerErr: tc.answerErr, now: clock}
			p, err := NewPacing(e, PacingOptions{TaskQueue: "q", Timeout: 20 * time.Millisecond, Patience: tc.patience, Logger: slog.New(slog.DiscardHandler),
				Now: clock,
				Sleep: func(ctx context.Context, d time.Duration) error {
					if d <= 0 {
						return ctx.Err()
					}
					mu.Lock()
					defer mu.Unlock()
					sleeps = append(sleeps, d)
					now = now.Add(d)
					return ctx.Err()
				}})
			if err != nil {
				t.Fatal(err)
			}
			err = p.Pace("token").Wait(context.Background())
			if (err != nil) != tc.wantErr {
				t.Fatalf("Wait: %v, want an error: %v", err, tc.wantErr)
			}
			if e.asks != tc.asks || !slices.Equal(sleeps, tc.sleeps) {
				t.Errorf("%d round trips with %v between them, want %d with %v", e.asks, sleeps, tc.asks, tc.sleeps)
			}
		})
	}
	// The caller giving up ends the asking at once.
	e := &silentEntity{silent: 100, now: time.Now}
	p, err := NewPacing(e, PacingOptions{TaskQueue: "q", Timeout: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := p.Pace("token").Wait(ctx); !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		t.Errorf("Wait with a cancelled context: %v", err)
	}
	if e.asks > 2 {
		t.Errorf("%d round trips after the caller gave up, want at most 2", e.asks)
	}
}
