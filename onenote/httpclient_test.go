package onenote

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestNoSilentResend shows why NewHTTPClient disables keep-alives: when a
// server drops a reused connection after reading a request, net/http's
// default transport sends the request again on its own, which would be an
// upstream request without a permit. The client from NewHTTPClient reports
// the failure instead, and the server sees each request once.
func TestNoSilentResend(t *testing.T) {
	tests := []struct {
		name     string
		hc       *http.Client
		wantSeen int64 // requests the server saw for two client calls
		wantErr  bool  // whether the second call fails
	}{
		{"default transport re-sends", &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}, 3, false},
		{"NewHTTPClient does not", NewHTTPClient(0), 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var seen atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if seen.Add(1) == 2 {
					// Read the request, then drop the connection unanswered.
					conn, _, err := w.(http.Hijacker).Hijack()
					if err == nil {
						conn.Close()
					}
					return
				}
				_, _ = w.Write([]byte(`{"id":"p"}`))
			}))
			defer srv.Close()
			c, err := New(Config{BaseURL: srv.URL + "/v1.0", Tokens: StaticToken(testToken), HTTPClient: tt.hc})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := c.GetPage(context.Background(), "p"); err != nil {
				t.Fatal(err)
			}
			_, _, err = c.GetPage(context.Background(), "p")
			if (err != nil) != tt.wantErr {
				t.Fatalf("second call err = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && KindOf(err) != KindTransient {
				t.Errorf("dropped connection must be transient: %v", err)
			}
			if got := seen.Load(); got != tt.wantSeen {
				t.Errorf("server saw %d requests, want %d", got, tt.wantSeen)
			}
		})
	}
}
