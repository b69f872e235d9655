package limiter

import (
	"testing"
	"time"
)

// TestUnderReport: upstream that sends x-ms-throttle-limit-percentage
// sends it on a success from 80% of a limit on, so a success without it
// says every window of both scopes held less than that. A lowered window
// whose count says otherwise rises to the limit that share implies.
// Traced in full-218: the user hour learned at 204 rose to 331 while
// every user idled; the hour slid, the users sent up to 204 again, no
// window reached 80% of the new limits, no report came, the rise probe
// does not go with headers, and the users idled most of every hour. Each
// case releases a success of user a on a fake clock (OneNote's table)
// with its hour at 204 (the request included) and the app hour at 444,
// and checks the learned hours after.
func TestUnderReport(t *testing.T) {
	now := at(5 * time.Hour)
	n := now.UnixNano()
	learned := func(l int) adapted {
		return adapted{Lowered: l, At: n - int64(10*time.Minute), Strikes: 3, Hit: l + 1, HitAt: n - int64(10*time.Minute)}
	}
	tests := []struct {
		name     string
		headers  bool    // upstream sent headers before
		pct      float64 // the success's report (0: none)
		userHour adapted
		appHour  adapted
		// the user's and the app's hour limits after
		wantUser, wantApp int
	}{
		{
			name:    "no report at the learned limit: the user hour rises to 204 / 0.8",
			headers: true, userHour: learned(204),
			wantUser: 255, wantApp: 800,
		},
		{
			name:    "no report at the app's learned limit: the app hour rises to 444 / 0.8",
			headers: true, appHour: learned(444),
			wantUser: 400, wantApp: 555,
		},
		{
			name:    "no report under 80% of the learned limit: nothing moves",
			headers: true, userHour: learned(260),
			wantUser: 260, wantApp: 800,
		},
		{
			name:    "no headers ever: a missing report says nothing",
			headers: false, userHour: learned(204),
			wantUser: 204, wantApp: 800,
		},
		{
			name:    "a report of 100%: the learned limit holds",
			headers: true, pct: 1.0, userHour: learned(204),
			wantUser: 204, wantApp: 800,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			l.st.Headers = tc.headers
			a := l.user("a")
			a.Scope.Limits[1], l.st.App.Limits[1] = tc.userHour, tc.appHour
			ls := &lease{Grant: Grant{User: "a", Granted: now.Add(-time.Second), Cost: 1}, UserCount: []int{60, 203}, AppCount: []int{90, 443}}
			o := Outcome{Status: 200, ThrottlePercent: tc.pct}
			if tc.pct > 0 {
				o.Scope = ScopeUser
			}
			l.learn(a, ls, o, n)
			tun := &l.st.Spec.Tuning
			u, p := a.Scope.Limits[1].limit(400, tun, n), l.st.App.Limits[1].limit(800, tun, n)
			if u != tc.wantUser || p != tc.wantApp {
				t.Errorf("user hour %d, app hour %d; want %d, %d", u, p, tc.wantUser, tc.wantApp)
			}
		})
	}
}
