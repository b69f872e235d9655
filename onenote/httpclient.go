package onenote

import (
	"net/http"
	"time"
)

// NewHTTPClient returns an *http.Client suited to a limiter-driven client:
// it never sends a request twice on its own, and never follows redirects.
//
// net/http silently re-sends an idempotent request when a reused keep-alive
// connection turns out to be dead, and such a request may already have
// reached Graph and counted against the limits without a permit. This
// client's transport does not reuse connections and speaks HTTP/1.1 only,
// so every request costs exactly one attempt. At OneNote's rates (a few
// requests a second at most) the extra handshakes do not matter.
//
// timeout bounds a whole request including reading the body; 0 means no
// limit (use the context instead).
func NewHTTPClient(timeout time.Duration) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	t.ForceAttemptHTTP2 = false
	p := new(http.Protocols)
	p.SetHTTP1(true)
	t.Protocols = p
	return &http.Client{
		Transport:     t,
		Timeout:       timeout,
		CheckRedirect: refuseRedirect,
	}
}

// refuseRedirect makes an http.Client return a 3xx response instead of
// following it, since following would be an upstream request without a
// permit.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
