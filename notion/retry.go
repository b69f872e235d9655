package notion

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// RetryPolicy bounds how a request is retried.
type RetryPolicy struct {
	// MaxAttempts is the most times one request is sent, the first
	// included (default 8).
	MaxAttempts int
	// BaseDelay is the first back-off (default 1 s); it doubles each
	// attempt, with jitter, up to MaxDelay (default 60 s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// AttemptTimeout bounds one attempt (default 90 s; Notion itself
	// gives up after 60 s). An attempt that times out is, for a write, an
	// unknown outcome.
	AttemptTimeout time.Duration
}

// DefaultRetryPolicy returns the policy used where Config.Retry is zero.
func DefaultRetryPolicy() RetryPolicy {
	return RetryPolicy{MaxAttempts: 8, BaseDelay: time.Second, MaxDelay: time.Minute, AttemptTimeout: 90 * time.Second}
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	d := DefaultRetryPolicy()
	if p.MaxAttempts > 0 {
		d.MaxAttempts = p.MaxAttempts
	}
	if p.BaseDelay > 0 {
		d.BaseDelay = p.BaseDelay
	}
	if p.MaxDelay > 0 {
		d.MaxDelay = p.MaxDelay
	}
	if p.AttemptTimeout > 0 {
		d.AttemptTimeout = p.AttemptTimeout
	}
	return d
}

// backoff is the wait before attempt+1 after a transient failure: an
// exponential delay with "equal jitter" (between half and all of it), so
// that callers failing together do not retry together.
func (p RetryPolicy) backoff(attempt int) time.Duration {
	d := p.BaseDelay
	for i := 1; i < attempt && d < p.MaxDelay; i++ {
		d *= 2
	}
	if d > p.MaxDelay {
		d = p.MaxDelay
	}
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(half+1)
}

// verdict is what to do with one attempt's outcome.
type verdict int

const (
	// done: success, return the response.
	done verdict = iota
	// fail: a permanent error, return it.
	fail
	// waitAndRetry: rate limited (429, 529): wait Retry-After, then retry.
	waitAndRetry
	// backOffAndRetry: transient and certainly not applied (or the request
	// is a read): back off, then retry.
	backOffAndRetry
	// reconcile: a write whose outcome is unknown: look it up before
	// retrying it.
	reconcile
)

// String names the verdict, for logs.
func (v verdict) String() string {
	return [...]string{"done", "fail", "wait-and-retry", "back-off-and-retry", "reconcile"}[v]
}

// classify decides what to do after one attempt. status is 0 when the
// attempt failed without a response (connection error, timeout).
func classify(method string, status int) verdict {
	write := method != http.MethodGet && method != http.MethodHead
	switch {
	case status == 0:
		if write {
			return reconcile
		}
		return backOffAndRetry
	case status >= 200 && status < 300:
		return done
	case status == 429 || status == 529:
		return waitAndRetry
	case status == 409 || status == 502 || status == 503:
		return backOffAndRetry
	case status == 500 || status == 504:
		if write {
			return reconcile
		}
		return backOffAndRetry
	}
	return fail
}

// parseRetryAfter reads a Retry-After header: seconds or an HTTP date.
func parseRetryAfter(h string, now time.Time) (time.Duration, bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(h, 64); err == nil {
		if !(s >= 0) { // negative, or NaN
			s = 0
		}
		return time.Duration(min(s, 86400) * float64(time.Second)), true // at most a day: Inf or 1e300 would overflow
	}
	if t, err := http.ParseTime(h); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
