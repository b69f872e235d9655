package shard

import (
	"testing"
	"time"
)

// TestHolderNextReport: when a shard reports, for each kind of lease it
// may hold.
func TestHolderNextReport(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	share := Share{Units: []int{10}, Concurrency: 2}
	lease := func(short, pushed bool) Lease {
		return Lease{Version: 7, Share: share, Expires: t0.Add(30 * time.Second), Short: short, Pushed: pushed}
	}
	full := lease(false, false)
	full.Full = true
	now := t0.Add(time.Second)
	tests := []struct {
		name string
		h    Holder
		load Load
		at   time.Time // zero: now
		want time.Time
	}{
		{"nothing held, idle: never", Holder{}, Idle, time.Time{}, time.Time{}},
		{"nothing held, busy: at once", Holder{}, Busy, time.Time{}, now},
		{"asked, no answer: AnswerWait after the ask", Holder{Asked: t0}, Busy, time.Time{}, t0.Add(AnswerWait)},
		{"a lease: a third of the way through", Holder{Lease: lease(false, false), Granted: t0}, Busy, time.Time{}, t0.Add(10 * time.Second)},
		{"a short lease, busy: RetryAsk after it came", Holder{Lease: lease(true, false), Granted: t0}, Busy, time.Time{}, t0.Add(RetryAsk)},
		{"a lease that starves the queued work: RetryAsk after it came", Holder{Lease: lease(false, false), Granted: t0}, Starved, time.Time{}, t0.Add(RetryAsk)},
		{"a full lease that starves the queued work: a third of the way through", Holder{Lease: full, Granted: t0}, Starved, time.Time{}, t0.Add(10 * time.Second)},
		{"a full lease the work fits: a third of the way through", Holder{Lease: full, Granted: t0}, Busy, time.Time{}, t0.Add(10 * time.Second)},
		{"a short lease, idle: a third of the way through", Holder{Lease: lease(true, false), Granted: t0}, Idle, time.Time{}, t0.Add(10 * time.Second)},
		{"a pushed lease: acknowledged at once", Holder{Lease: lease(false, true), Granted: t0}, Idle, time.Time{}, now},
		{"a pushed zero lease, idle: acknowledged at once", Holder{Lease: Lease{Version: 8, Expires: t0.Add(30 * time.Second), Pushed: true}, Granted: t0}, Idle, time.Time{}, now},
		{"a pushed zero lease acknowledged, idle: never", Holder{Lease: Lease{Version: 8, Expires: t0.Add(30 * time.Second), Pushed: true}, Granted: t0, Asked: now}, Idle, time.Time{}, time.Time{}},
		{"a pushed lease acknowledged: wait for the answer", Holder{Lease: lease(false, true), Granted: t0, Asked: now}, Busy, time.Time{}, now.Add(AnswerWait)},
		{"an expired lease, busy: at once", Holder{Lease: lease(false, false), Granted: t0.Add(-time.Minute)}, Busy, t0.Add(45 * time.Second), t0.Add(45 * time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at := now
			if !tt.at.IsZero() {
				at = tt.at
			}
			if got := tt.h.NextReport(at, tt.load); !got.Equal(tt.want) {
				t.Errorf("NextReport = %v, want %v", got, tt.want)
			}
		})
	}
}
