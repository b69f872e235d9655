package entity

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestReleaseBeforeItsGrantIsCounted: a requester may release a request
// the limiter still has queued, under a lease this history never granted
// (a decision pass delivered the grant by local activity, then its task
// was lost with its worker and ran again without it). The request was
// sent: when the model grants it, it is counted and released at once, and
// its requester is not told. Before, the release dropped the requester,
// the grant was then given back as an orphan, and upstream had received a
// request no permit counted (TestIntegrationWorkerKilledMidRun: 127
// requests against 126 permits).
func TestReleaseBeforeItsGrantIsCounted(t *testing.T) {
	now := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	from := Address{WorkflowID: "requester", RunID: "run"}
	tests := []struct {
		name string
		// release names the request released under a lost lease; cancel
		// is withdrawn after it.
		release, cancel string
		wantUnits       int
		wantOrphans     int
		wantDuplicates  int
		wantTold        []string // requests granted to the requester
	}{
		{"a queued request released under a lost lease: counted, not told", "b", "", 2, 0, 0, nil},
		{"a request nobody asked for: a duplicate release", "zzz", "", 2, 0, 1, []string{"b"}},
		{"a served request then cancelled: never granted", "b", "b", 1, 0, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := *testSpec(1) // one request of the user at a time
			m, err := limiter.New(spec, now)
			if err != nil {
				t.Fatal(err)
			}
			e := &entity{model: m, requesters: map[string]Address{}, served: map[string]limiter.Outcome{},
				stats: Stats{Granted: map[string]int{}, Units: map[string]int{}}}
			var out outbox
			e.handle(Message{From: from, Acquire: []Ask{{RequestID: "a", User: "u", Lane: limiter.Background, Cost: 1}}}, now, &out)
			ga := e.grant(now, &out)
			if len(ga) != 1 || ga[0].RequestID != "a" {
				t.Fatalf("first pass granted %v, want a", ga)
			}
			e.handle(Message{From: from, Acquire: []Ask{{RequestID: "b", User: "u", Lane: limiter.Background, Cost: 1}}}, now, &out)
			if g := e.grant(now, &out); len(g) != 0 {
				t.Fatalf("b granted %v past the cap of 1", g)
			}
			sent := now.Add(time.Second)
			e.handle(Message{From: from, Release: []Return{{RequestID: tc.release, LeaseID: "lost-lease",
				Outcome: limiter.Outcome{Status: 200, Sent: sent}}}}, sent.Add(time.Second), &out)
			if tc.cancel != "" {
				e.handle(Message{From: from, Cancel: []string{tc.cancel}}, sent.Add(time.Second), &out)
			}
			later := now.Add(3 * time.Second)
			e.handle(Message{From: from, Release: []Return{{RequestID: "a", LeaseID: ga[0].LeaseID, Outcome: limiter.Outcome{Status: 200}}}}, later, &out)
			var told []string
			for _, g := range e.grant(later, &out) {
				told = append(told, g.RequestID)
			}
			if len(told) != len(tc.wantTold) || (len(told) > 0 && told[0] != tc.wantTold[0]) {
				t.Errorf("the requester was told of %v, want %v", told, tc.wantTold)
			}
			if got := e.stats.Units["u"]; got != tc.wantUnits {
				t.Errorf("units counted %d, want %d", got, tc.wantUnits)
			}
			if e.stats.Orphaned != tc.wantOrphans || e.stats.Duplicates != tc.wantDuplicates {
				t.Errorf("orphaned %d, duplicates %d; want %d, %d", e.stats.Orphaned, e.stats.Duplicates, tc.wantOrphans, tc.wantDuplicates)
			}
			if len(e.served) != 0 {
				t.Errorf("served still holds %v", e.served)
			}
			if tc.wantTold == nil {
				if _, ok := e.requesters["b"]; ok {
					t.Error("b's requester is still remembered")
				}
				if in := m.State(later).App.InFlight; in != 0 {
					t.Errorf("%d slots in flight, want 0 (b released at its grant)", in)
				}
			}
		})
	}
}
