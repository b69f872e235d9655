package auth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoginThenGraphCall(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	var shown DeviceCode
	err := s.Login(context.Background(), "alice", func(dc DeviceCode) {
		shown = dc
		if err := e.srv.ApproveDeviceCode(dc.UserCode, "alice"); err != nil {
			t.Errorf("approve: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
	if shown.UserCode == "" || shown.VerificationURI != e.ts.URL+"/devicelogin" ||
		!strings.Contains(shown.Message, shown.UserCode) || shown.ExpiresAt.IsZero() {
		t.Errorf("prompt got %+v", shown)
	}
	tok := stored(t, s, "alice")
	if tok.RefreshToken == "" || !tok.Expiry.Equal(e.clock.Now().Add(testTokenTTL)) {
		t.Errorf("stored token: refresh token set %v, expiry %v", tok.RefreshToken != "", tok.Expiry)
	}
	access, err := s.TokenSource("alice").Token(context.Background())
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if got := e.graphStatus(t, access); got != http.StatusOK {
		t.Errorf("GET /me/onenote/notebooks: %d, want 200", got)
	}
	if ok, err := s.SignedIn("alice"); !ok || err != nil {
		t.Errorf("SignedIn(alice) = %v, %v", ok, err)
	}
	if ok, err := s.SignedIn("bob"); ok || err != nil {
		t.Errorf("SignedIn(bob) = %v, %v", ok, err)
	}
}

func TestLoginDeclined(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	err := s.Login(context.Background(), "alice", func(dc DeviceCode) {
		if err := e.srv.DeclineDeviceCode(dc.UserCode); err != nil {
			t.Errorf("decline: %v", err)
		}
	})
	if !errors.Is(err, ErrLoginDeclined) {
		t.Fatalf("Login = %v, want ErrLoginDeclined", err)
	}
	if !strings.Contains(err.Error(), `run "starter login --user alice" again`) {
		t.Errorf("error does not say what to do: %v", err)
	}
	if ok, _ := s.SignedIn("alice"); ok {
		t.Error("a declined login stored a token")
	}
}

func TestLoginCodeExpired(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	err := s.Login(context.Background(), "alice", func(DeviceCode) {
		e.clock.Advance(16 * time.Minute) // nobody entered the code
	})
	if !errors.Is(err, ErrLoginExpired) {
		t.Fatalf("Login = %v, want ErrLoginExpired", err)
	}
	if !strings.Contains(err.Error(), "expired") || !strings.Contains(err.Error(), "starter login --user alice") {
		t.Errorf("error does not say what to do: %v", err)
	}
}

func TestLoginPublicClientFlowsDisabled(t *testing.T) {
	t.Parallel()
	id := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/devicecode") {
			w.Write([]byte(`{"device_code":"DAQABAAEAAAdevicecodesecret","user_code":"ABCD1234","verification_uri":"https://microsoft.com/devicelogin","expires_in":900,"interval":5}`))
			return
		}
		w.WriteHeader(http.StatusUnauthorized)
		w.Write([]byte(`{"error":"invalid_client","error_description":"AADSTS7000218: The request body must contain the following parameter: 'client_assertion' or 'client_secret'.\r\nTrace ID: 1\r\nCorrelation ID: 2","error_codes":[7000218]}`))
	}))
	defer id.Close()
	s, err := Open(Config{
		Dir: filepath.Join(t.TempDir(), "tokens"), Key: testKey(t, 1),
		Microsoft:  Microsoft{ClientID: "app-id", Tenant: "organizations", Authority: id.URL},
		HTTPClient: id.Client(), PollInterval: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Login(context.Background(), "alice", func(DeviceCode) {})
	if !errors.Is(err, ErrPublicClientDisabled) {
		t.Fatalf("Login = %v, want ErrPublicClientDisabled", err)
	}
	for _, want := range []string{"AADSTS7000218", `"Allow public client flows" to Yes`, "starter login --user alice"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "devicecodesecret") || strings.Contains(err.Error(), "Trace ID") {
		t.Errorf("error leaks the device code or raw description: %v", err)
	}
}

func TestLoginCanceled(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	err := s.Login(ctx, "alice", func(DeviceCode) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Login = %v, want context.Canceled", err)
	}
}

func TestLoginRejectsBadUser(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	for _, user := range []string{"", "../bob", "a/b", ".hidden", "a..b", strings.Repeat("x", 129)} {
		err := s.Login(context.Background(), user, func(DeviceCode) { t.Error("prompted for a bad user") })
		if !errors.Is(err, ErrInvalidUser) {
			t.Errorf("Login(%q) = %v, want ErrInvalidUser", user, err)
		}
	}
	for _, user := range []string{"alice", "alice@contoso.com", "0b1c2d3e-aaaa-bbbb-cccc-000000000000", "a_b+c"} {
		if err := ValidateUser(user); err != nil {
			t.Errorf("ValidateUser(%q) = %v", user, err)
		}
	}
}

func TestOpenValidatesConfig(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tokens")
	cases := []Config{
		{Key: testKey(t, 1), Microsoft: Microsoft{ClientID: "x"}},                              // no dir
		{Dir: dir, Microsoft: Microsoft{ClientID: "x"}},                                        // no key
		{Dir: dir, Key: testKey(t, 1)},                                                         // no client ID
		{Dir: dir, Key: testKey(t, 1), Microsoft: Microsoft{ClientID: "x", Tenant: "a/b"}},     // bad tenant
		{Dir: dir, Key: testKey(t, 1), Microsoft: Microsoft{ClientID: "x", Authority: "ftp:"}}, // bad authority
	}
	for i, cfg := range cases {
		if _, err := Open(cfg); err == nil {
			t.Errorf("case %d: Open accepted %v", i, cfg.Microsoft)
		}
	}
	ms, err := Microsoft{ClientID: "x", Scopes: []string{ScopeNotesReadAll}}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	c := ms.oauth2Config()
	if c.Endpoint.DeviceAuthURL != DefaultAuthority+"/common/oauth2/v2.0/devicecode" ||
		c.Endpoint.TokenURL != DefaultAuthority+"/common/oauth2/v2.0/token" ||
		strings.Join(c.Scopes, " ") != "offline_access Notes.Read.All" {
		t.Errorf("oauth2 config %+v", c)
	}
}
