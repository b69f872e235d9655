package auth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/onenote"
)

// The token source must satisfy the Graph client's interfaces.
var (
	_ onenote.TokenSource      = (*TokenSource)(nil)
	_ onenote.TokenInvalidator = (*TokenSource)(nil)
)

func TestTokenNotSignedIn(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	_, err := s.TokenSource("bob").Token(context.Background())
	if !errors.Is(err, ErrNotSignedIn) {
		t.Fatalf("Token = %v, want ErrNotSignedIn", err)
	}
	const want = `no Microsoft sign-in stored for user "bob": run "starter login --user bob"`
	if err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
}

func TestTokenRefreshesBeforeExpiry(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	ts := s.TokenSource("alice")
	ctx := context.Background()
	first, err := ts.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	before := stored(t, s, "alice")

	// More than the margin left: the cached token.
	e.clock.Advance(testTokenTTL - DefaultRefreshMargin - time.Minute)
	if got, err := ts.Token(ctx); err != nil || got != first {
		t.Fatalf("Token with 6 minutes left = %v (same %v), want the cached token", err, got == first)
	}
	if n := e.refreshes.Load(); n != 0 {
		t.Fatalf("%d refreshes, want 0", n)
	}

	// Within the margin: refreshed before expiry, and the token still works.
	e.clock.Advance(2 * time.Minute)
	second, err := ts.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || e.refreshes.Load() != 1 {
		t.Fatalf("new token %v, refreshes %d; want a new token after 1 refresh", second != first, e.refreshes.Load())
	}
	if got := e.graphStatus(t, second); got != http.StatusOK {
		t.Errorf("Graph with the refreshed token: %d", got)
	}

	// The new refresh token was stored.
	after := stored(t, s, "alice")
	if after.RefreshToken == before.RefreshToken || after.AccessToken != second ||
		!after.Expiry.Equal(e.clock.Now().Add(testTokenTTL)) {
		t.Errorf("token file not updated with the rotated refresh token")
	}
	// A new Store (a restarted worker) uses the stored token without refreshing.
	s2 := e.newStoreIn(t, s.files.dir, testKey(t, 1), nil)
	if got, err := s2.TokenSource("alice").Token(ctx); err != nil || got != second {
		t.Errorf("restarted store: %v (same token %v)", err, got == second)
	}
	if n := e.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
	// The old one still works until its own lifetime ends, as on the
	// Microsoft identity platform.
	if code := refreshDirectly(t, e, before.RefreshToken); code != http.StatusOK {
		t.Errorf("old refresh token: %d, want 200 (still valid)", code)
	}
}

func TestConcurrentTokenCallsRefreshOnce(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	ts := s.TokenSource("alice")
	if _, err := ts.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(testTokenTTL)
	e.refreshDelay.Store(int64(100 * time.Millisecond))

	const callers = 32
	tokens := make([]string, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Go(func() {
			// Half the callers ask through TokenSource each time, as activities do.
			src := ts
			if i%2 == 1 {
				src = s.TokenSource("alice")
			}
			tokens[i], errs[i] = src.Token(context.Background())
		})
	}
	wg.Wait()
	for i := range callers {
		if errs[i] != nil || tokens[i] != tokens[0] {
			t.Fatalf("caller %d: %v (same token %v)", i, errs[i], tokens[i] == tokens[0])
		}
	}
	if n := e.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes for %d concurrent callers, want 1", n, callers)
	}
}

func TestTwoProcessesRefreshOnce(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	a := e.newStore(t, nil)
	b := e.newStoreIn(t, a.files.dir, testKey(t, 1), nil) // another process: its own locks and cache
	e.login(t, a, "alice")
	for _, s := range []*Store{a, b} {
		if _, err := s.TokenSource("alice").Token(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(testTokenTTL)
	e.refreshDelay.Store(int64(100 * time.Millisecond))
	var wg sync.WaitGroup
	got := make([]string, 2)
	errs := make([]error, 2)
	for i, s := range []*Store{a, b} {
		wg.Go(func() { got[i], errs[i] = s.TokenSource("alice").Token(context.Background()) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("Token: %v, %v", errs[0], errs[1])
	}
	if got[0] != got[1] {
		t.Error("the two stores hold different tokens")
	}
	if n := e.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1 (the second store must reuse the first one's)", n)
	}
}

func TestInvalidateTokenForcesRefresh(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	ts := s.TokenSource("alice")
	ctx := context.Background()
	first, err := ts.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ts.InvalidateToken("some-older-token-that-is-not-cached")
	if got, _ := ts.Token(ctx); got != first || e.refreshes.Load() != 0 {
		t.Fatal("invalidating another token changed the cached one")
	}
	ts.InvalidateToken(first)
	second, err := ts.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second == first || e.refreshes.Load() != 1 {
		t.Fatalf("after InvalidateToken: new token %v, %d refreshes", second != first, e.refreshes.Load())
	}
	ts.InvalidateToken(first) // late report of the old token: ignored
	if got, _ := ts.Token(ctx); got != second || e.refreshes.Load() != 1 {
		t.Error("a stale InvalidateToken forced another refresh")
	}
}

// TestGraphClient401Recovers runs the onenote client over the token source:
// the emulator expires the access token, the client reports the 401, and
// the next call uses a refreshed token.
func TestGraphClient401Recovers(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	c, err := onenote.New(onenote.Config{BaseURL: e.ts.URL + "/v1.0", HTTPClient: e.ts.Client(), Tokens: s.TokenSource("alice")})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, _, err := c.ListNotebooks(ctx, ""); err != nil {
		t.Fatalf("ListNotebooks: %v", err)
	}
	e.srv.ExpireTokens("alice")
	if _, _, err := c.ListNotebooks(ctx, ""); !errors.Is(err, onenote.ErrAuth) {
		t.Fatalf("ListNotebooks with an expired token = %v, want ErrAuth", err)
	}
	if _, _, err := c.ListNotebooks(ctx, ""); err != nil {
		t.Fatalf("ListNotebooks after the 401: %v", err)
	}
	if n := e.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
}

// TestRevokedRefreshTokenNeedsLogin: a refresh token Microsoft no longer
// accepts (invalid_grant, graph-reality.md fact 32) gives ErrSignInExpired
// naming the login command, reported (and asked of Microsoft) once however
// many calls follow, until a new login; the refresh token is in neither
// the error nor the logs.
func TestRevokedRefreshTokenNeedsLogin(t *testing.T) {
	cases := []struct {
		name      string
		strict    bool
		code70008 bool
		revoke    func(t *testing.T, e *emulator, s *Store)
		aadsts    string
	}{
		{name: "inactive", aadsts: "AADSTS700082", revoke: func(t *testing.T, e *emulator, s *Store) {
			e.clock.Advance(90 * 24 * time.Hour) // unused for its whole lifetime
		}},
		{name: "expired, 70008", code70008: true, aadsts: "AADSTS70008", revoke: func(t *testing.T, e *emulator, s *Store) {
			e.clock.Advance(90 * 24 * time.Hour)
		}},
		{name: "sessions revoked", aadsts: "AADSTS50173", revoke: func(t *testing.T, e *emulator, s *Store) {
			if e.srv.RevokeSessions("alice") == 0 {
				t.Fatal("nothing revoked")
			}
		}},
		{name: "redeemed elsewhere, strict rotation", strict: true, aadsts: "AADSTS70000", revoke: func(t *testing.T, e *emulator, s *Store) {
			if code := refreshDirectly(t, e, stored(t, s, "alice").RefreshToken); code != http.StatusOK {
				t.Fatalf("direct refresh: %d", code)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEmulatorWith(t, graph.Config{StrictRefreshRotation: tc.strict, RefreshExpiredCode70008: tc.code70008})
			logs := &logBuffer{}
			s := e.newStore(t, logs)
			e.login(t, s, "alice")
			refresh := stored(t, s, "alice").RefreshToken
			tc.revoke(t, e, s)
			e.clock.Advance(testTokenTTL)
			before := e.refreshes.Load()
			_, err := s.TokenSource("alice").Token(context.Background())
			if !errors.Is(err, ErrSignInExpired) {
				t.Fatalf("Token = %v, want ErrSignInExpired", err)
			}
			var ie *IdentityError
			if !errors.As(err, &ie) || ie.Code != "invalid_grant" || ie.AADSTS != tc.aadsts {
				t.Errorf("cause = %#v, want invalid_grant %s", ie, tc.aadsts)
			}
			if !strings.Contains(err.Error(), `run "starter login --user alice" to sign in again`) || !strings.Contains(err.Error(), tc.aadsts) {
				t.Errorf("error does not say to log in again or why (%s): %v", tc.aadsts, err)
			}
			// Later calls get the same error without asking Microsoft again
			// and without another log line.
			for range 5 {
				if _, again := s.TokenSource("alice").Token(context.Background()); !errors.Is(again, ErrSignInExpired) || again.Error() != err.Error() {
					t.Fatalf("a later call: %v, want the same error", again)
				}
			}
			if n := e.refreshes.Load() - before; n != 1 {
				t.Errorf("%d refresh requests for 6 calls, want 1", n)
			}
			if n := strings.Count(logs.String(), "refresh token rejected"); n != 1 {
				t.Errorf("%d log lines for the rejected refresh token, want 1:\n%s", n, logs)
			}
			if strings.Contains(err.Error(), refresh) || strings.Contains(logs.String(), refresh) {
				t.Errorf("the refresh token is in the error or the logs")
			}
			// Logging in again fixes it.
			e.login(t, s, "alice")
			if _, err := s.TokenSource("alice").Token(context.Background()); err != nil {
				t.Errorf("Token after a new login: %v", err)
			}
		})
	}
}

func TestTokenWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	e.clock.Advance(testTokenTTL)
	e.refreshDelay.Store(int64(300 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.TokenSource("alice").Token(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Token = %v, want DeadlineExceeded", err)
	}
	// The refresh went on and is reused.
	tok, err := s.TokenSource("alice").Token(context.Background())
	if err != nil || tok == "" {
		t.Fatalf("Token: %v", err)
	}
	if n := e.refreshes.Load(); n != 1 {
		t.Errorf("%d refreshes, want 1", n)
	}
}

func TestLogoutForgetsUser(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	ts := s.TokenSource("alice")
	if _, err := ts.Token(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Logout(context.Background(), "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := ts.Token(context.Background()); !errors.Is(err, ErrNotSignedIn) {
		t.Errorf("Token after Logout = %v, want ErrNotSignedIn", err)
	}
	if files, _ := filepath.Glob(filepath.Join(s.files.dir, "*.enc")); len(files) != 0 {
		t.Errorf("token files left after Logout: %v", files)
	}
}

// refreshDirectly redeems a refresh token at the emulator, bypassing the store.
func refreshDirectly(t *testing.T, e *emulator, refreshToken string) int {
	t.Helper()
	resp, err := e.ts.Client().PostForm(e.ts.URL+"/common/oauth2/v2.0/token", url.Values{
		"grant_type": {"refresh_token"}, "client_id": {"x"}, "refresh_token": {refreshToken},
	})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
