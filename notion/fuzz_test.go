package notion

import (
	"context"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzNow is the fixed "now" the fuzz targets measure Retry-After from.
var fuzzNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time { return c.now }

func (c fixedClock) Sleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// FuzzParseRetryAfter checks Retry-After parsing, whose result pauses every
// request of a Notion token: it never panics, never gives a negative wait
// (which would ignore the header), keeps fractional seconds, and measures
// HTTP dates from now.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "1", "0.5", " 2 ", "-3", "1e3", "1e300", "NaN", "Inf", "-Inf", "0x1p4", "9223372036",
		"99999999999", "Wed, 21 Oct 2015 07:28:00 GMT", "Sun, 01 Mar 2026 12:00:30 GMT", "Sunday, 01-Mar-26 12:01:00 GMT",
		"Sun Mar  1 12:00:10 2026", "", "soon", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, ok := parseRetryAfter(v, fuzzNow)
		if d < 0 {
			t.Fatalf("Retry-After %q gives a negative wait %v", v, d)
		}
		if !ok {
			if d != 0 {
				t.Fatalf("Retry-After %q not understood but waits %v", v, d)
			}
			return
		}
		tv := strings.TrimSpace(v)
		if secs, err := strconv.ParseFloat(tv, 64); err == nil {
			// Up to a day is honoured to the nanosecond; more is capped,
			// but still a long wait.
			switch want := secs * float64(time.Second); {
			case want >= 0 && want <= float64(24*time.Hour) && math.Abs(float64(d)-want) > 1:
				t.Fatalf("Retry-After %q: %v, want %v", v, d, time.Duration(want))
			case want > float64(24*time.Hour) && d < time.Hour:
				t.Fatalf("Retry-After %q (huge) waits only %v", v, d)
			}
			return
		}
		if at, err := http.ParseTime(tv); err == nil {
			if want := max(0, at.Sub(fuzzNow)); d != want {
				t.Fatalf("Retry-After %q: %v, want %v", v, d, want)
			}
		}
	})
}

// FuzzAPIError decodes the error answers Notion (or a gateway in front of
// it) may send: any status, body and Retry-After. The error must keep the
// status, carry a non-negative RetryAfter, and match the sentinel its
// status stands for.
func FuzzAPIError(f *testing.F) {
	f.Add(429, []byte(`{"object":"error","status":429,"code":"rate_limited","message":"slow down","request_id":"r1"}`), "0.3")
	f.Add(400, []byte(`{"object":"error","status":400,"code":"validation_error","message":"body.children.length should be ≤ 100"}`), "")
	f.Add(400, []byte(`{"code":"validation_error","message":"The workspace has reached its block limit."}`), "")
	f.Add(502, []byte(`<html>Bad Gateway</html>`), "")
	f.Add(529, []byte(``), "Sun, 01 Mar 2026 12:00:05 GMT")
	f.Add(404, []byte(`{"code":17,"message":null}`), "-1")
	f.Fuzz(func(t *testing.T, status int, body []byte, retryAfter string) {
		status = 100 + int(uint(status)%500)
		c := &Client{clock: fixedClock{fuzzNow}}
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		e := c.apiError(call{method: http.MethodPost, path: "/v1/pages"}, status, h, body)
		if e.Status != status || e.RetryAfter < 0 {
			t.Fatalf("status %d, Retry-After %q -> %+v", status, retryAfter, e)
		}
		msg := e.Error()
		if !strings.Contains(msg, strconv.Itoa(status)) {
			t.Fatalf("error %q does not give the status %d", msg, status)
		}
		if (status == 429 || status == 529) != errors.Is(e, ErrRateLimited) {
			t.Fatalf("status %d: errors.Is(ErrRateLimited) = %v", status, errors.Is(e, ErrRateLimited))
		}
		if status == 404 != errors.Is(e, ErrNotFound) {
			t.Fatalf("status %d: errors.Is(ErrNotFound) = %v", status, errors.Is(e, ErrNotFound))
		}
		if errors.Is(e, ErrValidation) && errors.Is(e, ErrWorkspaceBlockLimit) {
			t.Fatalf("both a validation error and the block limit: %v", e)
		}
	})
}
