package entity

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestParkKeepsAsksAboveTheLeaseNotAboveTheApp: a shard whose lease is
// smaller than a request's cost keeps the request for a larger lease; a
// request no lease could carry is refused; a cancelled one is dropped.
func TestParkKeepsAsksAboveTheLeaseNotAboveTheApp(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	base := limiter.OneNote()
	leased := base
	leased.App.Windows = []limiter.Window{{Limit: 3, Per: limiter.Duration(time.Minute)}, {Limit: 10, Per: limiter.Duration(time.Hour)}}
	m, err := limiter.New(leased, now)
	if err != nil {
		t.Fatal(err)
	}
	ls := &leasing{}
	for _, tc := range []struct {
		req        limiter.Request
		park, fits bool
	}{
		{limiter.Request{ID: "small", User: "u", Cost: 2}, false, true},
		{limiter.Request{ID: "batch", User: "u", Cost: 20}, true, false},
		{limiter.Request{ID: "huge", User: "u", Cost: 500}, false, false},
	} {
		err := m.Enqueue(tc.req, now)
		if (err == nil) != tc.fits {
			t.Fatalf("%s: Enqueue under the lease: %v", tc.req.ID, err)
		}
		if err == nil {
			continue
		}
		if got := ls.park(tc.req, &base); got != tc.park {
			t.Errorf("%s: park = %v, want %v", tc.req.ID, got, tc.park)
		}
	}
	if ls.park(limiter.Request{ID: "batch", User: "u", Cost: 20}, &base); len(ls.parked) != 1 || ls.parkedUnits() != 20 {
		t.Errorf("parked %v (%d units), want the one $batch of 20 once", ls.parked, ls.parkedUnits())
	}
	ls.unpark("batch")
	if len(ls.parked) != 0 {
		t.Errorf("parked %v after cancelling it", ls.parked)
	}
}
