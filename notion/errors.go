package notion

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Sentinel errors a caller can test with errors.Is to decide what to do.
// An *APIError matches the sentinel its status and code stand for.
var (
	// ErrRateLimited means Notion kept answering 429 (or 529) until the
	// attempts ran out. Retry later; the Client already waited as told.
	ErrRateLimited = errors.New("notion: rate limited")
	// ErrRetryable means a transient failure (409, 5xx, a dropped
	// connection) outlasted the attempts. Retrying later is safe.
	ErrRetryable = errors.New("notion: transient failure")
	// ErrNotFound means the object does not exist or is not shared with
	// the integration (Notion does not tell the two apart).
	ErrNotFound = errors.New("notion: object not found or not shared with the integration")
	// ErrUnauthorized means the token is invalid or lacks a capability.
	ErrUnauthorized = errors.New("notion: unauthorized")
	// ErrValidation means Notion refused the request as malformed; sending
	// it again will not help.
	ErrValidation = errors.New("notion: request failed validation")
	// ErrWorkspaceBlockLimit means the workspace reached its block limit
	// (free workspaces with several members): no more content can be
	// written until the workspace is upgraded.
	ErrWorkspaceBlockLimit = errors.New("notion: workspace block limit reached")
	// ErrUploadRefused means Notion refused a file (type not allowed, or
	// larger than the workspace allows). Pages record it as a Loss.
	ErrUploadRefused = errors.New("notion: file upload refused")
	// ErrResourceUnavailable is what a ResourceOpener returns (wrapped)
	// for a resource that cannot be had at all (gone from OneNote, over a
	// size limit): the page is written without it, a paragraph stands in
	// its place, and a Loss names it.
	ErrResourceUnavailable = errors.New("notion: resource unavailable")
	// ErrUnknownOutcome means a write may or may not have happened (it
	// answered 500 or 504, or the connection failed) and could not be
	// reconciled. Do not repeat it blindly: look the result up first.
	ErrUnknownOutcome = errors.New("notion: write outcome unknown")
	// ErrInconsistent means what Notion holds does not match what the
	// writer expects (for example a page edited while it was written).
	// Running the page write again repairs it.
	ErrInconsistent = errors.New("notion: unexpected state in Notion")
)

// APIError is an error response from the Notion API. It never holds the
// token: only the method, the path and what Notion answered.
type APIError struct {
	Method    string
	Path      string
	Status    int
	Code      string // Notion's error code, e.g. "validation_error"
	Message   string
	RequestID string
	// RetryAfter is the wait Notion asked for (429, 529), if any.
	RetryAfter time.Duration
	// RateLimitReason is additional_data.rate_limit_reason of a 429: which
	// limit answered (RateLimitConnection, RateLimitWorkspace, or another
	// value Notion may add), empty if none was given.
	RateLimitReason string
}

// Values of APIError.RateLimitReason that Notion documents (2026).
const (
	// RateLimitConnection: the connection's budget for the current
	// 60-second window is spent; Retry-After is at most 60 s.
	RateLimitConnection = "public_api_request_rate_limit"
	// RateLimitWorkspace: the workspace's limit, shared by every
	// connection, was reached; Retry-After may exceed a minute.
	RateLimitWorkspace = "public_api_space_request_rate_limit"
)

// Error describes the failed request and Notion's answer.
func (e *APIError) Error() string {
	s := fmt.Sprintf("notion: %s %s: %d", e.Method, e.Path, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.RateLimitReason != "" {
		s += " (" + e.RateLimitReason + ")"
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// Is reports whether e stands for target, one of the package's sentinels.
func (e *APIError) Is(target error) bool {
	switch target {
	case ErrRateLimited:
		return e.Status == 429 || e.Status == 529
	case ErrRetryable:
		return e.Status == 409 || e.Status == 500 || e.Status == 502 || e.Status == 503 || e.Status == 504
	case ErrNotFound:
		return e.Status == 404
	case ErrUnauthorized:
		return e.Status == 401 || e.Status == 403
	case ErrValidation:
		return (e.Status == 400 || e.Status == 413) && !e.isBlockLimit()
	case ErrWorkspaceBlockLimit:
		return e.isBlockLimit()
	}
	return false
}

// isBlockLimit recognises the workspace block limit error. Notion's
// documentation names the limit but not its error code, so the code and
// the message are both checked.
func (e *APIError) isBlockLimit() bool {
	if e.Status < 400 || e.Status >= 500 {
		return false
	}
	c, m := strings.ToLower(e.Code), strings.ToLower(e.Message)
	return strings.Contains(c, "block_limit") || strings.Contains(m, "block limit")
}

// exhaustedError wraps the last error of a request whose attempts ran out,
// so that it matches both its own sentinel and the APIError.
type exhaustedError struct {
	kind error
	last error
}

// Error is the last attempt's error.
func (e *exhaustedError) Error() string { return e.last.Error() + " (attempts exhausted)" }

// Unwrap lets errors.Is match both the sentinel and the last error.
func (e *exhaustedError) Unwrap() []error { return []error{e.kind, e.last} }

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
