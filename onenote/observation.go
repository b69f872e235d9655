package onenote

import (
	"net/http"
	"time"
)

// Observation is what one upstream call said about the service, returned
// with every result (and every error) so the limiter can learn from it:
// breakers open on throttles, slow down on high throttle percentages, and
// count the requests a call cost.
type Observation struct {
	// Status is the HTTP status, or 0 if no response arrived.
	Status int
	// Code is the OneNote or Graph error code from an error body, or "".
	Code string
	// ThrottlePercentage is x-ms-throttle-limit-percentage (0.8 means 80%
	// of the limit is used), or 0 if absent.
	ThrottlePercentage float64
	// ThrottleScope is the parsed x-ms-throttle-scope header.
	ThrottleScope ThrottleScope
	// RetryAfter is the Retry-After header (fractional seconds kept), and
	// HasRetryAfter whether it was present. OneNote does not send it; other
	// Graph services and $batch sub-responses may.
	RetryAfter    time.Duration
	HasRetryAfter bool
	// RequestID is Graph's request-id header.
	RequestID string
	// Sent is when the request was handed to the HTTP client, or zero if
	// it never was. Upstream counts the request against its limits from
	// about then.
	Sent time.Time
	// Duration is how long the call took, from sending the request to
	// reading the body.
	Duration time.Duration
	// Cost is the number of Graph requests the call counts as against the
	// limits: 1, or the number of sub-requests of a $batch. It is 0 only
	// when the client refused before sending (an invalid argument, no
	// token); after a network error it is counted, since the request may
	// have reached Graph.
	Cost int
}

// Throttled reports whether the response was a throttle: HTTP 429, or
// OneNote error code 20166 or 10007 in any status (see IsThrottleCode).
func (o Observation) Throttled() bool {
	return o.Status == http.StatusTooManyRequests || IsThrottleCode(o.Code)
}

// observe fills an Observation from response headers (h may be nil).
func observe(status int, h http.Header, now time.Time) Observation {
	o := Observation{Status: status}
	if h == nil {
		return o
	}
	o.ThrottlePercentage = ParseThrottlePercentage(h.Get(HeaderThrottlePercentage))
	o.ThrottleScope = ParseThrottleScope(h.Get(HeaderThrottleScope))
	o.RetryAfter, o.HasRetryAfter = ParseRetryAfter(h.Get(HeaderRetryAfter), now)
	o.RequestID = h.Get(HeaderRequestID)
	return o
}
