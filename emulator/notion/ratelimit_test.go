package notion

import (
	"net/http"
	"strconv"
	"testing"
	"time"
)

func TestRateLimitBurstThenRetryAfter(t *testing.T) {
	e := newEnv(t, Config{Rate: 3, Burst: 5})
	for i := range 5 {
		if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("request %d of the burst: %d", i, r.status)
		}
	}
	r := e.do("GET", "/v1/users/me", nil)
	if r.status != http.StatusTooManyRequests || r.code() != "rate_limited" {
		t.Fatalf("beyond the burst: %d %s", r.status, r.raw)
	}
	if ad, _ := r.body["additional_data"].(map[string]any); ad["rate_limit_reason"] != "public_api_request_rate_limit" {
		t.Errorf("additional_data = %v", r.body["additional_data"])
	}
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra != 1 {
		t.Fatalf("Retry-After = %q, want the integer 1", r.header.Get("Retry-After"))
	}
	// Too early: still limited, and recorded as early.
	e.clock.Advance(500 * time.Millisecond)
	if r := e.do("GET", "/v1/users/me", nil); r.status != 429 {
		t.Errorf("early retry: %d", r.status)
	}
	// Waiting out Retry-After is enough.
	e.clock.Advance(time.Duration(ra) * time.Second)
	if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
		t.Errorf("after Retry-After: %d %s", r.status, r.raw)
	}
	log := e.srv.Requests(e.token)
	if len(log) != 8 {
		t.Fatalf("log has %d requests, want 8", len(log))
	}
	wantEarly := []bool{false, false, false, false, false, false, true, false}
	wantStatus := []int{200, 200, 200, 200, 200, 429, 429, 200}
	for i, rec := range log {
		if rec.Early != wantEarly[i] || rec.Status != wantStatus[i] {
			t.Errorf("request %d: early %v status %d, want %v %d", i, rec.Early, rec.Status, wantEarly[i], wantStatus[i])
		}
	}
	st := e.srv.Stats()
	ts := st.Tokens[e.token]
	if ts.Requests != 8 || ts.RateLimited != 2 || ts.Early != 1 || st.RateLimited != 2 || st.Early != 1 {
		t.Errorf("stats = %+v, token %+v", st, ts)
	}
}

func TestRateLimitSustainedAverage(t *testing.T) {
	e := newEnv(t, Config{Rate: 3, Burst: 3})
	// A client pacing at exactly 3/s after the burst is never limited.
	for i := range 30 {
		if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("request %d: %d", i, r.status)
		}
		e.clock.Advance(time.Second / 3)
	}
	// Tokens are limited separately.
	other := e.srv.IssueToken()
	for range 3 {
		e.do("GET", "/v1/users/me", nil)
	}
	r := e.request("GET", "/v1/users/me", nil, map[string]string{"Authorization": "Bearer " + other})
	if r.status != 200 {
		t.Errorf("second token throttled by the first: %d", r.status)
	}
}

func TestRateLimitRetryAfterGrowsWithDeficit(t *testing.T) {
	e := newEnv(t, Config{Rate: 0.5, Burst: 1})
	e.do("GET", "/v1/users/me", nil)
	r := e.do("GET", "/v1/users/me", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "2" {
		t.Errorf("at 0.5/s: %d Retry-After %q, want 429 and 2", r.status, r.header.Get("Retry-After"))
	}
}

func TestWorkspaceRateIsSharedByTokens(t *testing.T) {
	e := newEnv(t, Config{Rate: 10, Burst: 10, WorkspaceRate: 1, WorkspaceBurst: 2})
	other := e.srv.IssueToken()
	e.do("GET", "/v1/users/me", nil)
	e.request("GET", "/v1/users/me", nil, map[string]string{"Authorization": "Bearer " + other})
	r := e.do("GET", "/v1/users/me", nil)
	if r.status != 429 || r.header.Get("Retry-After") != "1" {
		t.Fatalf("third request in the workspace: %d %q", r.status, r.header.Get("Retry-After"))
	}
	if ad, _ := r.body["additional_data"].(map[string]any); ad["rate_limit_reason"] != "public_api_space_request_rate_limit" {
		t.Errorf("reason = %v", r.body["additional_data"])
	}
	e.clock.Advance(time.Second)
	if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
		t.Errorf("after the wait: %d", r.status)
	}
}
