package limiter

import (
	"testing"
	"time"
)

// TestReportTable: a percentage report names the user's scope but not
// its window, and the window taken is the fullest by the limits believed
// (fullestUnproven). One user table holds for every user, so a window
// the other users learned lower is believed at what they learned, not at
// the spec a user arriving later starts from (full-48: u06's hour at 400
// beside the others' 120; the report of 100% at 50 of its minute and 120
// of its hour lowered the minute to 50, against a true 120). Each case
// releases a success of user a on a fake clock (OneNote's table: 120 a
// minute, 400 an hour) at 50 of its minute and 120 of its hour (the
// request included), reported 100% of the user, with user b's hour as
// given, and checks a's learned minute and hour after.
func TestReportTable(t *testing.T) {
	now := at(2 * time.Hour)
	n := now.UnixNano()
	learned := func(l int) adapted {
		return adapted{Lowered: l, At: n - int64(10*time.Minute), Strikes: 3}
	}
	tests := []struct {
		name   string
		others []adapted // the other users' hours
		// a's minute and hour limits after
		wantMinute, wantHour int
	}{
		{
			name:       "the others learned the hour at 120: the hour takes the report",
			others:     []adapted{learned(120)},
			wantMinute: 120, wantHour: 120,
		},
		{
			name:       "the highest the others learned speaks for the table",
			others:     []adapted{learned(120), learned(140), {}},
			wantMinute: 120, wantHour: 120,
		},
		{
			name:       "a lowering crept back since speaks at the level it was learned at",
			others:     []adapted{{Lowered: 120, At: n - int64(10*time.Hour), Strikes: 1}},
			wantMinute: 120, wantHour: 120,
		},
		{
			name:       "nobody learned the hour: the minute looks fuller and takes it",
			others:     []adapted{{}},
			wantMinute: 50, wantHour: 400,
		},
		{
			name:       "the others learned the hour higher: the minute looks fuller",
			others:     []adapted{learned(120), learned(300)},
			wantMinute: 50, wantHour: 400,
		},
		{
			name:       "no other user: the minute looks fuller",
			wantMinute: 50, wantHour: 400,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			l.st.Headers = true
			for i, h := range tc.others {
				l.user(string(rune('b' + i))).Scope.Limits[1] = h
			}
			a := l.user("a")
			ls := &lease{Grant: Grant{User: "a", Granted: now.Add(-time.Second), Cost: 1}, UserCount: []int{49, 119}, AppCount: []int{60, 200}}
			l.learn(a, ls, Outcome{Status: 200, ThrottlePercent: 1.0, Scope: ScopeUser}, n)
			tun := &l.st.Spec.Tuning
			m, h := a.Scope.Limits[0].limit(120, tun, n), a.Scope.Limits[1].limit(400, tun, n)
			if m != tc.wantMinute || h != tc.wantHour {
				t.Errorf("minute %d, hour %d; want %d, %d", m, h, tc.wantMinute, tc.wantHour)
			}
		})
	}
}

// TestThrottleTable: a throttle without a scope that the counts proven
// to succeed leave on more than one window of the user's scope is blamed
// on the shorter window (shortestLeft), unless what was learned before
// names another (named): here, the limit the other users learned of it,
// which the user's count reached while its own limit is the spec's
// (small-129: u04, arriving after the others learned the hidden hour at
// 193, was refused at 194 of its hour and 52 of its minute; the minute
// was lowered to 51, shared with every user, and they idled 34 s a
// minute). Each case releases a throttle of user a on a fake clock
// (OneNote's table) at the counts given, with a's minute proven at 45 and
// the user table's hour proven at 193 a minute ago, and user b's windows as
// given, and checks a's learned minute and hour after.
func TestThrottleTable(t *testing.T) {
	now := at(2 * time.Hour)
	n := now.UnixNano()
	learned := func(l int) adapted {
		return adapted{Lowered: l, At: n - int64(90*time.Minute), Strikes: 1, Hit: l + 1, HitAt: n - int64(90*time.Minute)}
	}
	tests := []struct {
		name         string
		minute, hour adapted // b's
		counts       []int   // a's before the request
		// a's minute and hour limits after
		wantMinute, wantHour int
	}{
		{
			name: "the others learned the hour at 193: the hour is blamed",
			hour: learned(193), counts: []int{51, 193},
			wantMinute: 120, wantHour: 193,
		},
		{
			name: "a lowering crept back still names the level it was learned at",
			hour: adapted{Lowered: 193, At: n - int64(10*time.Hour), Strikes: 1}, counts: []int{51, 193},
			wantMinute: 120, wantHour: 193,
		},
		{
			name:       "nobody learned the hour: the shorter window is blamed",
			counts:     []int{51, 193},
			wantMinute: 45, wantHour: 400,
		},
		{
			name: "the hour under what the others learned: the shorter window is blamed",
			hour: learned(250), counts: []int{51, 193},
			wantMinute: 45, wantHour: 400,
		},
		{
			name:   "the minute the others learned is not reached: the hour is blamed",
			minute: learned(114), hour: learned(193), counts: []int{51, 193},
			wantMinute: 120, wantHour: 193,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := mustNew(t, OneNote())
			b := l.user("b")
			b.Scope.Limits[0], b.Scope.Limits[1] = tc.minute, tc.hour
			a := l.user("a")
			a.Scope.Limits[0].Proven, a.Scope.Limits[0].ProvenAt = 45, n-int64(20*time.Second)
			proof := l.userProof()
			proof[1].Proven, proof[1].ProvenAt = 193, n-int64(time.Minute)
			ls := &lease{Grant: Grant{User: "a", Granted: now.Add(-time.Second), Cost: 1}, UserCount: tc.counts, AppCount: []int{60, 300}}
			l.learn(a, ls, Outcome{Status: 429, Code: CodeThrottled}, n)
			tun := &l.st.Spec.Tuning
			m, h := a.Scope.Limits[0].limit(120, tun, n), a.Scope.Limits[1].limit(400, tun, n)
			if m != tc.wantMinute || h != tc.wantHour {
				t.Errorf("minute %d, hour %d; want %d, %d", m, h, tc.wantMinute, tc.wantHour)
			}
		})
	}
}
