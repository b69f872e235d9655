package limiter

import (
	"testing"
	"time"
)

// TestRelearned: a percentage report (x-ms-throttle-limit-percentage)
// names one scope but not its window. A window that was learned lower
// before, crept back, and is as full of that old limit as reported, is
// lowered again before a longer window that looks fuller by its believed
// limit (full-191: the app minute hidden at 135, learned at 135 nine hours
// before and crept back to 240, filled again; the report of its 100%
// lowered the app hour, true 800, to the 779 it held, and every user
// idled 11 minutes for the hour to slide). Each case drives soft on a
// fake clock with the app table (240 a minute, 800 an hour) and checks
// the effective limits the two windows are left at.
func TestRelearned(t *testing.T) {
	tun := DefaultTuning()
	as, us := OneNote().App, OneNote().User
	now := at(24 * time.Hour).UnixNano()
	nineHours := now - int64(9*time.Hour)
	view := func(st *scopeState, spec *ScopeSpec) scopeView {
		return scopeView{st: st, spec: spec, pers: pers(spec.Windows), t: &tun}
	}
	// crept is the app minute learned at 135 nine hours ago and crept
	// back to its spec since.
	crept := adapted{Lowered: 135, At: nineHours, Strikes: 1}
	tests := []struct {
		name   string
		minute adapted
		// counts are the app windows' counts before the request, pct
		// the report.
		counts               []int
		pct                  float64
		wantMinute, wantHour int
	}{
		{
			name:   "a minute full of the limit it was learned at before is lowered to it, not the hour",
			minute: crept, counts: []int{134, 778}, pct: 1.0,
			wantMinute: 135, wantHour: 800,
		},
		{
			name:   "a report under 100% lowers the minute to the limit it implies",
			minute: crept, counts: []int{129, 700}, pct: 0.97,
			wantMinute: 134, wantHour: 800,
		},
		{
			name:   "a minute never lowered leaves the report to the busiest window",
			minute: adapted{}, counts: []int{134, 778}, pct: 1.0,
			wantMinute: 240, wantHour: 779,
		},
		{
			name:   "a minute well under its old limit is not what the report measured",
			minute: crept, counts: []int{99, 778}, pct: 1.0,
			wantMinute: 240, wantHour: 779,
		},
		{
			name: "a minute that recently took more than the report implies is not lowered",
			minute: adapted{Lowered: 135, At: nineHours, Strikes: 1,
				Proven: 150, ProvenAt: now - int64(30*time.Second)},
			counts: []int{134, 778}, pct: 1.0,
			wantMinute: 240, wantHour: 779,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := newScopeState(2)
			st.Limits[0] = tc.minute
			app, usr := view(&st, &as), view(new(newScopeState(2)), &us)
			var l Limiter
			l.soft(usr, app, []int{10, 100}, tc.counts, 1, Outcome{Status: 200, ThrottlePercent: tc.pct, Scope: ScopeApp}, now)
			m, h := st.Limits[0].limit(as.Windows[0].Limit, &tun, now), st.Limits[1].limit(as.Windows[1].Limit, &tun, now)
			if m != tc.wantMinute || h != tc.wantHour {
				t.Errorf("minute %d, hour %d; want %d, %d", m, h, tc.wantMinute, tc.wantHour)
			}
		})
	}
}
