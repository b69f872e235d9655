package entity

import (
	"testing"
	"time"

	"go.temporal.io/sdk/workflow"
)

// TestWithinLeaseEndsTheActivityBeforeItsLease checks the one place that
// ties an activity's timeouts to its permit: an activity never runs past
// its lease less LeaseMargin, and options already inside it are kept.
func TestWithinLeaseEndsTheActivityBeforeItsLease(t *testing.T) {
	granted := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	leased := func(ttl time.Duration) Permit { return Permit{Granted: granted, Expires: granted.Add(ttl)} }
	cases := []struct {
		name                 string
		opts                 workflow.ActivityOptions
		permit               Permit
		age                  time.Duration // from the grant to the activity's start
		startToClose, schedC time.Duration
	}{
		{"resources: 5m under a 2m lease is cut to 1m45s", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			leased(2 * time.Minute), 0, 2*time.Minute - LeaseMargin, 0},
		{"one request: 1m under a 2m lease is kept", workflow.ActivityOptions{StartToCloseTimeout: time.Minute},
			leased(2 * time.Minute), 0, time.Minute, 0},
		{"exactly at the bound is kept", workflow.ActivityOptions{StartToCloseTimeout: 2*time.Minute - LeaseMargin},
			leased(2 * time.Minute), 0, 2*time.Minute - LeaseMargin, 0},
		{"a longer lease allows the 5m", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			leased(10 * time.Minute), 0, 5 * time.Minute, 0},
		{"no start-to-close gets the bound", workflow.ActivityOptions{},
			leased(2 * time.Minute), 0, 2*time.Minute - LeaseMargin, 0},
		{"schedule-to-close is cut too", workflow.ActivityOptions{StartToCloseTimeout: time.Minute, ScheduleToCloseTimeout: 3 * time.Minute},
			leased(2 * time.Minute), 0, time.Minute, 2*time.Minute - LeaseMargin},
		{"a permit without a lease changes nothing", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			Permit{}, 0, 5 * time.Minute, 0},
		{"a spare taken 5s after its grant: the bound runs from its start", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			leased(2 * time.Minute), SpareAge, 2*time.Minute - SpareAge - LeaseMargin, 0},
		{"a grant delivered 30s late: schedule-to-close cut from its start", workflow.ActivityOptions{ScheduleToCloseTimeout: 5 * time.Minute},
			leased(2 * time.Minute), 30 * time.Second, 2*time.Minute - 30*time.Second - LeaseMargin, 2*time.Minute - 30*time.Second - LeaseMargin},
		{"a lease with less than the margin left gets the shortest bound", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			leased(2 * time.Minute), 2*time.Minute - 10*time.Second, minActivityBound, 0},
		{"a lease within the margin changes nothing", workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute},
			leased(LeaseMargin), 0, 5 * time.Minute, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := WithinLease(c.opts, c.permit, c.permit.Granted.Add(c.age))
			if got.StartToCloseTimeout != c.startToClose || got.ScheduleToCloseTimeout != c.schedC {
				t.Fatalf("WithinLease(%v, %v..%v) = start-to-close %v, schedule-to-close %v; want %v, %v",
					c.opts.StartToCloseTimeout, c.permit.Granted, c.permit.Expires,
					got.StartToCloseTimeout, got.ScheduleToCloseTimeout, c.startToClose, c.schedC)
			}
			if !c.permit.Expires.IsZero() && c.permit.Expires.Sub(c.permit.Granted) > LeaseMargin &&
				c.age+LeaseMargin+minActivityBound <= c.permit.Expires.Sub(c.permit.Granted) &&
				c.permit.Granted.Add(c.age+got.StartToCloseTimeout).After(c.permit.Expires.Add(-LeaseMargin)) {
				t.Fatalf("activity may run until %v, past its lease %v less the margin",
					c.permit.Granted.Add(c.age+got.StartToCloseTimeout), c.permit.Expires)
			}
		})
	}
}
