package limiter

import (
	"testing"
	"time"
)

// TestAgainFromTheEpisodeStart: a window refused again is singled out
// when the breaker's probe comes back a cooldown after the first throttle
// of the last episode, however late the episode's last throttle (a
// request in flight) came back. Traced in small-83: a user minute hidden
// at 79 and hour at 198 were both full at 2m5s; four throttles came back
// within 154 ms, the hour at 198 to 201. The probe 10.1 s after the first
// was refused with the hour at 202, but 9.95 s after the last: the hour
// was not singled out, and the minute, whose proof the second lowering
// had reset, was walked down from 77 to 44 (a 49 s stall each minute of
// the next hour). The counts are small-83's.
func TestAgainFromTheEpisodeStart(t *testing.T) {
	tun := DefaultTuning()
	us := OneNote().User
	ms := int64(time.Millisecond)
	start := at(2 * time.Minute).UnixNano()
	// episode is the minute lowered to 79 two minutes before, both
	// windows proven (79 and 198) just before start, and the episode's
	// throttles at start plus each offset with counts.
	episode := func(offsets []int64, counts [][]int) scopeState {
		st := newScopeState(2)
		st.Limits[0] = adapted{Lowered: 79, At: start - 117*int64(time.Second), Strikes: 1, Proven: 79, ProvenAt: start - 30*ms}
		st.Limits[1] = adapted{Proven: 198, ProvenAt: start - 90*ms}
		v := scopeView{st: &st, spec: &us, pers: pers(us.Windows), t: &tun}
		for i, off := range offsets {
			v.lowerBusiest(counts[i], start+off)
		}
		return st
	}
	burst := [][]int{{77, 198}, {77, 199}, {78, 200}, {78, 201}}
	tests := []struct {
		name               string
		offsets            []int64
		counts             [][]int
		wantMinute, wantHr int
	}{
		{
			name:       "the episode alone lowers the minute to its count",
			offsets:    []int64{0, 8 * ms, 89 * ms, 154 * ms},
			counts:     burst,
			wantMinute: 77, wantHr: 0,
		},
		{
			name:       "the probe a cooldown after the episode's first throttle, refused one on at the hour, lowers the hour",
			offsets:    []int64{0, 8 * ms, 89 * ms, 154 * ms, 10102 * ms},
			counts:     append(burst, []int{44, 202}),
			wantMinute: 77, wantHr: 198,
		},
		{
			name:       "the probe a cooldown after the episode's last throttle lowers the hour as well",
			offsets:    []int64{0, 8 * ms, 89 * ms, 154 * ms, 10300 * ms},
			counts:     append(burst, []int{44, 202}),
			wantMinute: 77, wantHr: 198,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := episode(tc.offsets, tc.counts)
			if got := st.Limits[0].Lowered; got != tc.wantMinute {
				t.Errorf("minute lowered to %d, want %d", got, tc.wantMinute)
			}
			if got := st.Limits[1].Lowered; got != tc.wantHr {
				t.Errorf("hour lowered to %d, want %d", got, tc.wantHr)
			}
		})
	}
}
