package limiter

import (
	"testing"
	"time"
)

// TestThrottleScopeRefusedAgain: a user throttled again, with nothing of
// it succeeding since its previous throttle while the app took another
// user's request granted after it, is refused by its own scope, however
// empty its windows look by believed limits (full-40: a user hour hidden
// at 121 looked a third full beside an app hour two-thirds full; the
// app's hour was lowered to the count it held, 528 of a real 800, and
// every user idled 57 min). Without that history the inference stands:
// the proof leaves the user's hour and the app's (its minute is under the
// 240 it took), each with a proof, and the inference here is the app's
// (another user was refused nearby; cheaperScope).
func TestThrottleScopeRefusedAgain(t *testing.T) {
	now := at(2 * time.Hour).UnixNano()
	sec := int64(time.Second)
	tun := DefaultTuning()
	userSpec, appSpec := OneNote().User, OneNote().App
	// The counts of full-40's throttle at 1m52s: the user's minute has
	// drained under its floor, its hour is at 124 (proven 121); the app's
	// minute is full (proven 240), its hour at 462.
	uc, ac := []int{21, 124}, []int{239, 462}
	tests := []struct {
		name              string
		refusedAt, userOK int64 // relative to now; 0: never
		appOK             int64
		userProven        int
		want              ThrottleScope
	}{
		{"refused before, the app took another's request since: the user", -20 * sec, -90 * sec, -5 * sec, 121, ScopeUser},
		{"never refused before: the inference", 0, -90 * sec, -5 * sec, 121, ScopeApp},
		{"the user succeeded since its refusal: the inference", -20 * sec, -10 * sec, -5 * sec, 121, ScopeApp},
		{"the app took nothing since the refusal: the inference", -20 * sec, -90 * sec, -30 * sec, 121, ScopeApp},
		{"the refusal is older than the user's longest window: the inference", -2 * int64(time.Hour), -3 * int64(time.Hour), -5 * sec, 121, ScopeApp},
		{"no user window at its proven count: the app", -20 * sec, -90 * sec, -5 * sec, 130, ScopeApp},
	}
	rel := func(d int64) int64 {
		if d == 0 {
			return 0
		}
		return now + d
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ust := newScopeState(2)
			ust.Limits[1] = adapted{Proven: tc.userProven, ProvenAt: now - 10*sec}
			ust.RefusedAt, ust.OKAt = rel(tc.refusedAt), rel(tc.userOK)
			ast := newScopeState(2)
			ast.Limits[0] = adapted{Proven: 240, ProvenAt: now - 10*sec}
			ast.Limits[1] = adapted{Proven: 462, ProvenAt: now - 10*sec}
			ast.OKAt = rel(tc.appOK)
			usr := scopeView{st: &ust, spec: &userSpec, pers: pers(userSpec.Windows), t: &tun}
			app := scopeView{st: &ast, spec: &appSpec, pers: pers(appSpec.Windows), t: &tun}
			l := &Limiter{}
			if got := l.throttleScope(ScopeApp, usr, app, uc, ac, now); got != tc.want {
				t.Errorf("throttleScope = %v, want %v", got, tc.want)
			}
		})
	}
}
