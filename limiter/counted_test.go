package limiter

import (
	"testing"
	"time"
)

// TestAppCountedDatesWhatMayStillMove: a released request's units are
// dated when the windows count them; an open lease's at its expiry (it
// may yet be settled as late as that), so that nothing leaves a window
// later than listed (while the model keeps it open, the windows keep
// counting it); units out of every window are left out.
func TestAppCountedDatesWhatMayStillMove(t *testing.T) {
	l, err := New(rateBound(), t0)
	if err != nil {
		t.Fatal(err)
	}
	var s seq
	ids := grantAll(t, l, t0, s.req("u1", Background, 1), s.req("u2", Background, 2))
	if len(ids) != 2 {
		t.Fatalf("granted %v, want both", ids)
	}
	lease := func(id string) Grant {
		g, ok := l.Lease(id)
		if !ok {
			t.Fatalf("no lease for %s", id)
		}
		return g
	}
	first, second := lease(ids[0]), lease(ids[1])
	if !l.Release(first.LeaseID, Outcome{Status: 200}, at(time.Second)) {
		t.Fatal("release refused")
	}
	tests := []struct {
		name string
		now  time.Time
		want []Dated
	}{
		{"one released, one in flight", at(2 * time.Second), []Dated{{At: t0, Cost: 1}, {At: second.Expires, Cost: 2}}},
		{"the open lease past its expiry: at now", second.Expires.Add(time.Second), []Dated{{At: t0, Cost: 1}, {At: second.Expires.Add(time.Second), Cost: 2}}},
		{"the released units out of the windows, the open lease still at now", at(2 * time.Minute), []Dated{{At: at(2 * time.Minute), Cost: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := l.AppCounted(tt.now)
			if len(got) != len(tt.want) {
				t.Fatalf("AppCounted = %v, want %v", got, tt.want)
			}
			for i := range got {
				if !got[i].At.Equal(tt.want[i].At) || got[i].Cost != tt.want[i].Cost {
					t.Fatalf("AppCounted = %v, want %v", got, tt.want)
				}
			}
		})
	}
}
