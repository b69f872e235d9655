package graph

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/oauth2"
)

// TestDeviceFlowWithXOAuth2 drives the identity endpoints with the client
// library the auth package uses.
func TestDeviceFlowWithXOAuth2(t *testing.T) {
	srv := NewServer(Config{TokenTTL: time.Hour})
	srv.AddNotebooks("alice", Generate(GenSpec{Owner: "alice", Notebooks: 2})...)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cfg := &oauth2.Config{
		ClientID: "notebridge",
		Scopes:   []string{"offline_access", "Notes.Read"},
		Endpoint: oauth2.Endpoint{
			DeviceAuthURL: ts.URL + "/common/oauth2/v2.0/devicecode",
			TokenURL:      ts.URL + "/common/oauth2/v2.0/token",
			AuthStyle:     oauth2.AuthStyleInParams,
		},
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, ts.Client())
	da, err := cfg.DeviceAuth(ctx)
	if err != nil {
		t.Fatalf("DeviceAuth: %v", err)
	}
	if da.VerificationURI != ts.URL+"/devicelogin" || da.Interval != 5 {
		t.Errorf("device auth %+v", da)
	}
	if err := srv.ApproveDeviceCode(da.UserCode, "alice"); err != nil {
		t.Fatal(err)
	}
	da.Interval = 1 // keep the test short
	tok, err := cfg.DeviceAccessToken(ctx, da)
	if err != nil {
		t.Fatalf("DeviceAccessToken: %v", err)
	}
	if tok.RefreshToken == "" || tok.Expiry.IsZero() {
		t.Errorf("token %+v: want a refresh token and an expiry", tok)
	}
	// Force a refresh through the token source.
	tok.Expiry = time.Now().Add(-time.Minute)
	fresh, err := cfg.TokenSource(ctx, tok).Token()
	if err != nil || fresh.AccessToken == tok.AccessToken || fresh.RefreshToken == tok.RefreshToken {
		t.Fatalf("refresh: %v (%+v)", err, fresh)
	}
	resp, err := oauth2.NewClient(ctx, oauth2.StaticTokenSource(fresh)).Get(ts.URL + "/v1.0/me/onenote/notebooks")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("Graph call with the refreshed token: %d", resp.StatusCode)
	}
}
