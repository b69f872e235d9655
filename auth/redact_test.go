package auth

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoSecretInOutput formats every type of the package, and every error
// the scenarios below produce, with every fmt verb, JSON and slog, and
// checks that no token or key shows up, nor in the logs.
func TestNoSecretInOutput(t *testing.T) {
	e := newEmulator(t)
	logs := &logBuffer{}
	s := e.newStore(t, logs)
	e.login(t, s, "alice")
	ts := s.TokenSource("alice")
	access, err := ts.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tok := stored(t, s, "alice")
	key := testKey(t, 1)
	secrets := []string{tok.AccessToken, tok.RefreshToken, access, notionSecret,
		base64.StdEncoding.EncodeToString(key.b[:]), base64.RawURLEncoding.EncodeToString(key.b[:]),
		hex.EncodeToString(key.b[:]), fmt.Sprint(key.b[:]), fmt.Sprint(key.b)}

	var errs []error
	// Refresh succeeds, then the refresh token is revoked.
	e.clock.Advance(testTokenTTL)
	if _, err := ts.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	latest := stored(t, s, "alice")
	secrets = append(secrets, latest.AccessToken, latest.RefreshToken)
	e.srv.RevokeSessions("alice")
	ts.InvalidateToken(latest.AccessToken)
	errs = append(errs, tokenErr(ts))

	// Wrong key, moved file, not signed in.
	e.login(t, s, "alice")
	errs = append(errs, tokenErr(e.newStoreIn(t, s.files.dir, testKey(t, 50), logs).TokenSource("alice")))
	errs = append(errs, tokenErr(s.TokenSource("nobody")))

	// A hostile or broken identity endpoint that echoes the refresh token.
	for _, h := range []hostile{
		{status: 400, ctype: "application/json", body: `{"error":"invalid_grant","error_description":"AADSTS70000: token %s is bad\r\nTrace ID: x"}`},
		{status: 500, ctype: "text/html", body: `<html>refresh_token=%s</html>`},
		{status: 503, ctype: "application/json", body: `{"error":"temporarily_unavailable","error_description":"try later, %s"}`},
	} {
		hs, rt := h.store(t, logs)
		secrets = append(secrets, rt)
		errs = append(errs, tokenErr(hs.TokenSource("carol")))
	}
	// The device code in a failing login.
	errs = append(errs, failingLogin(t, logs))
	secrets = append(secrets, "DAQABAAEAAAdevicecodesecret")

	// Key and Notion token loading.
	_, err = LoadKey(env(map[string]string{EnvTokenKey: base64.StdEncoding.EncodeToString(key.b[:20])}), "")
	errs = append(errs, err)
	_, err = NotionToken(env(map[string]string{EnvNotionToken: notionSecret, EnvNotionTokenFile: "/x"}))
	errs = append(errs, err)

	for i, err := range errs {
		if err == nil {
			t.Fatalf("scenario %d produced no error", i)
		}
		t.Logf("error %d: %v", i, err)
	}
	values := []any{s, ts, tok, &tok, key, &key, Secret(notionSecret), DeviceCode{UserCode: "ABC"},
		Config{Key: key, Dir: "d"}, struct{ Tok Secret }{notionSecret}}
	for _, err := range errs {
		values = append(values, err)
		for u := err; u != nil; u = errors.Unwrap(u) {
			values = append(values, u)
		}
		var ie *IdentityError
		if errors.As(err, &ie) {
			values = append(values, ie)
		}
	}

	var out strings.Builder
	text := slog.New(slog.NewTextHandler(&out, nil))
	jsonLog := slog.New(slog.NewJSONHandler(&out, nil))
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			fmt.Fprintf(&out, verb+"\n", v)
		}
		if b, err := json.Marshal(v); err == nil {
			out.Write(b)
		}
		text.Info("value", "v", v)
		jsonLog.Info("value", "v", v)
		if err, ok := v.(error); ok {
			out.WriteString(err.Error())
			text.Error("failed", "error", err)
		}
	}
	everything := out.String() + "\n" + logs.String()
	for _, secret := range secrets {
		for _, form := range []string{secret, hex.EncodeToString([]byte(secret)), strings.ToUpper(hex.EncodeToString([]byte(secret)))} {
			if strings.Contains(everything, form) {
				i := strings.Index(everything, form)
				t.Errorf("secret %.6s... appears in output: ...%s...", secret, everything[max(0, i-80):i])
			}
		}
	}
	if !strings.Contains(logs.String(), `"user":"alice"`) {
		t.Errorf("expected log lines about alice:\n%s", logs)
	}
}

func TestSecretPrintsRedacted(t *testing.T) {
	s := Secret(notionSecret)
	for _, got := range []string{s.String(), s.GoString(), fmt.Sprintf("%v|%+v|%#v|%s|%q|%x|%d", s, s, s, s, s, s, s)} {
		if strings.Contains(got, "ntn_") || !strings.Contains(got, redacted) {
			t.Errorf("Secret printed as %q", got)
		}
	}
	b, _ := json.Marshal(map[string]Secret{"token": s})
	if string(b) != `{"token":"[redacted]"}` {
		t.Errorf("JSON %s", b)
	}
	if s.LogValue().String() != redacted || s.Reveal() != notionSecret {
		t.Error("LogValue or Reveal wrong")
	}
}

// hostile is an identity endpoint answering every refresh with an error
// whose body quotes the refresh token.
type hostile struct {
	status int
	ctype  string
	body   string
}

var hostileSeq atomic.Int64

func (h hostile) store(t *testing.T, logs *logBuffer) (*Store, string) {
	t.Helper()
	rt := fmt.Sprintf("hostile-refresh-token-%d-0123456789", hostileSeq.Add(1))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", h.ctype)
		w.WriteHeader(h.status)
		fmt.Fprintf(w, h.body, r.FormValue("refresh_token"))
	}))
	t.Cleanup(srv.Close)
	s, err := Open(Config{
		Dir: filepath.Join(t.TempDir(), "tokens"), Key: testKey(t, 1),
		Microsoft:  Microsoft{ClientID: "x", Authority: srv.URL},
		HTTPClient: srv.Client(),
		Logger:     slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.files.write("carol", storedToken{AccessToken: "hostile-access-token-0123456789", RefreshToken: rt, Expiry: time.Now().Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	return s, rt
}

// failingLogin runs a login that fails after the device code was issued.
func failingLogin(t *testing.T, logs *logBuffer) error {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/devicecode") {
			w.Write([]byte(`{"device_code":"DAQABAAEAAAdevicecodesecret","user_code":"ABCD1234","verification_uri":"https://microsoft.com/devicelogin","expires_in":900,"interval":1}`))
			return
		}
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":"invalid_request","error_description":"AADSTS900144: device_code %s unknown"}`, r.FormValue("device_code"))
	}))
	defer srv.Close()
	s, err := Open(Config{
		Dir: filepath.Join(t.TempDir(), "tokens"), Key: testKey(t, 1),
		Microsoft:  Microsoft{ClientID: "x", Authority: srv.URL},
		HTTPClient: srv.Client(),
		Logger:     slog.New(slog.NewJSONHandler(logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.Login(context.Background(), "dave", func(DeviceCode) {})
}

func tokenErr(ts *TokenSource) error {
	_, err := ts.Token(context.Background())
	return err
}
