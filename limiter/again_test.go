package limiter

import (
	"testing"
	"time"
)

// TestAgainNotUnderTheProof: a window refused at the count it held at the
// scope's last throttle is not singled out when it is under the count it
// recently proved and another window of the scope is at its own proof.
// The memory of the same count is two window lengths, so the hour
// remembers a count two hours and the minute two minutes; the counts are
// full-69's (a user minute hidden at 113, the hour at 318). At 1h2m4s a
// minute throttle came back with the hour at 317, one under the 318 it
// had taken (Seen 317). At 3h1m12s the minute refused at 113 again, the
// hour again at 317 after proving 318 at 2h0m1s: the hour alone was the
// same count within two of its lengths and was lowered under its proof
// to 317, and from then on the user idled 57 minutes an hour a unit
// short. Before, the first case lowered the hour to 317 and the minute
// not at all.
func TestAgainNotUnderTheProof(t *testing.T) {
	tun := DefaultTuning()
	us := OneNote().User
	h := func(d time.Duration) int64 { return at(d).UnixNano() }
	last := h(time.Hour + 2*time.Minute + 4*time.Second)
	now := h(3*time.Hour + time.Minute + 12*time.Second)
	// scope is the user scope at 3h1m12s: the minute lowered to 113 at
	// the last throttle and crept back since; the hour lowered to the 318
	// it proved at 2h0m1s (a percentage report), its Seen 317 from the
	// last throttle; the minute proved 113 a second ago.
	scope := func() scopeState {
		st := newScopeState(2)
		st.Limits[0] = adapted{Lowered: 113, At: last, Strikes: 2, Proven: 113, ProvenAt: now - int64(time.Second),
			Hit: 113, HitAt: last, Seen: 113, SeenAt: last}
		st.Limits[1] = adapted{Lowered: 318, At: h(2*time.Hour + time.Second), Strikes: 3, Proven: 318, ProvenAt: h(2*time.Hour + time.Second),
			Hit: 318, HitAt: h(2*time.Minute + 48*time.Second), Seen: 317, SeenAt: last}
		return st
	}
	tests := []struct {
		name                 string
		counts               []int
		wantMinute, wantHour int
		wantHourStrikes      int
	}{
		{
			name:       "the minute at its proof refuses; the hour a unit under its proof is not singled out",
			counts:     []int{113, 317},
			wantMinute: 113, wantHour: 318, wantHourStrikes: 3,
		},
		{
			// Both windows under their proofs: the proof is stale (the
			// limits fell) and says nothing; the hour refusing at its
			// last count again binds, as before.
			name:       "with every window under its proof, the hour at its last count is singled out",
			counts:     []int{100, 317},
			wantMinute: 120, wantHour: 317, wantHourStrikes: 4,
		},
		{
			name:       "the hour at its proof, the minute under its own, is blamed and stays at its proof",
			counts:     []int{60, 318},
			wantMinute: 120, wantHour: 318, wantHourStrikes: 3,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := scope()
			v := scopeView{st: &st, spec: &us, pers: pers(us.Windows), t: &tun}
			v.lowerBusiest(tc.counts, now)
			if got := st.Limits[0].limit(us.Windows[0].Limit, &tun, now); got != tc.wantMinute {
				t.Errorf("minute's limit %d, want %d", got, tc.wantMinute)
			}
			if got := st.Limits[1].limit(us.Windows[1].Limit, &tun, now); got != tc.wantHour {
				t.Errorf("hour's limit %d, want %d", got, tc.wantHour)
			}
			if got := st.Limits[1].Strikes; got != tc.wantHourStrikes {
				t.Errorf("hour's strikes %d, want %d", got, tc.wantHourStrikes)
			}
		})
	}
}

// TestAgainAtTheLoweredLevel: a window refused again at a count from the
// level it was lowered to up to the count it held at that throttle is the
// one that binds, though the creep has lifted its limit since. The
// counts are full-639's (one user, the hour hidden at 272): at 2m28s
// the hour was refused at 273 and lowered to the 272 it proved; an hour
// later, crept to 392, it refused at 272 with the minute at 59, half its
// limit. The proven rule left only the minute (the hour was at its
// proof), which was lowered to 59, and the user idled 28 s a minute for
// four minutes.
func TestAgainAtTheLoweredLevel(t *testing.T) {
	tun := DefaultTuning()
	us := OneNote().User
	h := func(d time.Duration) int64 { return at(d).UnixNano() }
	first := h(2*time.Minute + 18*time.Second)
	last := h(2*time.Minute + 28*time.Second)
	now := h(time.Hour + 31*time.Second)
	scope := func() scopeState {
		st := newScopeState(2)
		st.Limits[0] = adapted{Lowered: 117, At: first, Strikes: 1, Proven: 59, ProvenAt: now - int64(time.Second),
			Hit: 117, HitAt: first, Seen: 98, SeenAt: last}
		st.Limits[1] = adapted{Lowered: 272, At: last, Strikes: 1, Proven: 272, ProvenAt: h(time.Hour + 1661*time.Millisecond),
			Hit: 273, HitAt: last, Seen: 273, SeenAt: last}
		return st
	}
	tests := []struct {
		name      string
		counts    []int
		hourBinds bool // the hour is lowered to 272 and the minute kept
	}{
		{"the hour at the level it was lowered to", []int{59, 272}, true},
		{"the hour at the count it was refused at", []int{59, 273}, true},
		{"the hour under the level it was lowered to", []int{59, 200}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := scope()
			minute := st.Limits[0].limit(us.Windows[0].Limit, &tun, now)
			if hour := st.Limits[1].limit(us.Windows[1].Limit, &tun, now); hour <= 273 {
				t.Fatalf("the hour has crept to %d, want above 273 for the case to mean anything", hour)
			}
			v := scopeView{st: &st, spec: &us, pers: pers(us.Windows), t: &tun}
			v.lowerBusiest(tc.counts, now)
			gotMinute := st.Limits[0].limit(us.Windows[0].Limit, &tun, now)
			gotHour := st.Limits[1].limit(us.Windows[1].Limit, &tun, now)
			if binds := gotHour <= 272 && gotMinute == minute; binds != tc.hourBinds {
				t.Errorf("minute %d (was %d), hour %d: hour binds %v, want %v", gotMinute, minute, gotHour, binds, tc.hourBinds)
			}
		})
	}
}
