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
	rel := func(d int64) int64 { return relTo(now, d) }
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
			if got, _ := l.throttleScope(ScopeApp, usr, app, uc, ac, now); got != tc.want {
				t.Errorf("throttleScope = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestThrottleScopeAppRefusedAgain: a throttle without a scope, inferred
// to be the user's (no other user refused within InferWindow), goes to
// the app when the app refused a request of its own within MaxCooldown
// and let nothing through since, while no user window is at its proof
// (full-188: the app hour fell from 800 to 335 under a full hour; the
// breaker's probes, 20 s apart, each walked the user's hour down instead,
// and every user idled 55 minutes an hour). Both scopes are under their
// proof here, so the floor leaves both, and without the app's refusal
// the inference stands.
func TestThrottleScopeAppRefusedAgain(t *testing.T) {
	now := at(19 * time.Hour).UnixNano()
	sec := int64(time.Second)
	tun := DefaultTuning()
	userSpec, appSpec := OneNote().User, OneNote().App
	tests := []struct {
		name           string
		appRefused, ok int64 // relative to now; 0: never
		uc, ac         []int
		want           ThrottleScope
	}{
		{"the app refused 10 s ago and took nothing since: the app", -10 * sec, -70 * sec, []int{2, 377}, []int{4, 771}, ScopeApp},
		{"the app never refused: the inference", 0, -70 * sec, []int{2, 377}, []int{4, 771}, ScopeUser},
		{"the app took a request since its refusal: the inference", -10 * sec, -5 * sec, []int{2, 377}, []int{4, 771}, ScopeUser},
		{"the refusal is older than MaxCooldown: the inference", -11 * 60 * sec, -20 * 60 * sec, []int{2, 377}, []int{4, 771}, ScopeUser},
		{"a user window at its proof: the user", -10 * sec, -70 * sec, []int{2, 391}, []int{4, 771}, ScopeUser},
		{"every app window under its floor: the user", -10 * sec, -70 * sec, []int{2, 377}, []int{4, 150}, ScopeUser},
	}
	rel := func(d int64) int64 { return relTo(now, d) }
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ust := newScopeState(2)
			ust.Limits[1] = adapted{Lowered: 390, At: now - 10*sec, Strikes: 1, Proven: 390, ProvenAt: now - 60*sec}
			ast := newScopeState(2)
			ast.Limits[1] = adapted{Lowered: 799, At: now - 10*sec, Strikes: 1, Proven: 799, ProvenAt: now - 60*sec}
			ast.RefusedAt, ast.OKAt = rel(tc.appRefused), rel(tc.ok)
			usr := scopeView{st: &ust, spec: &userSpec, pers: pers(userSpec.Windows), t: &tun}
			app := scopeView{st: &ast, spec: &appSpec, pers: pers(appSpec.Windows), t: &tun}
			l := &Limiter{}
			if got, _ := l.throttleScope(ScopeUser, usr, app, tc.uc, tc.ac, now); got != tc.want {
				t.Errorf("throttleScope = %v, want %v", got, tc.want)
			}
		})
	}
}
