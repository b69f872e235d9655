package graph

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestGraphAuthErrors(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	f.tokens["noscope"] = f.srv.IssueToken("alice", []string{"User.Read"}, time.Hour)
	f.tokens["fullscope"] = f.srv.IssueToken("alice", []string{"https://graph.microsoft.com/Notes.Read.All"}, time.Hour)
	f.tokens["short"] = f.srv.IssueToken("alice", []string{"Notes.Read"}, time.Minute)
	f.tokens["bogus"] = "not-a-token"
	f.clock.Advance(time.Minute)
	for _, tc := range []struct {
		user   string
		status int
		code   string
	}{
		{"", http.StatusUnauthorized, "InvalidAuthenticationToken"},
		{"bogus", http.StatusUnauthorized, "InvalidAuthenticationToken"},
		{"short", http.StatusUnauthorized, "InvalidAuthenticationToken"},
		{"noscope", http.StatusForbidden, "40004"},
		{"fullscope", http.StatusOK, ""},
	} {
		rec := f.get(t, tc.user, notebooksPath)
		if rec.Code != tc.status {
			t.Errorf("token %q: status %d, want %d: %s", tc.user, rec.Code, tc.status, rec.Body)
			continue
		}
		if tc.code != "" {
			if got := graphErrorCode(t, rec.Body.Bytes()); got != tc.code {
				t.Errorf("token %q: code %q, want %q", tc.user, got, tc.code)
			}
		}
	}
	st := f.srv.Stats()
	if st.Unauthorized != 3 || st.Users["alice"].Requests != 2 {
		t.Errorf("unauthorized %d, alice requests %d; want 3 and 2", st.Unauthorized, st.Users["alice"].Requests)
	}
	f.srv.ExpireTokens("alice")
	if rec := f.get(t, "alice", notebooksPath); rec.Code != http.StatusUnauthorized {
		t.Errorf("after ExpireTokens: %d, want 401", rec.Code)
	}
}

// identityClient posts forms to the emulator's identity endpoints.
type identityClient struct {
	t   *testing.T
	srv http.Handler
}

func (c identityClient) post(path string, form url.Values) (int, map[string]any) {
	c.t.Helper()
	req := httptest.NewRequest(http.MethodPost, "http://login.test"+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	c.srv.ServeHTTP(rec, req)
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		c.t.Fatalf("POST %s: %v: %s", path, err, rec.Body)
	}
	return rec.Code, body
}

func TestDeviceCodeFlowAndRefresh(t *testing.T) {
	clock := newFakeClock()
	srv := NewServer(Config{Now: clock.Now, TokenTTL: 10 * time.Minute})
	c := identityClient{t: t, srv: srv}
	_, dc := c.post("/common/oauth2/v2.0/devicecode", url.Values{"client_id": {"app"}, "scope": {"offline_access Notes.Read"}})
	for _, k := range []string{"device_code", "user_code", "verification_uri", "expires_in", "interval", "message"} {
		if dc[k] == nil {
			t.Errorf("devicecode response lacks %s: %v", k, dc)
		}
	}
	poll := url.Values{"grant_type": {deviceCodeGrant}, "client_id": {"app"}, "device_code": {dc["device_code"].(string)}}
	if st, body := c.post("/common/oauth2/v2.0/token", poll); st != 400 || body["error"] != "authorization_pending" {
		t.Fatalf("before approval: %d %v", st, body)
	}
	// Approve through the HTML page, as a person would.
	form := url.Values{"user_code": {dc["user_code"].(string)}, "user": {"alice"}}
	req := httptest.NewRequest(http.MethodPost, "http://login.test/devicelogin", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Signed in as alice") {
		t.Fatalf("device login page: %d %s", rec.Code, rec.Body)
	}
	st, tok := c.post("/common/oauth2/v2.0/token", poll)
	if st != 200 || tok["access_token"] == nil || tok["refresh_token"] == nil || tok["token_type"] != "Bearer" {
		t.Fatalf("after approval: %d %v", st, tok)
	}
	if st, body := c.post("/common/oauth2/v2.0/token", poll); st != 400 || body["error"] != "invalid_grant" {
		t.Errorf("second redemption: %d %v", st, body)
	}
	f := &fixture{srv: srv, clock: clock, tokens: map[string]string{"alice": tok["access_token"].(string)}}
	if rec := f.get(t, "alice", notebooksPath); rec.Code != 200 {
		t.Errorf("access token from device flow: %d %s", rec.Code, rec.Body)
	}
	clock.Advance(10 * time.Minute)
	if rec := f.get(t, "alice", notebooksPath); rec.Code != 401 {
		t.Errorf("access token after TTL: %d, want 401", rec.Code)
	}
	// Refresh returns a new refresh token (both stay valid: see
	// TestRefreshTokenRotation for the modes).
	refresh := url.Values{"grant_type": {"refresh_token"}, "client_id": {"app"}, "refresh_token": {tok["refresh_token"].(string)}}
	st, tok2 := c.post("/common/oauth2/v2.0/token", refresh)
	if st != 200 || tok2["refresh_token"] == tok["refresh_token"] || tok2["access_token"] == nil {
		t.Fatalf("refresh: %d %v", st, tok2)
	}
	f.tokens["alice"] = tok2["access_token"].(string)
	if rec := f.get(t, "alice", notebooksPath); rec.Code != 200 {
		t.Errorf("refreshed access token: %d", rec.Code)
	}
}

func TestDeviceCodeErrors(t *testing.T) {
	clock := newFakeClock()
	srv := NewServer(Config{Now: clock.Now})
	c := identityClient{t: t, srv: srv}
	start := func(scope string) map[string]any {
		_, dc := c.post("/organizations/oauth2/v2.0/devicecode", url.Values{"client_id": {"app"}, "scope": {scope}})
		return dc
	}
	poll := func(dc map[string]any) (int, map[string]any) {
		return c.post("/organizations/oauth2/v2.0/token", url.Values{"grant_type": {deviceCodeGrant}, "device_code": {dc["device_code"].(string)}})
	}
	declined := start("Notes.Read")
	if err := srv.DeclineDeviceCode(declined["user_code"].(string)); err != nil {
		t.Fatal(err)
	}
	if _, body := poll(declined); body["error"] != "authorization_declined" {
		t.Errorf("declined: %v", body)
	}
	noOffline := start("Notes.Read")
	if err := srv.ApproveDeviceCode(noOffline["user_code"].(string), "bob"); err != nil {
		t.Fatal(err)
	}
	if st, body := poll(noOffline); st != 200 || body["refresh_token"] != nil {
		t.Errorf("without offline_access: %d %v, want no refresh_token", st, body)
	}
	expired := start("Notes.Read")
	clock.Advance(16 * time.Minute)
	if _, body := poll(expired); body["error"] != "expired_token" {
		t.Errorf("expired: %v", body)
	}
	if err := srv.ApproveDeviceCode(expired["user_code"].(string), "bob"); err == nil {
		t.Errorf("approving an expired code: no error")
	}
	if _, body := c.post("/common/oauth2/v2.0/token", url.Values{"grant_type": {deviceCodeGrant}, "device_code": {"nope"}}); body["error"] != "bad_verification_code" {
		t.Errorf("unknown code: %v", body)
	}
	if _, body := c.post("/common/oauth2/v2.0/token", url.Values{"grant_type": {"password"}}); body["error"] != "unsupported_grant_type" || body["error_description"] == nil {
		t.Errorf("unsupported grant: %v", body)
	}
}
