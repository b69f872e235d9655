package limiter

import (
	"testing"
	"time"
)

// TestShortestWindowFirst: when the counts proven to succeed leave more
// than one window of a scope as the cause of a throttle, the shortest is
// blamed, whatever fullness by believed limits says; a probe the longer
// window then refuses names it. Traced in small-285: the app minute,
// hidden at 88, had taken 89 in the minute before and refused a request
// at 90; the app hour, at 683 of 800 and proven to 682 (its first hour:
// every count is its highest yet), was the fuller by believed limits and
// was lowered to 682, and every user idled 52 minutes until it slid.
func TestShortestWindowFirst(t *testing.T) {
	now := at(7 * time.Minute).UnixNano()
	sec := int64(time.Second)
	type throttle struct {
		after  int64 // after now
		before []int
	}
	tests := []struct {
		name      string
		limits    [2]adapted
		throttles []throttle
		want      [2]int // the minute's and hour's effective limits after
	}{
		{
			name:      "both at their proven counts: the minute, lowered to its proof",
			limits:    [2]adapted{{Proven: 89, ProvenAt: now - 2*sec}, {Proven: 682, ProvenAt: now - sec}},
			throttles: []throttle{{0, []int{90, 683}}},
			want:      [2]int{89, 800},
		},
		{
			name:      "the probe the hour refuses after the minute's lowering names the hour",
			limits:    [2]adapted{{Proven: 89, ProvenAt: now - 2*sec}, {Proven: 682, ProvenAt: now - sec}},
			throttles: []throttle{{0, []int{90, 683}}, {10 * sec, []int{70, 684}}},
			want:      [2]int{89, 682},
		},
		{
			name:      "the minute under its proof: the hour",
			limits:    [2]adapted{{Proven: 120, ProvenAt: now - 2*sec}, {Proven: 682, ProvenAt: now - sec}},
			throttles: []throttle{{0, []int{90, 683}}},
			want:      [2]int{240, 682},
		},
		{
			name:      "the minute without a proof: the fuller by believed limits",
			limits:    [2]adapted{{}, {Proven: 682, ProvenAt: now - sec}},
			throttles: []throttle{{0, []int{90, 683}}},
			want:      [2]int{240, 682},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tun := DefaultTuning()
			st := newScopeState(2)
			st.Limits[0], st.Limits[1] = tc.limits[0], tc.limits[1]
			v := oneNoteView(&st, &tun)
			end := now
			for _, th := range tc.throttles {
				end = now + th.after
				v.lowerBusiest(th.before, end)
			}
			for w, want := range tc.want {
				if got := st.Limits[w].limit(v.spec.Windows[w].Limit, &tun, end); got != want {
					t.Errorf("window %d: effective limit %d, want %d", w, got, want)
				}
			}
		})
	}
}
