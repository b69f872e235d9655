package limiter

import (
	"testing"
	"time"
)

// oneNoteView is a scope with OneNote's app windows (240/min, 800/h) and
// the default tuning, in the state st.
func oneNoteView(st *scopeState, tun *Tuning) scopeView {
	s := OneNote().App
	return scopeView{st: st, spec: &s, pers: pers(s.Windows), t: tun}
}

// TestThrottleBlame covers the rules that find the window that binds:
// the level a window was throttled at before, the count proven to
// succeed (never lowered below it), and undoing a lowering that a later
// throttle shows was a mistake.
func TestThrottleBlame(t *testing.T) {
	now := at(3 * time.Hour).UnixNano()
	sec := int64(time.Second)
	tests := []struct {
		name   string
		limits [2]adapted
		before []int
		want   [2]int // effective minute and hour limits after
	}{
		{
			// The minute was throttled at 120 and has crept back to 240;
			// the hour holds more by ratio of its limit, but the minute
			// is back at the level it was throttled at.
			name:   "a window back at the level it was throttled at is blamed",
			limits: [2]adapted{{Hit: 121}, {}},
			before: []int{121, 560},
			want:   [2]int{121, 800},
		},
		{
			name:   "without that memory the fuller window by ratio is",
			limits: [2]adapted{{}, {}},
			before: []int{121, 560},
			want:   [2]int{240, 560},
		},
		{
			// 400 went through in the hour a minute ago; the throttle
			// came at 410 (rejected requests count too): the hour is
			// lowered to 400, not to 410, nor below 400 next time.
			name:   "lowered to the count proven to succeed, not to the count held",
			limits: [2]adapted{{}, {Proven: 400, ProvenAt: now - 60*sec}},
			before: []int{2, 410},
			want:   [2]int{240, 400},
		},
		{
			// The minute was lowered at the first throttle; now it holds
			// 2 when the hour is throttled: it could not have caused
			// this one, so its lowering is undone.
			name:   "a lowered window far under its floor at a throttle is restored",
			limits: [2]adapted{{Lowered: 239, At: now - 70*sec, Strikes: 1, Hit: 240}, {}},
			before: []int{2, 410},
			want:   [2]int{240, 410},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tun := DefaultTuning()
			st := newScopeState(2)
			st.Limits[0], st.Limits[1] = tc.limits[0], tc.limits[1]
			v := oneNoteView(&st, &tun)
			v.lowerBusiest(tc.before, now)
			for w, want := range tc.want {
				if got := st.Limits[w].limit(v.spec.Windows[w].Limit, &tun, now); got != want {
					t.Errorf("window %d: effective limit %d, want %d", w, got, want)
				}
			}
		})
	}
}

// TestThrottleBlamePlausibleScope: a throttle without a scope, inferred
// to be the user's, goes to the app when none of the user's windows could
// have caused it (each under what it proved a moment ago) and an app
// window could.
func TestThrottleBlamePlausibleScope(t *testing.T) {
	now := at(time.Hour).UnixNano()
	tun := DefaultTuning()
	ust, ast := newScopeState(2), newScopeState(2)
	ust.Limits[0] = adapted{Proven: 46, ProvenAt: now - int64(time.Second)}
	ust.Limits[1] = adapted{Proven: 80, ProvenAt: now - int64(time.Second)}
	ast.Limits[1] = adapted{Proven: 400, ProvenAt: now - int64(time.Second)}
	us := OneNote().User
	usr := scopeView{st: &ust, spec: &us, pers: pers(us.Windows), t: &tun}
	app := oneNoteView(&ast, &tun)
	var l Limiter
	tests := []struct {
		name   string
		uc, ac []int
		want   ThrottleScope
	}{
		{"user windows under their proven counts, app hour above", []int{33, 80}, []int{168, 408}, ScopeApp},
		{"a user window above its proven count keeps the user", []int{50, 80}, []int{168, 408}, ScopeUser},
		{"neither scope plausible by proof: the floor decides", []int{20, 79}, []int{10, 300}, ScopeApp},
		{"both plausible: the inference stands", []int{33, 79}, []int{10, 300}, ScopeUser},
	}
	for _, tc := range tests {
		if got := l.plausibleScope(ScopeUser, usr, app, tc.uc, tc.ac, now); got != tc.want {
			t.Errorf("%s: scope %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestThrottleBlameUnderPeak: when the proof leaves both scopes, a
// throttle without a scope goes to the scope at the most it took within
// its longest window against one whose windows are all under it (full-6:
// a user new to the minute at 35, where the users took 115 half an hour
// before, against the app hour at its highest count yet, 360).
func TestThrottleBlameUnderPeak(t *testing.T) {
	now := at(2 * time.Hour).UnixNano()
	ago := func(d time.Duration) int64 { return now - int64(d) }
	tests := []struct {
		name string
		// userPeak is the minute's peak in the user table (peers), at
		// userPeakAgo; appPeak the app hour's, a second ago.
		userPeak    int
		userPeakAgo time.Duration
		appPeak     int
		want        ThrottleScope
		byPeak      bool
	}{
		{"the user minute under the users' peak, the app hour at its own: the app", 115, 30 * time.Minute, 358, ScopeApp, true},
		{"the user minute at the users' peak: the inference stands", 35, time.Second, 358, ScopeUser, false},
		{"a peak older than the longest window is forgotten", 115, 61 * time.Minute, 358, ScopeUser, false},
		{"both under their peaks: the cheaper wrong guess (the user's minute)", 115, 30 * time.Minute, 700, ScopeUser, false},
		{"the app hour under its peak, the user minute at its: the user", 35, time.Second, 700, ScopeUser, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tun := DefaultTuning()
			ust, ast := newScopeState(2), newScopeState(2)
			// The user's own minute proved 33 a moment ago (it is new);
			// the app hour proved 358.
			ust.Limits[0] = adapted{Proven: 33, ProvenAt: ago(time.Second)}
			ast.Limits[1] = adapted{Proven: 358, ProvenAt: ago(time.Second), Peak: tc.appPeak, PeakAt: ago(time.Second)}
			peers := []adapted{{Peak: tc.userPeak, PeakAt: ago(tc.userPeakAgo)}, {}}
			us := OneNote().User
			usr := scopeView{st: &ust, spec: &us, pers: pers(us.Windows), t: &tun, peers: peers}
			app := oneNoteView(&ast, &tun)
			var l Limiter
			if got, byPeak := l.throttleScope(ScopeUser, usr, app, []int{35, 35}, []int{35, 360}, now); got != tc.want || byPeak != tc.byPeak {
				t.Errorf("scope %v (by peak %v), want %v (%v)", got, byPeak, tc.want, tc.byPeak)
			}
		})
	}
}

// TestPeakRemembered: a success raises a window's peak, a lower one
// leaves it, and it is forgotten after the scope's longest window; the
// user table shares the users' peaks (proveShared).
func TestPeakRemembered(t *testing.T) {
	hour := int64(time.Hour)
	var a adapted
	a.provePeak(115, hour, 0)
	a.provePeak(40, hour, 10*int64(time.Minute))
	if got := a.peak(hour, 30*int64(time.Minute)); got != 115 {
		t.Errorf("peak after a lower success: %d, want 115", got)
	}
	if got := a.peak(hour, hour); got != 0 {
		t.Errorf("peak a window later: %d, want 0 (forgotten)", got)
	}
	a.provePeak(40, hour, hour+1)
	if got := a.peak(hour, hour+2); got != 40 {
		t.Errorf("peak after the old one lapsed: %d, want 40", got)
	}

	l := mustNew(t, OneNote())
	l.proveShared([]int{114, 200}, 1, at(time.Minute).UnixNano())
	l.proveShared([]int{9, 9}, 1, at(20*time.Minute).UnixNano())
	proof := l.userProof()
	if got := proof[0].peak(hour, at(30*time.Minute).UnixNano()); got != 115 {
		t.Errorf("user table's minute peak: %d, want 115", got)
	}
	if got := proof[0].proven(int64(time.Minute), at(30*time.Minute).UnixNano()); got != 0 {
		t.Errorf("user table's minute proof half an hour on: %d, want 0 (the proof lasts two minutes)", got)
	}
}

// TestLowerBusiestByPeak: a scope blamed by its peak lowers the window at
// its peak, not a shorter one under it (full-212: the app minute at 113,
// where it took 230 within the hour, and the app hour at 531, its
// highest yet, hidden at 530); blamed otherwise, the shorter window the
// proof leaves is lowered (shortestLeft).
func TestLowerBusiestByPeak(t *testing.T) {
	now := at(2 * time.Hour).UnixNano()
	ago := func(d time.Duration) int64 { return now - int64(d) }
	for _, tc := range []struct {
		name   string
		byPeak bool
		want   [2]int
	}{
		{"blamed by its peak: the hour", true, [2]int{240, 530}},
		{"blamed otherwise: the shorter window, to its proven count", false, [2]int{100, 800}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tun := DefaultTuning()
			st := newScopeState(2)
			st.Limits[0] = adapted{Proven: 100, ProvenAt: ago(time.Second), Peak: 230, PeakAt: ago(20 * time.Minute)}
			st.Limits[1] = adapted{Proven: 530, ProvenAt: ago(time.Second), Peak: 530, PeakAt: ago(time.Second)}
			v := oneNoteView(&st, &tun)
			v.byPeak = tc.byPeak
			v.lowerBusiest([]int{113, 531}, now)
			for w, want := range tc.want {
				if got := st.Limits[w].limit(v.spec.Windows[w].Limit, &tun, now); got != want {
					t.Errorf("window %d: effective limit %d, want %d", w, got, want)
				}
			}
		})
	}
}
