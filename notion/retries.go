package notion

import (
	"context"
	"time"
)

// Retry is one failed attempt of a request the client sends again: the
// upstream error a caller may want to report while the retries go on (a
// Notion outage is otherwise silent until the client gives up).
type Retry struct {
	Method string
	Path   string
	// Status is the HTTP status (0: no answer arrived).
	Status int
	// Code is Notion's error code ("service_unavailable"), if it sent one.
	Code string
	// Reason is a 429's rate_limit_reason (APIError.RateLimitReason).
	Reason string
	// Err is the attempt's error; Attempt counts from 1.
	Err     error
	Attempt int
	At      time.Time
}

// retryObserverKey carries a retry observer in a context.
type retryObserverKey struct{}

// WithRetryObserver returns a context whose requests tell observe about
// each attempt that failed in a way the client retries (a 5xx, a 429, no
// answer), the last one included. observe runs on the
// request's goroutine and must return quickly.
func WithRetryObserver(ctx context.Context, observe func(Retry)) context.Context {
	return context.WithValue(ctx, retryObserverKey{}, observe)
}

// observeRetry tells the context's observer, if any, about r.
func observeRetry(ctx context.Context, r Retry) {
	if observe, ok := ctx.Value(retryObserverKey{}).(func(Retry)); ok && observe != nil {
		observe(r)
	}
}
