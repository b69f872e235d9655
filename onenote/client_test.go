package onenote

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestNewValidatesConfig(t *testing.T) {
	tok := StaticToken("t")
	tests := []struct {
		name    string
		cfg     Config
		ok      bool
		user    string
		wantURL string
	}{
		{"defaults", Config{Tokens: tok}, true, "me", "https://graph.microsoft.com/v1.0/me/onenote/notebooks"},
		{"users id", Config{Tokens: tok, User: User("a@b.com"), BaseURL: "http://127.0.0.1:9/v1.0/"}, true, "users/a@b.com", "http://127.0.0.1:9/v1.0/users/a@b.com/onenote/notebooks"},
		{"groups", Config{Tokens: tok, User: "groups/g1"}, true, "groups/g1", ""},
		{"no tokens", Config{}, false, "", ""},
		{"bad user", Config{Tokens: tok, User: "bob"}, false, "", ""},
		{"users without id", Config{Tokens: tok, User: "users/"}, false, "", ""},
		{"relative base", Config{Tokens: tok, BaseURL: "/v1.0"}, false, "", ""},
		{"ftp base", Config{Tokens: tok, BaseURL: "ftp://x/v1.0"}, false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := New(tt.cfg)
			if (err == nil) != tt.ok {
				t.Fatalf("New: err = %v, want ok %v", err, tt.ok)
			}
			if err != nil {
				if KindOf(err) != KindInvalidArgument {
					t.Errorf("kind = %v", KindOf(err))
				}
				return
			}
			if c.UserSelector() != tt.user {
				t.Errorf("user = %q, want %q", c.UserSelector(), tt.user)
			}
			if tt.wantURL != "" && c.url("notebooks", nil) != tt.wantURL {
				t.Errorf("url = %q, want %q", c.url("notebooks", nil), tt.wantURL)
			}
		})
	}
}

func TestRedirectIsNotFollowed(t *testing.T) {
	c, n, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	_ = srv
	_, obs, err := c.GetPageContent(context.Background(), "p1", ContentOptions{})
	if err == nil || obs.Status != http.StatusFound {
		t.Fatalf("err = %v, status = %d; want an error for the 302", err, obs.Status)
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("server saw %d requests, want 1 (redirect must not be followed)", got)
	}
}

func TestUserClientRedirectPolicyIsOverridden(t *testing.T) {
	c, n, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/elsewhere", http.StatusFound)
	})
	c2, err := New(Config{BaseURL: srv.URL + "/v1.0", Tokens: StaticToken(testToken), HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	_ = c
	if _, _, err := c2.GetPage(context.Background(), "p1"); err == nil {
		t.Fatal("want an error for the redirect")
	}
	if got := n.Load(); got != 1 {
		t.Fatalf("server saw %d requests, want 1", got)
	}
}

func TestTransportErrorsAreTransientOrCanceled(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1.0", Tokens: StaticToken("t")})
	if err != nil {
		t.Fatal(err)
	}
	_, obs, err := c.ListNotebooks(context.Background(), "")
	if KindOf(err) != KindTransient || obs.Cost != 1 || obs.Status != 0 {
		t.Errorf("connection refused: kind %v obs %+v err %v", KindOf(err), obs, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err = c.ListNotebooks(ctx, "")
	if KindOf(err) != KindCanceled || !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: kind %v err %v", KindOf(err), err)
	}
}

func TestAuthErrorsOn401AndTokenFailure(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.")
	})
	_, obs, err := c.GetPage(context.Background(), "p1")
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindAuth || !e.IsRetryable() || e.Code != "InvalidAuthenticationToken" || obs.Code != e.Code {
		t.Fatalf("401: %v (obs %+v)", err, obs)
	}
	bad, _ := New(Config{BaseURL: "http://127.0.0.1:1/v1.0", Tokens: TokenSourceFunc(func(context.Context) (string, error) {
		return "", errors.New("refresh token expired")
	})})
	_, obs, err = bad.GetPage(context.Background(), "p1")
	if KindOf(err) != KindAuth || obs.Cost != 0 || !obs.Sent.IsZero() {
		t.Fatalf("token failure: kind %v cost %d", KindOf(err), obs.Cost)
	}
}

func TestObservationOnSuccess(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-ms-throttle-limit-percentage", "0.9")
		w.Header().Set("request-id", "abc")
		time.Sleep(5 * time.Millisecond)
		_, _ = w.Write([]byte(`{"id":"p1","title":"T","level":1,"order":3}`))
	})
	before := time.Now()
	p, obs, err := c.GetPage(context.Background(), "p1")
	if err != nil {
		t.Fatal(err)
	}
	if obs.Sent.Before(before) || time.Since(obs.Sent) < obs.Duration {
		t.Errorf("sent at %v, want between the call (%v) and the response %v before now", obs.Sent, before, obs.Duration)
	}
	if p.ID != "p1" || p.Level != 1 || p.Order != 3 {
		t.Errorf("page = %+v", p)
	}
	if obs.Status != 200 || obs.ThrottlePercentage != 0.9 || obs.RequestID != "abc" || obs.Cost != 1 || obs.Duration < 5*time.Millisecond {
		t.Errorf("obs = %+v", obs)
	}
}

// cachingTokens hands out a cached token until it is invalidated.
type cachingTokens struct {
	current     string
	next        int
	invalidated []string
}

func (c *cachingTokens) Token(context.Context) (string, error) {
	if c.current == "" {
		c.next++
		c.current = fmt.Sprintf("token-number-%d", c.next)
	}
	return c.current, nil
}

func (c *cachingTokens) InvalidateToken(rejected string) {
	c.invalidated = append(c.invalidated, rejected)
	if c.current == rejected {
		c.current = ""
	}
}

func TestRejectedTokenIsInvalidated(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get("Authorization"))
		if len(seen) == 1 {
			writeGraphError(w, http.StatusUnauthorized, "InvalidAuthenticationToken", "Access token has expired or is not yet valid.")
			return
		}
		_, _ = w.Write([]byte(`{"id":"p"}`))
	}))
	defer srv.Close()
	ts := &cachingTokens{}
	c, err := New(Config{BaseURL: srv.URL + "/v1.0", Tokens: ts})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.GetPage(context.Background(), "p"); KindOf(err) != KindAuth {
		t.Fatalf("first call: %v", err)
	}
	if len(seen) != 1 {
		t.Fatalf("the client retried on its own: %d requests", len(seen))
	}
	if _, _, err := c.GetPage(context.Background(), "p"); err != nil {
		t.Fatalf("second call (caller's retry): %v", err)
	}
	want := []string{"Bearer token-number-1", "Bearer token-number-2"}
	if fmt.Sprint(seen) != fmt.Sprint(want) || fmt.Sprint(ts.invalidated) != "[token-number-1]" {
		t.Fatalf("sent %v, invalidated %v", seen, ts.invalidated)
	}
}
