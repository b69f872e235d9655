package onenote

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// testToken is the bearer token test clients send. Tests check it never
// leaks into errors.
const testToken = "secret-bearer-token-6f1d2c"

// newTestClient starts h on a loopback server and returns a client for it
// (user "me", base URL server/v1.0) and a counter of requests received.
func newTestClient(t *testing.T, h http.HandlerFunc) (*Client, *atomic.Int64, *httptest.Server) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL + "/v1.0", Tokens: StaticToken(testToken)})
	if err != nil {
		t.Fatal(err)
	}
	return c, &n, srv
}

// writeGraphError writes a Graph error body.
func writeGraphError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(`{"error":{"code":"` + code + `","message":"` + msg + `"}}`))
}

// asError is errors.As for *Error.
func asError(err error, target **Error) bool { return errors.As(err, target) }
