package limiter

import (
	"testing"
	"time"
)

// TestUnlearnUserLowering: the first throttle of an episode in which the
// app binds comes to the user (no other user was refused yet), and its
// lowering is shared by every user; when the next user's throttle, within
// InferWindow, lowers the app's window to a limit the app held at the
// first throttle, the user table's lowering is taken back for every user.
// Traced in small-21 (the app minute hidden at 189): u04 was refused at
// 69 of its minute with the app's at 189; the user minute was lowered to
// 69 for every user, the app minute to 189 a tenth of a second later,
// and every user idled 47 s a minute for the 30 minutes of the user
// minute's quiet.
func TestUnlearnUserLowering(t *testing.T) {
	refused := Outcome{Status: 429, Code: CodeThrottled}
	tests := []struct {
		name  string
		first Outcome       // u04's throttle
		after time.Duration // u05's throttle, after u04's
		// want is the user minute's effective limit (every user's)
		// after both throttles; the app minute's is 189 in each case.
		want int
	}{
		{"the app's lowering a tenth of a second later takes the user's back", refused, 95 * time.Millisecond, 120},
		{"the app's lowering after InferWindow: the user's stays", refused, 6 * time.Second, 69},
		{"the user's throttle named its scope: the user's stays", Outcome{Status: 429, Code: CodeThrottled, Scope: ScopeUser}, 95 * time.Millisecond, 69},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			var q seq
			// small-21's counts at 11.4 s: 189 in the app's minute, 69 of
			// them u04's and 32 u05's.
			took := map[string]int{"u04": 69, "u05": 32, "u02": 35, "u00": 35, "u01": 9, "u03": 9}
			i := 0
			for _, u := range []string{"u00", "u01", "u02", "u03", "u04", "u05"} {
				for range took[u] {
					if !sendOne(t, l, &q, u, ok200, at(time.Duration(i)*50*time.Millisecond), 0) {
						t.Fatalf("%s's request %d refused", u, i)
					}
					i++
				}
			}
			now := at(11400 * time.Millisecond)
			if !sendOne(t, l, &q, "u04", tc.first, now, 0) {
				t.Fatal("u04's request not granted")
			}
			if got := l.user("u04").Scope.Limits[0].limit(120, &l.st.Spec.Tuning, now.UnixNano()); got != 69 {
				t.Fatalf("u04's throttle lowered the user minute to %d, want 69", got)
			}
			next := now.Add(tc.after)
			if !sendOne(t, l, &q, "u05", refused, next, 0) {
				t.Fatal("u05's request not granted")
			}
			st := l.State(next)
			if got := st.App.Windows[0].Effective; got != 189 {
				t.Errorf("app minute %d, want 189", got)
			}
			for _, u := range st.Users {
				if got := u.Windows[0].Effective; got != tc.want {
					t.Errorf("%s: user minute %d, want %d", u.User, got, tc.want)
				}
			}
		})
	}
}
