package notion

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		method string
		status int
		want   verdict
	}{
		{"GET", 200, done},
		{"POST", 200, done},
		{"GET", 400, fail},
		{"POST", 400, fail},
		{"POST", 401, fail},
		{"POST", 403, fail},
		{"GET", 404, fail},
		{"POST", 413, fail},
		{"PATCH", 409, backOffAndRetry},
		{"GET", 429, waitAndRetry},
		{"PATCH", 429, waitAndRetry},
		{"POST", 529, waitAndRetry},
		{"GET", 500, backOffAndRetry},
		{"POST", 500, reconcile},
		{"PATCH", 500, reconcile},
		{"DELETE", 500, reconcile},
		{"POST", 502, backOffAndRetry},
		{"GET", 503, backOffAndRetry},
		{"PATCH", 503, backOffAndRetry},
		{"GET", 504, backOffAndRetry},
		{"PATCH", 504, reconcile},
		{"GET", 0, backOffAndRetry},
		{"POST", 0, reconcile},
	}
	for _, tt := range tests {
		if got := classify(tt.method, tt.status); got != tt.want {
			t.Errorf("classify(%s, %d) = %v, want %v", tt.method, tt.status, got, tt.want)
		}
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    string
		want time.Duration
		ok   bool
	}{
		{"3", 3 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{now.Add(7 * time.Second).Format(http.TimeFormat), 7 * time.Second, true},
		{"", 0, false},
		{"soon", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tt.h, got, ok, tt.want, tt.ok)
		}
	}
}

func TestBackoffIsBoundedWithJitter(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second, MaxDelay: 8 * time.Second}
	for attempt := 1; attempt <= 10; attempt++ {
		want := time.Second << (attempt - 1)
		if want > 8*time.Second {
			want = 8 * time.Second
		}
		for i := 0; i < 20; i++ {
			if d := p.backoff(attempt); d < want/2 || d > want {
				t.Fatalf("backoff(%d) = %v, want in [%v, %v]", attempt, d, want/2, want)
			}
		}
	}
}

func TestAPIErrorMatchesSentinels(t *testing.T) {
	tests := []struct {
		err  *APIError
		want error
	}{
		{&APIError{Status: 429}, ErrRateLimited},
		{&APIError{Status: 529}, ErrRateLimited},
		{&APIError{Status: 503}, ErrRetryable},
		{&APIError{Status: 404, Code: "object_not_found"}, ErrNotFound},
		{&APIError{Status: 401}, ErrUnauthorized},
		{&APIError{Status: 400, Code: "validation_error"}, ErrValidation},
		{&APIError{Status: 413}, ErrValidation},
		{&APIError{Status: 400, Code: "validation_error", Message: "The workspace has reached its block limit."}, ErrWorkspaceBlockLimit},
	}
	for _, tt := range tests {
		if !errors.Is(tt.err, tt.want) {
			t.Errorf("%v does not match %v", tt.err, tt.want)
		}
	}
	if errors.Is(&APIError{Status: 400, Message: "block limit"}, ErrValidation) {
		t.Error("a block-limit error also matches ErrValidation")
	}
}

func TestPacerSpacesRequests(t *testing.T) {
	clock := newFakeClock()
	p := newPacer(PacerConfig{Rate: 4, Burst: 2}, clock)
	start := clock.Now()
	var at []time.Duration
	for i := 0; i < 6; i++ {
		if err := p.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		at = append(at, clock.Now().Sub(start))
	}
	want := []time.Duration{0, 0, 250 * time.Millisecond, 500 * time.Millisecond, 750 * time.Millisecond, time.Second}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("request times %v, want %v", at, want)
		}
	}
}

func TestPacerPauseHoldsEveryRequestThenResumesWithoutBurst(t *testing.T) {
	clock := newFakeClock()
	p := newPacer(PacerConfig{Rate: 2, Burst: 5}, clock)
	start := clock.Now()
	p.Pause(start.Add(10 * time.Second))
	var at []time.Duration
	for i := 0; i < 3; i++ {
		if err := p.Wait(context.Background()); err != nil {
			t.Fatal(err)
		}
		at = append(at, clock.Now().Sub(start))
	}
	want := []time.Duration{10 * time.Second, 10*time.Second + 500*time.Millisecond, 11 * time.Second}
	for i := range want {
		if at[i] != want[i] {
			t.Fatalf("request times %v, want %v", at, want)
		}
	}
}

func TestPacersShareOnePacePerToken(t *testing.T) {
	ps := NewPacers(DefaultPacerConfig(), newFakeClock())
	if a1, a2 := ps.forToken("a"), ps.forToken("a"); a1 != a2 {
		t.Error("two pacers for one token")
	}
	if ps.forToken("a") == ps.forToken("b") {
		t.Error("one pacer for two tokens")
	}
	for k := range ps.pacers {
		if strings.Contains(k, "a") && len(k) < 8 {
			t.Errorf("registry key %q looks like the token", k)
		}
	}
}

// TestDoRetriesWithFreshBody checks that each attempt sends the whole body
// again and that transient statuses are retried.
func TestDoRetriesWithFreshBody(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if r.Header.Get("Notion-Version") != APIVersion || r.Header.Get("Authorization") != "Bearer secret-token" {
			t.Errorf("headers %v", r.Header)
		}
		switch n {
		case 1:
			w.WriteHeader(502)
			io.WriteString(w, "<html>bad gateway</html>")
		case 2:
			w.WriteHeader(409)
			io.WriteString(w, `{"object":"error","status":409,"code":"conflict_error","message":"conflict"}`)
		default:
			io.WriteString(w, `{"ok":true}`)
		}
	}))
	defer srv.Close()
	clock := newFakeClock()
	c := newTestClient(t, srv.URL, clock)
	var logs strings.Builder
	c.log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var out struct{ OK bool }
	var retries []Retry
	ctx := WithRetryObserver(context.Background(), func(r Retry) { retries = append(retries, r) })
	err := c.do(ctx, call{method: "PATCH", path: "/v1/blocks/x/children",
		body: jsonBody(map[string]string{"hello": "world"}), out: &out})
	if err != nil || !out.OK {
		t.Fatalf("do = %v, %+v", err, out)
	}
	// The observer hears of each retried attempt, with Notion's code when
	// the body had one; not of the success.
	if len(retries) != 2 || retries[0].Status != 502 || retries[0].Code != "" || retries[0].Attempt != 1 ||
		retries[1].Status != 409 || retries[1].Code != "conflict_error" || retries[1].Attempt != 2 || retries[1].Err == nil {
		t.Errorf("retries observed: %+v", retries)
	}
	if len(bodies) != 3 {
		t.Fatalf("%d attempts, want 3", len(bodies))
	}
	// Two back-offs (10 ms base, doubling, with jitter); pacing at
	// 1000 req/s with a burst needs no sleep.
	if s := clock.slept(); len(s) != 2 || s[0] < 5*time.Millisecond || s[0] > 10*time.Millisecond || s[1] < 10*time.Millisecond || s[1] > 20*time.Millisecond {
		t.Errorf("slept %v, want two back-offs in [5ms,10ms] and [10ms,20ms]", s)
	}
	for _, b := range bodies {
		if b != `{"hello":"world"}` {
			t.Errorf("attempt sent body %q", b)
		}
	}
	if !strings.Contains(logs.String(), "/v1/blocks/x/children") || strings.Contains(logs.String(), "secret-token") {
		t.Errorf("logs show no request, or the token:\n%s", logs.String())
	}
}

// TestDoGivesUpWithTypedError checks bounded attempts and error types.
func TestDoGivesUpWithTypedError(t *testing.T) {
	tests := []struct {
		status int
		want   error
	}{
		{503, ErrRetryable},
		{429, ErrRateLimited},
		{404, ErrNotFound},
		{400, ErrValidation},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			n := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(tt.status)
				fmt.Fprintf(w, `{"object":"error","status":%d,"code":"x","message":"m"}`, tt.status)
			}))
			defer srv.Close()
			c := newTestClient(t, srv.URL, newFakeClock())
			err := c.do(context.Background(), call{method: "GET", path: "/v1/pages/p"})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != tt.status {
				t.Errorf("err = %v, want an *APIError with status %d", err, tt.status)
			}
			if strings.Contains(err.Error(), "secret-token") {
				t.Error("the error shows the token")
			}
			wantN := 1
			if tt.status >= 429 {
				wantN = 5
			}
			if n != wantN {
				t.Errorf("%d attempts, want %d", n, wantN)
			}
		})
	}
}

// TestRetryAfterPausesEveryCallerOfTheToken checks that after a 429 no
// request of the same token, from any client, leaves before Retry-After.
func TestRetryAfterPausesEveryCallerOfTheToken(t *testing.T) {
	clock := newFakeClock()
	var mu sync.Mutex
	var arrivals []time.Time
	var limitedUntil time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		now := clock.Now()
		arrivals = append(arrivals, now)
		if len(arrivals) == 1 {
			limitedUntil = now.Add(5 * time.Second)
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(429)
			io.WriteString(w, `{"object":"error","status":429,"code":"rate_limited","message":"slow down"}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	pacers := NewPacers(PacerConfig{Rate: 1000, Burst: 10}, clock)
	mk := func() *Client {
		c, err := NewClient(Config{BaseURL: srv.URL, Token: StaticToken("secret-token"), Clock: clock, Pacers: pacers, Logger: quietLogger()})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := mk(), mk()
	if err := a.do(context.Background(), call{method: "GET", path: "/v1/users/me"}); err != nil {
		t.Fatal(err)
	}
	if err := b.do(context.Background(), call{method: "GET", path: "/v1/users/me"}); err != nil {
		t.Fatal(err)
	}
	if len(arrivals) != 3 {
		t.Fatalf("%d requests, want 3", len(arrivals))
	}
	for _, at := range arrivals[1:] {
		if at.Before(limitedUntil) {
			t.Errorf("a request arrived at %v, before Retry-After ended at %v", at, limitedUntil)
		}
	}
}

// TestWaitsEndWithTheContext checks that a long Retry-After does not hold
// a caller whose context ends.
func TestWaitsEndWithTheContext(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
	}))
	defer srv.Close()
	c, err := NewClient(Config{BaseURL: srv.URL, Token: StaticToken("secret-token"), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = c.do(ctx, call{method: "GET", path: "/v1/users/me"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want the context's deadline at once", err, time.Since(start))
	}
}

// recordingPacing is a Pacing that records what the Client asks of it and
// paces nothing; the thing under test is the Client's use of it.
type recordingPacing struct {
	mu     sync.Mutex
	keys   []string
	waits  int
	pauses []time.Time
	err    error
}

func (p *recordingPacing) Pace(fp string) Pace {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = append(p.keys, fp)
	return p
}

func (p *recordingPacing) Wait(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.waits++
	return p.err
}

func (p *recordingPacing) Pause(until time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pauses = append(p.pauses, until)
}

// TestClientUsesItsPacing checks that a Client given a Pacing asks it,
// by the token's fingerprint, before every attempt, reports a Retry-After
// to it, and sends nothing when the pace fails.
func TestClientUsesItsPacing(t *testing.T) {
	clock := newFakeClock()
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		if n == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(429)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	p := &recordingPacing{}
	c, err := NewClient(Config{BaseURL: srv.URL, Token: StaticToken("secret-token"), Clock: clock, Pacing: p,
		Pacers: NewPacers(PacerConfig{Rate: 1000, Burst: 10}, clock), Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	start := clock.Now()
	if err := c.do(context.Background(), call{method: "GET", path: "/v1/users/me"}); err != nil {
		t.Fatal(err)
	}
	if len(p.keys) != 1 || p.keys[0] != Fingerprint("secret-token") || strings.Contains(p.keys[0], "secret") {
		t.Errorf("paces asked for %q, want the token's fingerprint once", p.keys)
	}
	if p.waits != 2 || len(p.pauses) != 1 || !p.pauses[0].Equal(start.Add(2*time.Second)) {
		t.Errorf("%d waits and pauses %v; want 2 waits and one pause until %v", p.waits, p.pauses, start.Add(2*time.Second))
	}
	p.err = errors.New("pace entity unreachable")
	if err := c.do(context.Background(), call{method: "GET", path: "/v1/users/me"}); !errors.Is(err, p.err) || n != 2 {
		t.Errorf("with a failing pace: %v after %d requests; want that error and no request", err, n)
	}
}
