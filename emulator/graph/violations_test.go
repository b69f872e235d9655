package graph

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// evenLog returns n requests of user, step apart, from start.
func evenLog(user string, start time.Time, n int, step time.Duration) []LogEntry {
	out := make([]LogEntry, n)
	for i := range out {
		out[i] = LogEntry{User: user, Time: start.Add(time.Duration(i) * step), Status: 200}
	}
	return out
}

func TestCheckViolations(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	lim := DefaultLimits()
	for _, tc := range []struct {
		name string
		log  []LogEntry
		want []Violation
	}{
		{"empty", nil, nil},
		// 121 requests half a second apart span exactly 60s: any window
		// shorter than a minute holds at most 120.
		{"120 per minute at the edge", evenLog("alice", t0, 121, 500*time.Millisecond), nil},
		{"121 in under a minute", evenLog("alice", t0, 121, 490*time.Millisecond), []Violation{
			{Scope: "user", Key: "alice", Window: time.Minute, Limit: 120, Count: 121, Start: t0, End: t0.Add(120 * 490 * time.Millisecond)},
		}},
		{"401 in an hour, 100 a minute", append(append(append(append(
			evenLog("alice", t0, 100, 0),
			evenLog("alice", t0.Add(time.Minute), 100, 0)...),
			evenLog("alice", t0.Add(2*time.Minute), 100, 0)...),
			evenLog("alice", t0.Add(3*time.Minute), 100, 0)...),
			evenLog("alice", t0.Add(59*time.Minute), 1, 0)...), []Violation{
			{Scope: "user", Key: "alice", Window: time.Hour, Limit: 400, Count: 401, Start: t0, End: t0.Add(59 * time.Minute)},
		}},
		{"app over, users under", append(append(
			evenLog("alice", t0, 81, 0),
			evenLog("bob", t0, 80, 0)...),
			evenLog("carol", t0, 80, 0)...), []Violation{
			{Scope: "app", Key: "app", Window: time.Minute, Limit: 240, Count: 241, Start: t0, End: t0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := CheckViolations(tc.log, "app", lim)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("violation %d: got %+v, want %+v", i, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestServerViolationsReferee(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	f.burst(t, "alice", 120, 100*time.Millisecond, http.StatusOK)
	if v := f.srv.Violations(); len(v) != 0 {
		t.Fatalf("violations %+v after 120 in a minute, want none", v)
	}
	// The 121st reaches the server (and is throttled): a violation.
	f.burst(t, "alice", 1, 0, http.StatusTooManyRequests)
	v := f.srv.Violations()
	if len(v) != 1 || v[0].Scope != "user" || v[0].Key != "alice" || v[0].Count != 121 || v[0].Window != time.Minute {
		t.Errorf("violations %+v, want alice over the minute with 121", v)
	}
	f.srv.ResetStats()
	if v := f.srv.Violations(); len(v) != 0 {
		t.Errorf("violations after ResetStats: %+v", v)
	}
}

func TestEmulatorEndpoints(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2})
	page := f.srv.PageIDs("alice")[0]
	f.burst(t, "alice", 3, 0, http.StatusOK)
	st := decode[Stats](t, f.get(t, "", "/_emulator/stats").Body.Bytes())
	if st.Requests != 3 || st.Users["alice"].ByStatus[200] != 3 {
		t.Errorf("stats endpoint: %+v", st)
	}
	if rec := f.get(t, "", "/_emulator/violations"); !strings.Contains(rec.Body.String(), `"violations": null`) {
		t.Errorf("violations endpoint: %s", rec.Body)
	}
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/_emulator/pages/" + page + "/delete", "", http.StatusNoContent},
		{"/_emulator/pages/nope/touch", "", http.StatusBadRequest},
		{"/_emulator/faults", `{"LibraryLimitUsers":["alice"]}`, http.StatusNoContent},
	} {
		if rec := f.do(t, "", http.MethodPost, tc.path, tc.body); rec.Code != tc.want {
			t.Errorf("POST %s: %d, want %d", tc.path, rec.Code, tc.want)
		}
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+f.srv.PageIDs("alice")[0]); rec.Code != http.StatusForbidden {
		t.Errorf("after POST faults: %d, want 403", rec.Code)
	}
	if len(f.srv.PageIDs("alice")) != 1 {
		t.Errorf("page not deleted over HTTP")
	}
}
