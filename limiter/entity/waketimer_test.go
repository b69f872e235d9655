package entity

import (
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"
)

// TestNeedsStartsATimerOnlyWhenNonePendingFiresFirst: a wake-up starts a
// timer only when no pending timer, of either kind, fires by then; a
// model's wake-up earlier than the lease's pending timer starts its own
// and leaves the lease's pending (the lease's is not replaced).
func TestNeedsStartsATimerOnlyWhenNonePendingFiresFirst(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	pending := func(s int) wakeTimer { return wakeTimer{f: dummyFuture{}, at: at(s)} }
	none := wakeTimer{}
	cases := []struct {
		name         string
		wake         time.Time
		model, lease wakeTimer
		want         bool
	}{
		{"no wake-up", time.Time{}, none, none, false},
		{"nothing pending", at(5), none, none, true},
		{"the lease's timer fires first", at(5), none, pending(3), false},
		{"the lease's timer fires at the same time", at(5), none, pending(5), false},
		{"earlier than the lease's timer", at(1), none, pending(10), true},
		{"earlier than both", at(1), pending(2), pending(10), true},
		{"the model's timer fires first", at(10), pending(1), none, false},
		{"between the two", at(5), pending(10), pending(3), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := needs(c.wake, c.model, c.lease); got != c.want {
				t.Fatalf("needs(%v, model %v, lease %v) = %v, want %v", c.wake, c.model.at, c.lease.at, got, c.want)
			}
		})
	}
}

// dummyFuture stands for a pending timer's future.
type dummyFuture struct{}

func (dummyFuture) Get(workflow.Context, any) error { return nil }
func (dummyFuture) IsReady() bool                   { return false }
