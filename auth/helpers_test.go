package auth

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
)

// testClock is an injectable clock shared by the store and the emulator.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// emulator is the Graph emulator behind an httptest server that counts
// refresh-token grants and can slow them down.
type emulator struct {
	srv          *graph.Server
	ts           *httptest.Server
	clock        *testClock
	refreshes    atomic.Int64
	refreshDelay atomic.Int64 // nanoseconds
	// dropAnswers is how many of the next refresh answers the identity
	// platform gives but the client never receives (the connection is
	// cut after the emulator has answered), as for a process killed
	// between the answer and the write of the token file.
	dropAnswers atomic.Int64
	// beforeRefresh, if set, runs once before the next refresh is served.
	beforeRefresh atomic.Pointer[func()]
}

const testTokenTTL = 30 * time.Minute

func newEmulator(t *testing.T) *emulator {
	t.Helper()
	return newEmulatorWith(t, graph.Config{})
}

// newEmulatorWith is newEmulator with cfg's TokenTTL (testTokenTTL if
// zero), StrictRefreshRotation and RefreshExpiredCode70008.
func newEmulatorWith(t *testing.T, cfg graph.Config) *emulator {
	t.Helper()
	e := &emulator{clock: newTestClock()}
	if cfg.TokenTTL == 0 {
		cfg.TokenTTL = testTokenTTL
	}
	e.srv = graph.NewServer(graph.Config{
		Seed: 1, Now: e.clock.Now, TokenTTL: cfg.TokenTTL, Limits: graph.UnlimitedLimits(),
		StrictRefreshRotation: cfg.StrictRefreshRotation, RefreshExpiredCode70008: cfg.RefreshExpiredCode70008,
	})
	e.srv.AddNotebooks("alice", graph.Generate(graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 1})...)
	e.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token") {
			if err := r.ParseForm(); err == nil && r.PostForm.Get("grant_type") == "refresh_token" {
				e.refreshes.Add(1)
				time.Sleep(time.Duration(e.refreshDelay.Load()))
				if hook := e.beforeRefresh.Swap(nil); hook != nil {
					(*hook)()
				}
				if e.dropAnswers.Add(-1) >= 0 {
					e.srv.ServeHTTP(httptest.NewRecorder(), r) // answered, and lost
					cutConnection(t, w)
					return
				}
				e.dropAnswers.Store(0)
			}
		}
		e.srv.ServeHTTP(w, r)
	}))
	t.Cleanup(e.ts.Close)
	return e
}

// logBuffer is a concurrency-safe sink for slog output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testKey is a fixed key, so tests can look for it in output.
func testKey(t *testing.T, fill byte) Key {
	t.Helper()
	var k Key
	for i := range k.b {
		k.b[i] = fill + byte(i)
	}
	k.set = true
	return k
}

// newStore opens a store in a fresh directory against e.
func (e *emulator) newStore(t *testing.T, logs *logBuffer) *Store {
	t.Helper()
	return e.newStoreIn(t, filepath.Join(t.TempDir(), "tokens"), testKey(t, 1), logs)
}

func (e *emulator) newStoreIn(t *testing.T, dir string, key Key, logs *logBuffer) *Store {
	t.Helper()
	var logger *slog.Logger
	if logs != nil {
		logger = slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	s, err := Open(Config{
		Dir: dir,
		Key: key,
		Microsoft: Microsoft{
			ClientID:  "11111111-2222-3333-4444-555555555555",
			Tenant:    TenantCommon,
			Authority: e.ts.URL,
		},
		HTTPClient:   e.ts.Client(),
		PollInterval: time.Second,
		Now:          e.clock.Now,
		Logger:       logger,
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// login signs user in, approving the code from the prompt.
func (e *emulator) login(t *testing.T, s *Store, user string) {
	t.Helper()
	err := s.Login(context.Background(), user, func(dc DeviceCode) {
		if err := e.srv.ApproveDeviceCode(dc.UserCode, user); err != nil {
			t.Errorf("approve: %v", err)
		}
	})
	if err != nil {
		t.Fatalf("Login: %v", err)
	}
}

// stored reads user's token file directly.
func stored(t *testing.T, s *Store, user string) storedToken {
	t.Helper()
	tok, err := s.files.read(user)
	if err != nil {
		t.Fatalf("read token file: %v", err)
	}
	return tok
}

// graphStatus GETs the notebooks of the signed-in user with tok.
func (e *emulator) graphStatus(t *testing.T, tok string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, e.ts.URL+"/v1.0/me/onenote/notebooks", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// cutConnection closes the client's connection without an answer.
func cutConnection(t *testing.T, w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		t.Errorf("hijack: %v", err)
		return
	}
	conn.Close()
}

// redeemDirectly redeems a refresh token at the emulator, bypassing the
// store, and returns the answer as the store would keep it.
func redeemDirectly(t *testing.T, e *emulator, refreshToken string) storedToken {
	t.Helper()
	resp, err := e.ts.Client().PostForm(e.ts.URL+"/common/oauth2/v2.0/token", url.Values{
		"grant_type": {"refresh_token"}, "client_id": {"x"}, "refresh_token": {refreshToken},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int    `json:"expires_in"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("direct refresh: %d %v", resp.StatusCode, err)
	}
	now := e.clock.Now()
	return storedToken{AccessToken: body.AccessToken, RefreshToken: body.RefreshToken,
		Expiry: now.Add(time.Duration(body.ExpiresIn) * time.Second), SavedAt: now}
}
