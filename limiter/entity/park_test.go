package entity

import (
	"cmp"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
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

// TestShardRefusesAsksOfOtherShards: a shard takes the asks of its own
// users, and refuses, naming the user and its shard, those of users that
// hash to another shard (a client that routes otherwise), so that no user
// is served by two shards.
func TestShardRefusesAsksOfOtherShards(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	m, err := limiter.New(limiter.OneNote(), now)
	if err != nil {
		t.Fatal(err)
	}
	const count = 4
	var mine, other string
	for i := 0; mine == "" || other == ""; i++ {
		u := fmt.Sprintf("user%d@contoso.example", i)
		switch shard.Of(u, count) {
		case 1:
			mine = cmp.Or(mine, u)
		case 3:
			other = cmp.Or(other, u)
		}
	}
	e := &entity{model: m, requesters: map[string]Address{}, stats: Stats{Granted: map[string]int{}, Units: map[string]int{}},
		lease: &leasing{cfg: ShardConfig{Index: 1, Count: count}}}
	from := Address{WorkflowID: "section", RunID: "r1"}
	var out outbox
	e.handle(Message{From: from, Acquire: []Ask{
		{RequestID: "r1/1", User: mine, Lane: limiter.Background, Cost: 1},
		{RequestID: "r1/2", User: other, Lane: limiter.Background, Cost: 1},
	}}, now, &out)
	got := out.at(from)
	if got == nil || len(got.Refused) != 1 || got.Refused[0].RequestID != "r1/2" {
		t.Fatalf("answer %+v, want the ask of %s (shard 3) refused and none other", got, other)
	}
	for _, want := range []string{other, "shard 3 of 4", "retry the section"} {
		if !strings.Contains(got.Refused[0].Reason, want) {
			t.Errorf("refusal %q does not name %q", got.Refused[0].Reason, want)
		}
	}
	if _, waiting := e.requesters["r1/1"]; !waiting || e.stats.Refused != 1 {
		t.Errorf("requesters %v, refused %d: want the ask of %s (shard 1) queued", e.requesters, e.stats.Refused, mine)
	}
}
