package entity

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestSparesAskedAhead runs one client that asks ahead (AskAhead 3) and,
// where a case needs one, a second client of the same user that must find
// the user's slots: spares nobody takes go back unsent once SpareAge old
// (not when their workflow ends), a divisible ask takes spares, and a
// client asks for no more than AskAhead, nor half the user's slots, less
// what it holds for the user.
func TestSparesAskedAhead(t *testing.T) {
	long, bg := 60*time.Second, limiter.Background
	tests := []struct {
		name        string
		concurrency int
		steps       []step
		other       []step // the second client's, without asking ahead
		wantBack    int    // units the first client gave back
		wantCosts   []int  // the first client's grants, by step
		// wantOtherBy bounds the second client's grant from its start.
		wantOtherBy time.Duration
	}{
		{"a spare nobody takes goes back after SpareAge, not at the end",
			// 1 in use and 2 spares of 6 slots: the other client's fourth
			// ask needs a spare's slot.
			6, []step{{Lane: bg, Hold: long}}, []step{{After: time.Second, Lane: bg, Hold: long}, {After: time.Second, Lane: bg, Hold: long},
				{After: time.Second, Lane: bg, Hold: long}, {After: time.Second, Lane: bg, Hold: long}},
			2, []int{1}, SpareAge + 2*time.Second},
		{"no asking ahead into more than half the user's slots",
			// A cap of 2 leaves 1 to this client: it asks for 1, and the
			// other client finds the second slot at once.
			2, []step{{Lane: bg, Hold: long}}, []step{{After: time.Second, Lane: bg, Hold: time.Second}},
			0, []int{1}, 2 * time.Second},
		{"a divisible ask takes the spares as one permit",
			6, []step{{Lane: bg, Hold: long}, {After: time.Second, Lane: bg, Hold: long, Cost: 4, MinCost: 1}}, nil,
			0, []int{1, 2}, 0},
		{"a divisible ask takes no more spares than its cost",
			6, []step{{Lane: bg, Hold: long}, {After: time.Second, Lane: bg, Hold: long, Cost: 1, MinCost: 1}}, nil,
			1, []int{1, 1}, 0},
		{"callers that find their own asks out ask for no more",
			6, []step{{Lane: bg, Hold: long}, {After: time.Second, Lane: bg, Hold: long}, {After: 2 * time.Second, Lane: bg, Hold: long},
				{After: 3 * time.Second, Lane: bg, Hold: long}}, nil,
			// 3 asked at 0 s (two spares taken at 1 and 2 s); at 3 s the
			// client holds 3 for the user, so it asks for 1, not 3.
			0, []int{1, 1, 1, 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs := []requesterInput{{Name: "ahead", User: "u", Steps: tc.steps, AskAhead: 3}}
			if tc.other != nil {
				rs = append(rs, requesterInput{Name: "other", User: "u", Steps: tc.other})
			}
			out := run(t, harnessInput{Spec: testSpec(tc.concurrency), Requesters: rs})
			if got := out[0].Stats.GivenBack; got != tc.wantBack {
				t.Errorf("given back %d units, want %d", got, tc.wantBack)
			}
			if len(out[0].Events) != len(tc.wantCosts) {
				t.Fatalf("the first client had %d grants, want %d", len(out[0].Events), len(tc.wantCosts))
			}
			for _, e := range out[0].Events {
				if e.Cost != tc.wantCosts[e.Step] {
					t.Errorf("step %d granted cost %d, want %d", e.Step, e.Cost, tc.wantCosts[e.Step])
				}
			}
			start := out[0].Events[0].Granted
			for _, e := range out[min(1, len(out)-1)].Events[:len(tc.other)] {
				if got := e.Granted.Sub(start); got > tc.wantOtherBy {
					t.Errorf("the other client's step %d was granted %v after the first grant, want within %v", e.Step, got, tc.wantOtherBy)
				}
			}
		})
	}
}

// TestSplitRelease: a permit made of spares is released part by part, the
// units sent filling the parts in order, so that the limiter learns each
// outcome once and counts exactly the units that reached upstream.
func TestSplitRelease(t *testing.T) {
	sent := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	parts := []Permit{{RequestID: "a", Cost: 1}, {RequestID: "b", Cost: 1}, {RequestID: "c", Cost: 1}}
	ok := limiter.Outcome{Status: 200}
	plain := limiter.Outcome{Status: 200, Sent: sent}
	never := limiter.Outcome{Unsent: 1}
	tests := []struct {
		name string
		o    limiter.Outcome
		want []limiter.Outcome
	}{
		{"all sent, success", ok, []limiter.Outcome{plain, plain, ok}},
		{"the second throttled, the third never sent", limiter.Outcome{Status: 429, Sent: sent, Unsent: 1},
			[]limiter.Outcome{plain, {Status: 429, Sent: sent}, never}},
		{"the first failed", limiter.Outcome{Status: 503, Sent: sent, Unsent: 2},
			[]limiter.Outcome{{Status: 503, Sent: sent}, never, never}},
		{"nothing sent", limiter.Outcome{Unsent: 3}, []limiter.Outcome{never, never, never}},
		{"a failure that names no status nor units: each part as the whole", limiter.Outcome{}, []limiter.Outcome{{}, {}, {}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.o.Sent.IsZero() && tc.want[0] == plain {
				tc.want[0], tc.want[1] = ok, ok
			}
			got := splitRelease(parts, tc.o)
			for i, r := range got {
				if r.permit.RequestID != parts[i].RequestID || r.outcome != tc.want[i] {
					t.Errorf("part %d: %s %+v, want %s %+v", i, r.permit.RequestID, r.outcome, parts[i].RequestID, tc.want[i])
				}
			}
		})
	}
}
