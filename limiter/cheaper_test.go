package limiter

import (
	"testing"
	"time"
)

// TestCheaperScope: a throttle without a scope, when the counts proven to
// succeed leave windows of both scopes (each with a proof) and neither
// binds, goes to the scope whose shortest window left is the shorter; at
// the same length the inference stands, whatever fullness by believed
// limits says. Traced in full-159 at 3m4.342s: u13's hour, hidden at 135,
// refused at 135 (its highest count yet, proven 134); the app's minute
// sat at its learned 158 but held 156 (proven 158), and its hour held 624
// of 800 (proven 616). The app, fuller by believed limits (its minute at
// 0.99 against the user hour's 0.34), was blamed; its hour was lowered to
// 616 and every user idled 56m55s.
func TestCheaperScope(t *testing.T) {
	now := at(3*time.Minute + 4342*time.Millisecond).UnixNano()
	first := at(3736 * time.Millisecond).UnixNano()
	ms := int64(time.Millisecond)
	tests := []struct {
		name     string
		inferred ThrottleScope
		uc, ac   []int
		appHour  adapted // zero: full-159's
		want     ThrottleScope
		// wantUser and wantApp are the effective minute and hour limits
		// after the throttle is blamed (lowerBusiest).
		wantUser, wantApp [2]int
	}{
		{
			name:     "both hours left, each proven, the user refused alone: the user's hour",
			inferred: ScopeUser, uc: []int{36, 135}, ac: []int{156, 624},
			want: ScopeUser, wantUser: [2]int{120, 134}, wantApp: [2]int{158, 800},
		},
		{
			name:     "both hours left, another user refused nearby: the inference stands",
			inferred: ScopeApp, uc: []int{36, 135}, ac: []int{156, 624},
			want: ScopeApp, wantUser: [2]int{120, 400}, wantApp: [2]int{158, 616},
		},
		{
			name:     "the user's minute left against the app's hour: the user's minute",
			inferred: ScopeApp, uc: []int{39, 100}, ac: []int{156, 624},
			want: ScopeUser, wantUser: [2]int{39, 400}, wantApp: [2]int{158, 800},
		},
		{
			name:     "the app's minute back at its learned limit binds: the app",
			inferred: ScopeUser, uc: []int{36, 135}, ac: []int{158, 624},
			want: ScopeApp, wantUser: [2]int{120, 400}, wantApp: [2]int{158, 800},
		},
		{
			name:     "the app's hour proved nothing: fullness decides (the app)",
			inferred: ScopeUser, uc: []int{36, 135}, ac: []int{156, 624}, appHour: adapted{Seen: 159, SeenAt: first},
			want: ScopeApp, wantUser: [2]int{120, 400}, wantApp: [2]int{158, 624},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			u := l.user("u13")
			u.Scope.Limits[0] = adapted{Proven: 39, ProvenAt: now - 105*ms}
			u.Scope.Limits[1] = adapted{Proven: 134, ProvenAt: now - 105*ms}
			l.st.App.Limits[0] = adapted{Lowered: 158, At: first, Strikes: 1, Proven: 158, ProvenAt: now - 51*ms, Hit: 158, HitAt: first, Seen: 159, SeenAt: first}
			l.st.App.Limits[1] = adapted{Proven: 616, ProvenAt: now - 51*ms, Seen: 159, SeenAt: first}
			if tc.appHour != (adapted{}) {
				l.st.App.Limits[1] = tc.appHour
			}
			usr, app := l.userView(u), l.appView()
			usr.peers = l.userProof()
			got, _ := l.throttleScope(tc.inferred, usr, app, tc.uc, tc.ac, now)
			if got != tc.want {
				t.Errorf("blamed on %v, want %v", got, tc.want)
			}
			v, before := usr, tc.uc
			if got == ScopeApp {
				v, before = app, tc.ac
			}
			v.lowerBusiest(before, now)
			for _, c := range []struct {
				name string
				v    scopeView
				want [2]int
			}{{"user", usr, tc.wantUser}, {"app", app, tc.wantApp}} {
				for w, want := range c.want {
					if lim := c.v.st.Limits[w].limit(c.v.spec.Windows[w].Limit, c.v.t, now); lim != want {
						t.Errorf("%s window %d: effective limit %d, want %d", c.name, w, lim, want)
					}
				}
			}
		})
	}
}
