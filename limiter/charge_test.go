package limiter

import (
	"testing"
	"time"
)

// TestCharge: a request sent under a grant the limiter lost is counted
// at its release, whatever the limiter holds of it. rateBound: user
// 3/10s, app 4/10s, 10 at once.
func TestCharge(t *testing.T) {
	sent := Outcome{Status: 200, Sent: at(time.Second)}
	tests := []struct {
		name string
		// leased grants "a" before the charge; queued enqueues "a" (as
		// well, after the grant, it stays queued behind nothing);
		// expired grants "a" and lets its lease expire.
		leased, queued, expired bool
		req                     Request
		// lease is the lease released ("own": a's own; "": a lost one).
		lease string
		// again releases the same lease a second time.
		again          bool
		o              Outcome
		wantOK         bool
		wantUser       int // units in the user's 10 s after the charge
		wantInFlight   int
		wantLeased     bool // "a" still leased under its own grant
		wantGrantAfter int  // grants of a fresh request of u at 2 s
	}{
		{name: "queued: off the queue and counted", queued: true, req: Request{ID: "a"}, o: sent,
			wantOK: true, wantUser: 1, wantGrantAfter: 2},
		{name: "leased anew: the live lease stays, the send counts as well", leased: true, req: Request{ID: "a"}, o: sent,
			wantOK: true, wantUser: 2, wantInFlight: 1, wantLeased: true, wantGrantAfter: 1},
		{name: "unknown, with its user and cost", req: Request{ID: "z", User: "u", Cost: 2}, o: sent,
			wantOK: true, wantUser: 2, wantGrantAfter: 1},
		{name: "unknown, fate unknown: counted", req: Request{ID: "z", User: "u"}, o: Outcome{},
			wantOK: true, wantUser: 1, wantGrantAfter: 2},
		{name: "given back unsent: nothing counted, still queued", queued: true, req: Request{ID: "a"}, o: Outcome{Unsent: 1},
			wantUser: 0, wantGrantAfter: 3},
		{name: "unknown and no user: nothing counted", req: Request{ID: "z"}, o: sent,
			wantUser: 0, wantGrantAfter: 3},
		{name: "released twice: counted once", queued: true, req: Request{ID: "a"}, again: true, o: sent,
			wantOK: true, wantUser: 1, wantGrantAfter: 2},
		{name: "a late release of a lease that expired here: counted at its expiry only", expired: true, lease: "own",
			req: Request{ID: "a", User: "u", Cost: 1}, o: sent, wantUser: 1, wantGrantAfter: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			if tc.leased || tc.queued {
				if err := l.Enqueue(Request{ID: "a", User: "u", Lane: Background, Cost: 1}, t0); err != nil {
					t.Fatal(err)
				}
			}
			if tc.expired {
				if err := l.Enqueue(Request{ID: "a", User: "u", Lane: Background, Cost: 1}, t0); err != nil {
					t.Fatal(err)
				}
			}
			lease := "lost-lease"
			if tc.leased || tc.expired {
				g := l.Grant(t0)
				if len(g) != 1 {
					t.Fatalf("granted %v, want a", g)
				}
				if tc.lease == "own" {
					lease = g[0].LeaseID
				}
			}
			if tc.expired {
				// A lease of 30 s (testSpec), released late: its unit was
				// counted when it expired.
				if got := l.Expire(at(31 * time.Second)); len(got) != 1 {
					t.Fatalf("expired %v, want a's lease", got)
				}
			}
			g, ok := l.Charge(tc.req, lease, tc.o, at(2*time.Second))
			if ok != tc.wantOK {
				t.Fatalf("Charge counted %v (%+v), want %v", ok, g, tc.wantOK)
			}
			if tc.again {
				if _, ok := l.Charge(tc.req, lease, tc.o, at(2*time.Second)); ok {
					t.Error("a repeated release was counted again")
				}
			}
			var u UserUsage
			for _, v := range l.State(at(2 * time.Second)).Users {
				if v.User == "u" {
					u = v
				}
			}
			if u.Windows == nil {
				u.Windows = make([]WindowUsage, 1)
			}
			if used := u.Windows[0].Used; used != tc.wantUser {
				t.Errorf("the user's 10 s holds %d units, want %d", used, tc.wantUser)
			}
			if u.InFlight != tc.wantInFlight {
				t.Errorf("%d in flight, want %d", u.InFlight, tc.wantInFlight)
			}
			if _, leased := l.Lease("a"); leased != tc.wantLeased {
				t.Errorf("a leased %v, want %v", leased, tc.wantLeased)
			}
			if err := l.Enqueue(Request{ID: "a", User: "u", Lane: Background, Cost: 1}, at(2*time.Second)); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if err := l.Enqueue(Request{ID: string(rune('p' + i)), User: "u", Lane: Background, Cost: 1}, at(2*time.Second)); err != nil {
					t.Fatal(err)
				}
			}
			// A charged request is remembered: its resent ask is not
			// granted again; only the fresh ones fill what is left of 3.
			var got int
			for _, g := range l.Grant(at(2 * time.Second)) {
				if g.RequestID == tc.req.ID && tc.wantOK {
					t.Errorf("a charged request was granted again")
				}
				got++
			}
			if got != tc.wantGrantAfter {
				t.Errorf("%d granted after, want %d", got, tc.wantGrantAfter)
			}
		})
	}
}
