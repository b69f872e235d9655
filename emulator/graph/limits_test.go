package graph

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

const notebooksPath = "/v1.0/me/onenote/notebooks"

// burst sends n GETs for user, advancing the clock by step after each, and
// fails unless every one gets want.
func (f *fixture) burst(t *testing.T, user string, n int, step time.Duration, want int) {
	t.Helper()
	for i := range n {
		if rec := f.get(t, user, notebooksPath); rec.Code != want {
			t.Fatalf("%s request %d: status %d, want %d: %s", user, i+1, rec.Code, want, rec.Body)
		}
		f.clock.Advance(step)
	}
}

// expectThrottled sends one request and checks it is a OneNote 429.
func (f *fixture) expectThrottled(t *testing.T, user, wantCode, wantScope string) {
	t.Helper()
	rec := f.get(t, user, notebooksPath)
	if rec.Code != http.StatusTooManyRequests {
		t.Fatalf("status %d, want 429: %s", rec.Code, rec.Body)
	}
	if got := graphErrorCode(t, rec.Body.Bytes()); got != wantCode {
		t.Errorf("error code %q, want %q", got, wantCode)
	}
	if ra := rec.Header().Get("Retry-After"); ra != "" {
		t.Errorf("Retry-After = %q, want none", ra)
	}
	if got := rec.Header().Get("x-ms-throttle-scope"); got != wantScope {
		t.Errorf("x-ms-throttle-scope = %q, want %q", got, wantScope)
	}
}

func TestUserMinuteLimitIsRolling(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple, ThrottledNotCounted: true}, GenSpec{Notebooks: 1})
	// 120 requests late in a clock minute: t=30s .. 59.75s.
	f.clock.Advance(30 * time.Second)
	f.burst(t, "alice", 120, 250*time.Millisecond, http.StatusOK)
	// t=60s: a fixed-window limiter would start a fresh minute here.
	f.expectThrottled(t, "alice", "20166", "User")
	// Just before the first request is a minute old: still full.
	f.clock.Advance(30*time.Second - time.Nanosecond)
	f.expectThrottled(t, "alice", "20166", "User")
	// t=90s: the request at 30s has left the window; exactly one fits.
	f.clock.Advance(time.Nanosecond)
	f.burst(t, "alice", 1, 0, http.StatusOK)
	f.expectThrottled(t, "alice", "20166", "User")
	// Other users are unaffected by alice's window.
	f.burst(t, "bob", 1, 0, http.StatusOK)
}

func TestThrottledRequestsCountByDefault(t *testing.T) {
	for _, tc := range []struct {
		name       string
		notCounted bool
		wantAfter  int
	}{
		{"counted", false, http.StatusTooManyRequests},
		{"not counted", true, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{ThrottledNotCounted: tc.notCounted}, GenSpec{Notebooks: 1})
			f.burst(t, "alice", 120, 0, http.StatusOK) // all at t=0
			f.clock.Advance(30 * time.Second)
			f.burst(t, "alice", 1, 0, http.StatusTooManyRequests) // at t=30s
			// At t=60s the 120 requests of t=0 leave the window; the
			// throttled one at t=30s stays in it only if it counted.
			f.clock.Advance(30 * time.Second)
			f.burst(t, "alice", 119, 0, http.StatusOK)
			f.burst(t, "alice", 1, 0, tc.wantAfter)
		})
	}
}

func TestUserHourLimit(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple}, GenSpec{Notebooks: 1})
	// 100 requests a minute stays under 120/min; the 401st in the hour fails.
	for range 4 {
		f.burst(t, "alice", 100, 0, http.StatusOK)
		f.clock.Advance(time.Minute)
	}
	f.expectThrottled(t, "alice", "20166", "User") // t=4m, counted
	// At t=60m the first 100 leave the hour: 400-301 = 99 more fit.
	f.clock.Advance(56 * time.Minute)
	f.burst(t, "alice", 99, 0, http.StatusOK)
	f.expectThrottled(t, "alice", "20166", "User")
}

func TestAppMinuteLimitAcrossUsers(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple}, GenSpec{Notebooks: 1})
	// Three users, 80 each: 240 together, each well under 120.
	for _, u := range []string{"alice", "bob", "carol"} {
		f.burst(t, u, 80, 10*time.Millisecond, http.StatusOK)
	}
	f.expectThrottled(t, "carol", "20166", "Application")
	f.expectThrottled(t, "alice", "20166", "Application")
	st := f.srv.Stats()
	if got := st.Users["carol"].Throttled; got != 1 {
		t.Errorf("carol throttled %d times, want 1", got)
	}
}

func TestAppHourLimitAcrossUsers(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple}, GenSpec{Notebooks: 1})
	// 3 users x 3 rounds x 89 = 801 > 800, but only 267 a minute.
	for round := range 3 {
		for _, u := range []string{"alice", "bob", "carol"} {
			n := 89
			if round == 2 && u == "carol" {
				n = 88 // 800 in total
			}
			f.burst(t, u, n, 0, http.StatusOK)
			f.clock.Advance(30 * time.Second)
		}
	}
	f.expectThrottled(t, "carol", "20166", "Application")
}

// holdRequests starts n requests of user that stay in flight (slow fault)
// until cancel is called, and waits until the server sees them.
func holdRequests(t *testing.T, f *fixture, users []string) (cancel func()) {
	t.Helper()
	f.srv.SetFaults(Faults{SlowRate: 1, SlowDelay: time.Minute})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://graph.test"+notebooksPath, nil)
			req.Header.Set("Authorization", "Bearer "+f.tokens[u])
			f.srv.ServeHTTP(httptest.NewRecorder(), req)
		}()
	}
	deadline := time.Now().Add(5 * time.Second)
	for f.srv.Stats().InFlight < len(users) {
		if time.Now().After(deadline) {
			t.Fatalf("in flight %d, want %d", f.srv.Stats().InFlight, len(users))
		}
		time.Sleep(time.Millisecond)
	}
	f.srv.ClearFaults()
	return func() { stop(); wg.Wait() }
}

func TestUserConcurrencyLimit(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple}, GenSpec{Notebooks: 1})
	release := holdRequests(t, f, []string{"alice", "alice", "alice", "alice", "alice"})
	f.expectThrottled(t, "alice", "10003", "User")
	f.burst(t, "bob", 1, 0, http.StatusOK)
	release()
	f.burst(t, "alice", 1, 0, http.StatusOK)
	if got := f.srv.Stats().Users["alice"].MaxConcurrent; got != 5 {
		t.Errorf("alice max concurrency %d, want 5", got)
	}
	v := f.srv.Violations()
	if len(v) != 1 || v[0].Window != 0 || v[0].Count != 6 || v[0].Limit != 5 || v[0].Key != "alice" {
		t.Errorf("violations %+v, want alice's 6th concurrent request", v)
	}
}

func TestHiddenConcurrencyLimitIsNotAViolation(t *testing.T) {
	f := newFixture(t, Config{HiddenLimitFactor: 0.7}, GenSpec{Notebooks: 1})
	release := holdRequests(t, f, []string{"alice", "alice", "alice"})
	defer release()
	f.expectThrottled(t, "alice", "10003", "")
	if v := f.srv.Violations(); len(v) != 0 {
		t.Errorf("violations %+v: 4 at once is within the advertised 5", v)
	}
}

func TestAppConcurrencyLimit(t *testing.T) {
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderSimple}, GenSpec{Notebooks: 1})
	var users []string
	for i := range 20 {
		u := fmt.Sprintf("user%d", i/5) // 4 users x 5
		f.tokens[u] = f.srv.IssueToken(u, []string{"Notes.Read"}, time.Hour)
		users = append(users, u)
	}
	release := holdRequests(t, f, users)
	defer release()
	f.expectThrottled(t, "alice", "10003", "Application")
	if st := f.srv.Stats(); st.MaxConcurrent != 20 {
		t.Errorf("app max concurrency %d, want 20", st.MaxConcurrent)
	}
}

func TestBatchSubRequestsCountIndividually(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	batch := batchOf(20, func(i int) string { return "/me/onenote/notebooks" })
	for i := range 6 { // 120 sub-requests
		resps := f.batch(t, "alice", batch)
		for _, r := range resps {
			if r.Status != http.StatusOK {
				t.Fatalf("batch %d item %s: status %d", i, r.ID, r.Status)
			}
		}
	}
	for _, r := range f.batch(t, "alice", batch) {
		if r.Status != http.StatusTooManyRequests {
			t.Fatalf("item %s: status %d, want 429", r.ID, r.Status)
		}
	}
	st := f.srv.Stats()
	if st.Requests != 140 || st.Batches != 7 {
		t.Errorf("requests %d batches %d, want 140 and 7", st.Requests, st.Batches)
	}
}

func TestPercentageHeader(t *testing.T) {
	for _, tc := range []struct {
		name string
		on   bool
		n    int
		want string
	}{
		{"off at 0.80", false, 96, ""},
		{"on below 0.80", true, 95, ""},
		{"on at 0.80", true, 96, "0.80"},
		{"on at 1.00", true, 120, "1.00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{PercentageHeader: tc.on}, GenSpec{Notebooks: 1})
			f.burst(t, "alice", tc.n-1, 0, http.StatusOK)
			rec := f.get(t, "alice", notebooksPath)
			if got := rec.Header().Get("x-ms-throttle-limit-percentage"); got != tc.want {
				t.Errorf("x-ms-throttle-limit-percentage = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScopeHeaderModes(t *testing.T) {
	for _, tc := range []struct {
		mode ScopeHeaderMode
		want string
	}{
		{ScopeHeaderNone, ""},
		{ScopeHeaderSimple, "User"},
		{ScopeHeaderFull, "User/Read/app-1/" + UserGUID("alice")},
	} {
		f := newFixture(t, Config{ScopeHeader: tc.mode, AppID: "app-1"}, GenSpec{Notebooks: 1})
		f.burst(t, "alice", 120, 0, http.StatusOK)
		f.expectThrottled(t, "alice", "20166", tc.want)
	}
	f := newFixture(t, Config{ScopeHeader: ScopeHeaderFull, AppID: "app-1", TenantID: "tenant-1"}, GenSpec{Notebooks: 1})
	for _, u := range []string{"alice", "bob"} {
		f.burst(t, u, 120, 0, http.StatusOK)
	}
	f.expectThrottled(t, "carol", "20166", "Application/Read/app-1/tenant-1")
}

func TestHiddenLimits(t *testing.T) {
	f := newFixture(t, Config{HiddenLimitFactor: 0.7}, GenSpec{Notebooks: 1})
	f.burst(t, "alice", 84, 0, http.StatusOK) // 70% of 120
	f.expectThrottled(t, "alice", "20166", "")
	if v := f.srv.Violations(); len(v) != 0 {
		t.Errorf("violations %+v, want none: the client stayed under the advertised limit", v)
	}
	if got := f.srv.EnforcedLimits().User.Concurrency; got != 3 {
		t.Errorf("enforced user concurrency %d, want 3", got)
	}
	if got := f.srv.AdvertisedLimits().User.Windows[0].N; got != 120 {
		t.Errorf("advertised per-minute %d, want 120", got)
	}
}

func TestTimeScale(t *testing.T) {
	f := newFixture(t, Config{TimeScale: 60, ThrottledNotCounted: true}, GenSpec{Notebooks: 1})
	f.burst(t, "alice", 120, 0, http.StatusOK)
	f.expectThrottled(t, "alice", "20166", "")
	f.clock.Advance(time.Second) // a scaled minute
	f.burst(t, "alice", 120, 0, http.StatusOK)
	f.clock.Advance(time.Second)
	f.burst(t, "alice", 120, 0, http.StatusOK)
	f.clock.Advance(time.Second)
	f.burst(t, "alice", 40, 0, http.StatusOK)
	// 400 in the scaled hour (60s).
	f.clock.Advance(time.Second)
	f.expectThrottled(t, "alice", "20166", "")
	if !strings.Contains(fmt.Sprint(f.srv.AdvertisedLimits().User.Windows), "1m0s") {
		t.Errorf("scaled windows %v, want the hour as 1m0s", f.srv.AdvertisedLimits().User.Windows)
	}
}
