package limiter

import (
	"slices"
	"testing"
)

// TestStateShowsHolds checks that a snapshot names the users app room is
// held for and the room held in each app window: user 3 per 10 s and 5 a
// minute, app 4 per 10 s and 8 a minute (TestHolds' cases). a asks for
// one request, b for three.
func TestStateShowsHolds(t *testing.T) {
	tests := []struct {
		name     string
		leftA    int
		wantFor  []string
		wantHeld []int // per app window: 10 s, minute
	}{
		// a: 9 left outlast the app; granted 1 of its 10 s's 3, it is
		// held the 2 left there, and in the app's minute the 4 its own
		// minute leaves (its 10 s refills within the minute, so it does
		// not bound the minute's hold).
		{"a bound by its own windows", 9, []string{"a"}, []int{2, 4}},
		// a: 3 left fit its windows now: nothing is held.
		{"nobody past the app's finish", 3, nil, []int{0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, rateBound())
			var s seq
			ra := s.req("a", Background, 1)
			ra.Remaining = tc.leftA
			reqs := []Request{ra}
			for range 3 {
				rb := s.req("b", Background, 1)
				rb.Remaining = 3
				reqs = append(reqs, rb)
			}
			grantAll(t, l, at(0), reqs...)
			st := l.State(at(0))
			if !slices.Equal(st.HeldFor, tc.wantFor) {
				t.Errorf("HeldFor %v, want %v", st.HeldFor, tc.wantFor)
			}
			var held []int
			for _, w := range st.App.Windows {
				held = append(held, w.Held)
			}
			if !slices.Equal(held, tc.wantHeld) {
				t.Errorf("app windows held %v, want %v", held, tc.wantHeld)
			}
		})
	}
}
