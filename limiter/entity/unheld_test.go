package entity

import (
	"testing"
	"time"

	"github.com/notebridge/notebridge/limiter"
)

// TestReleaseUnderALostLeaseIsCountedAtOnce: a decision pass delivers its
// grants by local activity; when its task is then lost (a worker killed,
// a task timed out), the pass runs again without them and its lease IDs
// (a sequence) go to other requests. A requester that sent under a lost
// grant releases a lease this history never made, or one it made for
// another request. Every such request reached Graph: it must be in the
// windows from its release on, whatever else the limiter holds, and a
// lease of another request must stay that request's. Before, the release
// waited for the model to grant the request again (another user's request
// could be granted into the window first), a lease ID of another request
// released that request's lease, and a request the new pass had granted
// anew was counted unsent when its requester gave the second grant back.
// In the end-to-end run of 2026-12-07 Graph counted 402 requests of a
// user in its 400 an hour.
func TestReleaseUnderALostLeaseIsCountedAtOnce(t *testing.T) {
	now := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	from := Address{WorkflowID: "requester", RunID: "run"}
	sent := limiter.Outcome{Status: 200, Sent: now.Add(time.Second)}
	lost := func(id string) Return { return Return{RequestID: id, LeaseID: "lost-lease", Outcome: sent} }
	tests := []struct {
		name string
		// regrant releases a first, so the second pass grants b anew.
		regrant bool
		// releases come after a was granted and b queued behind it
		// (the cap is one request in flight); "A" is replaced by a's
		// lease ID, "B" by b's.
		releases []Return
		// wantUsed is the units in the app's window after them.
		wantUsed, wantInFlight     int
		wantCharged, wantDuplicate int
		wantBQueued, wantALeased   bool
	}{
		{name: "a queued request released under a lost lease: counted now, off the queue",
			releases: []Return{lost("b")}, wantUsed: 2, wantInFlight: 1, wantCharged: 1, wantALeased: true},
		{name: "released twice: counted once",
			releases: []Return{lost("b"), lost("b")}, wantUsed: 2, wantInFlight: 1, wantCharged: 1, wantDuplicate: 1, wantALeased: true},
		{name: "a lease ID now another request's: that lease stays",
			releases: []Return{{RequestID: "b", LeaseID: "A", Outcome: sent}}, wantUsed: 2, wantInFlight: 1, wantCharged: 1, wantALeased: true},
		{name: "granted anew, then the new grant given back unsent: the send stays counted",
			regrant:  true,
			releases: []Return{lost("b"), {RequestID: "b", LeaseID: "B", Outcome: limiter.Outcome{Unsent: 1}}},
			wantUsed: 2, wantInFlight: 0, wantCharged: 1},
		{name: "a request this history never saw, with its user and cost",
			releases: []Return{{RequestID: "z", LeaseID: "lost-lease", User: "u", Cost: 2, Outcome: sent}},
			wantUsed: 3, wantInFlight: 1, wantCharged: 1, wantBQueued: true, wantALeased: true},
		{name: "a request never seen and no user: nothing to count",
			releases: []Return{{RequestID: "z", LeaseID: "lost-lease", Outcome: sent}},
			wantUsed: 1, wantInFlight: 1, wantDuplicate: 1, wantBQueued: true, wantALeased: true},
		{name: "a lost lease given back unsent: b still waits",
			releases: []Return{{RequestID: "b", LeaseID: "lost-lease", Outcome: limiter.Outcome{Unsent: 1}}},
			wantUsed: 1, wantInFlight: 1, wantDuplicate: 1, wantBQueued: true, wantALeased: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := limiter.New(*testSpec(1), now)
			if err != nil {
				t.Fatal(err)
			}
			e := &entity{model: m, requesters: map[string]Address{}, stats: Stats{Granted: map[string]int{}, Units: map[string]int{}}}
			var out outbox
			ask := func(id string) Ask { return Ask{RequestID: id, User: "u", Lane: limiter.Background, Cost: 1} }
			e.handle(Message{From: from, Acquire: []Ask{ask("a"), ask("b")}}, now, &out)
			ga := e.grant(now, &out)
			if len(ga) != 1 || ga[0].RequestID != "a" {
				t.Fatalf("first pass granted %v, want a alone", ga)
			}
			at := now.Add(2 * time.Second)
			leaseB := ""
			if tc.regrant {
				e.handle(Message{From: from, Release: []Return{{RequestID: "a", LeaseID: ga[0].LeaseID, Outcome: limiter.Outcome{Status: 200}}}}, at, &out)
				gb := e.grant(at, &out)
				if len(gb) != 1 || gb[0].RequestID != "b" {
					t.Fatalf("second pass granted %v, want b", gb)
				}
				leaseB = gb[0].LeaseID
			}
			for _, r := range tc.releases {
				switch r.LeaseID {
				case "A":
					r.LeaseID = ga[0].LeaseID
				case "B":
					r.LeaseID = leaseB
				}
				e.handle(Message{From: from, Release: []Return{r}}, at, &out)
			}
			app := m.State(at).App
			if used := app.Windows[0].Used; used != tc.wantUsed {
				t.Errorf("the app's window holds %d units, want %d", used, tc.wantUsed)
			}
			if app.InFlight != tc.wantInFlight {
				t.Errorf("%d in flight, want %d", app.InFlight, tc.wantInFlight)
			}
			if e.stats.Charged != tc.wantCharged || e.stats.Duplicates != tc.wantDuplicate {
				t.Errorf("charged %d, duplicates %d; want %d, %d", e.stats.Charged, e.stats.Duplicates, tc.wantCharged, tc.wantDuplicate)
			}
			if _, ok := m.Lease("a"); ok != tc.wantALeased {
				t.Errorf("a leased %v, want %v", ok, tc.wantALeased)
			}
			_, waiting := e.requesters["b"]
			if waiting != tc.wantBQueued {
				t.Errorf("b's requester remembered %v, want %v", waiting, tc.wantBQueued)
			}
			if tc.wantALeased {
				// a's release frees the slot: b goes only if it still waits.
				e.handle(Message{From: from, Release: []Return{{RequestID: "a", LeaseID: ga[0].LeaseID, Outcome: limiter.Outcome{Status: 200}}}}, at, &out)
			}
			var told []string
			for _, g := range e.grant(at, &out) {
				told = append(told, g.RequestID)
			}
			if wantTold := tc.wantBQueued; (len(told) == 1 && told[0] == "b") != wantTold || len(told) > 1 {
				t.Errorf("the next pass granted %v; b should be granted: %v", told, wantTold)
			}
		})
	}
}
