package graph

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// signIn runs the device-code flow for alice and returns the token answer.
func signIn(t *testing.T, c identityClient, srv *Server) map[string]any {
	t.Helper()
	_, dc := c.post("/common/oauth2/v2.0/devicecode", url.Values{"client_id": {"app"}, "scope": {"offline_access Notes.Read"}})
	if err := srv.ApproveDeviceCode(dc["user_code"].(string), "alice"); err != nil {
		t.Fatal(err)
	}
	st, tok := c.post("/common/oauth2/v2.0/token", url.Values{"grant_type": {deviceCodeGrant}, "client_id": {"app"},
		"device_code": {dc["device_code"].(string)}})
	if st != 200 || tok["refresh_token"] == nil {
		t.Fatalf("sign-in: %d %v", st, tok)
	}
	return tok
}

// redeem posts the refresh-token grant and returns the status, the answer
// and its AADSTS number (0 on success).
func redeem(c identityClient, refreshToken string) (int, map[string]any, int) {
	st, body := c.post("/common/oauth2/v2.0/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {"app"},
		"refresh_token": {refreshToken}})
	code := 0
	if codes, ok := body["error_codes"].([]any); ok && len(codes) == 1 {
		n, _ := codes[0].(float64)
		code = int(n)
	}
	return st, body, code
}

// TestRefreshTokenRotation checks both rotation modes: by default a
// redeemed refresh token stays valid until its own lifetime ends, as on
// the Microsoft identity platform (graph-reality.md fact 31), and with
// StrictRefreshRotation it is revoked when redeemed. In both, the new
// refresh token works, RevokeSessions ends every refresh token, and one
// that lapsed unused answers AADSTS700082 "inactive" (fact 32), or
// AADSTS70008 with RefreshExpiredCode70008.
func TestRefreshTokenRotation(t *testing.T) {
	cases := []struct {
		name      string
		strict    bool
		code70008 bool
		// oldStatus and oldCode are the answer to a second redemption of
		// a redeemed refresh token.
		oldStatus, oldCode int
		wantReused         int64
		wantRejected       map[string]int64
		lapseCode          int
	}{
		{name: "Microsoft's behaviour", oldStatus: 200, wantReused: 1,
			wantRejected: map[string]int64{"revoked": 2, "inactive": 1}, lapseCode: 700082},
		{name: "StrictRefreshRotation", strict: true, oldStatus: 400, oldCode: 70000,
			wantRejected: map[string]int64{"already redeemed": 4, "inactive": 1}, lapseCode: 700082},
		{name: "RefreshExpiredCode70008", code70008: true, oldStatus: 200, wantReused: 1,
			wantRejected: map[string]int64{"revoked": 2, "expired": 1}, lapseCode: 70008},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			srv := NewServer(Config{Now: clock.Now, TokenTTL: 45 * time.Second, RefreshTokenTTL: 24 * time.Hour,
				StrictRefreshRotation: tc.strict, RefreshExpiredCode70008: tc.code70008})
			c := identityClient{t: t, srv: srv}
			first := signIn(t, c, srv)
			if first["expires_in"] != float64(45) {
				t.Errorf("expires_in %v, want 45", first["expires_in"])
			}
			old := first["refresh_token"].(string)

			st, second, _ := redeem(c, old)
			if st != 200 || second["refresh_token"] == old {
				t.Fatalf("first redemption: %d %v", st, second)
			}
			renewed := second["refresh_token"].(string)
			st, body, code := redeem(c, old)
			if st != tc.oldStatus || code != tc.oldCode {
				t.Fatalf("second redemption of the old refresh token: %d %v, want %d (AADSTS %d)", st, body, tc.oldStatus, tc.oldCode)
			}
			if tc.strict && (body["error"] != "invalid_grant" || body["error_description"] == nil) {
				t.Errorf("strict reuse answer %v, want invalid_grant with a description", body)
			}
			if st, body, _ := redeem(c, renewed); st != 200 {
				t.Fatalf("the new refresh token: %d %v", st, body)
			}
			if tc.strict {
				if st, _, _ := redeem(c, old); st != 400 {
					t.Errorf("strict: the old refresh token works again: %d", st)
				}
			}

			// Revoking the sessions ends every live refresh token.
			if n := srv.RevokeSessions("alice"); n == 0 {
				t.Fatal("RevokeSessions revoked nothing")
			}
			for _, rt := range []string{old, renewed} {
				st, body, code := redeem(c, rt)
				want := 50173
				if tc.strict {
					want = 70000 // both were redeemed before the revocation
				}
				if st != 400 || body["error"] != "invalid_grant" || code != want {
					t.Errorf("after RevokeSessions: %d %v, want invalid_grant AADSTS%d", st, body, want)
				}
			}

			// A new sign-in works, and its refresh token ends with its lifetime.
			fresh := signIn(t, c, srv)["refresh_token"].(string)
			if n := srv.RevokeSessions("bob"); n != 0 {
				t.Errorf("RevokeSessions(bob) revoked %d of alice's tokens", n)
			}
			clock.Advance(24 * time.Hour)
			st, body, code = redeem(c, fresh)
			if st != 400 || body["error"] != "invalid_grant" || code != tc.lapseCode {
				t.Errorf("after its lifetime: %d %v, want invalid_grant AADSTS%d", st, body, tc.lapseCode)
			}
			if desc, _ := body["error_description"].(string); tc.lapseCode == 700082 && !strings.Contains(desc, "inactive for 1.00:00:00") {
				t.Errorf("AADSTS700082 description %q does not say how long the token was inactive", desc)
			}
			if st, _, code := redeem(c, "nbr.never-issued"); st != 400 || code != 9002313 {
				t.Errorf("unknown refresh token: %d AADSTS%d, want 400 AADSTS9002313", st, code)
			}

			got := srv.IdentityStats()
			wantRefreshes := int64(2)
			if !tc.strict {
				wantRefreshes = 3
			}
			if got.Refreshes != wantRefreshes || got.Reused != tc.wantReused {
				t.Errorf("stats %+v: want %d refreshes, %d reused", got, wantRefreshes, tc.wantReused)
			}
			for reason, n := range tc.wantRejected {
				if got.Rejected[reason] != n {
					t.Errorf("rejected %q: %d, want %d (%v)", reason, got.Rejected[reason], n, got.Rejected)
				}
			}
		})
	}
}

// TestRefreshedAccessTokenLifetime checks that access tokens from a
// refresh last TokenTTL on the server clock.
func TestRefreshedAccessTokenLifetime(t *testing.T) {
	clock := newFakeClock()
	srv := NewServer(Config{Now: clock.Now, TokenTTL: 45 * time.Second})
	srv.AddNotebooks("alice", Generate(GenSpec{Owner: "alice", Notebooks: 1})...)
	c := identityClient{t: t, srv: srv}
	tok := signIn(t, c, srv)
	clock.Advance(30 * time.Second)
	st, fresh, _ := redeem(c, tok["refresh_token"].(string))
	if st != 200 || fresh["expires_in"] != float64(45) {
		t.Fatalf("refresh: %d %v", st, fresh)
	}
	f := &fixture{srv: srv, clock: clock, tokens: map[string]string{"old": tok["access_token"].(string), "new": fresh["access_token"].(string)}}
	clock.Advance(15 * time.Second) // 45 s after the sign-in, 15 s after the refresh
	if rec := f.get(t, "old", notebooksPath); rec.Code != 401 {
		t.Errorf("the first access token after 45 s: %d, want 401", rec.Code)
	}
	if rec := f.get(t, "new", notebooksPath); rec.Code != 200 {
		t.Errorf("the refreshed access token after 15 s: %d, want 200", rec.Code)
	}
	clock.Advance(30 * time.Second)
	if rec := f.get(t, "new", notebooksPath); rec.Code != 401 {
		t.Errorf("the refreshed access token after 45 s: %d, want 401", rec.Code)
	}
}
