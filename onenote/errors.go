package onenote

import (
	"errors"
	"fmt"
	"strings"
)

// Kind classifies an [Error] so a caller can decide what to do with it
// without looking at status codes or OneNote error codes itself.
type Kind int

// The kinds of errors the client reports.
const (
	// KindUnknown is an error the client could not classify. It is not
	// retryable.
	KindUnknown Kind = iota
	// KindThrottled means Graph refused the request because a rate limit
	// was reached: HTTP 429, or OneNote error code 20166 or 10007 in any
	// status.
	// Retry after the limiter's breaker cools down.
	KindThrottled
	// KindConcurrency means too many requests were in flight for the user
	// (OneNote error code 10003). Retry when fewer requests are active.
	KindConcurrency
	// KindTransient is a server-side or network failure that is expected to
	// go away: 5xx, OneNote codes 10001, 10002, 10014, 10015, 19999,
	// 30103, a truncated or unparseable body, or a bare 400 on a page GET.
	KindTransient
	// KindAuth means the access token was rejected (HTTP 401, code 40001)
	// or could not be obtained. Refresh the token, then retry.
	KindAuth
	// KindPermission means the signed-in user or app may not read this
	// content (HTTP 403, code 40004). Retrying does not help.
	KindPermission
	// KindConfiguration means the account or library is in a state the API
	// cannot serve (codes 10008, 10013, 20266) or the request itself is
	// malformed (codes 20104, 20129, 20142, other 400s). Retrying does not
	// help.
	KindConfiguration
	// KindNotFound means the item does not exist any more (HTTP 404), for
	// example a page deleted since it was listed.
	KindNotFound
	// KindTooLarge means a response exceeded the size cap the caller set.
	KindTooLarge
	// KindInvalidArgument means the caller passed something the client
	// refuses to send, such as a $batch of more than 20 requests. Nothing
	// was sent upstream.
	KindInvalidArgument
	// KindCanceled means the caller's context ended before a response
	// arrived.
	KindCanceled
	// KindProtected means the section is password-protected (encrypted):
	// OneNote code 20185 or 10004, in any status (real Graph answers 403).
	// Nothing in it can be read until a person unlocks it in OneNote;
	// then the same request succeeds. Retrying before that does not help.
	KindProtected
)

var kindNames = [...]string{
	KindUnknown:         "unknown",
	KindThrottled:       "throttled",
	KindConcurrency:     "concurrency",
	KindTransient:       "transient",
	KindAuth:            "auth",
	KindPermission:      "permission",
	KindConfiguration:   "configuration",
	KindNotFound:        "not found",
	KindTooLarge:        "too large",
	KindInvalidArgument: "invalid argument",
	KindCanceled:        "canceled",
	KindProtected:       "protected",
}

// String returns a short lower-case name for k.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Retryable reports whether a request that failed with this kind may
// succeed if it is sent again (through the limiter, after a suitable wait).
// KindAuth is retryable once the token has been refreshed.
func (k Kind) Retryable() bool {
	switch k {
	case KindThrottled, KindConcurrency, KindTransient, KindAuth:
		return true
	}
	return false
}

// Sentinel errors, one per [Kind], for use with errors.Is:
//
//	if errors.Is(err, onenote.ErrThrottled) { ... }
var (
	ErrUnknown         error = &kindError{KindUnknown}
	ErrThrottled       error = &kindError{KindThrottled}
	ErrConcurrency     error = &kindError{KindConcurrency}
	ErrTransient       error = &kindError{KindTransient}
	ErrAuth            error = &kindError{KindAuth}
	ErrPermission      error = &kindError{KindPermission}
	ErrConfiguration   error = &kindError{KindConfiguration}
	ErrNotFound        error = &kindError{KindNotFound}
	ErrTooLarge        error = &kindError{KindTooLarge}
	ErrInvalidArgument error = &kindError{KindInvalidArgument}
	ErrCanceled        error = &kindError{KindCanceled}
	ErrProtected       error = &kindError{KindProtected}
)

// kindError is the type of the sentinel errors. It is unexported so that
// the sentinels cannot be confused with an *Error carrying details.
type kindError struct{ kind Kind }

func (e *kindError) Error() string { return "onenote: " + e.kind.String() }

// Error is the error every Client method returns for a failed call. Use
// errors.As to get at it, Kind or IsRetryable to decide, and errors.Is with
// the Err* sentinels for a quick check.
//
// Error never contains the bearer token: messages taken from responses are
// scrubbed of it before they are stored.
type Error struct {
	// Kind classifies the failure.
	Kind Kind
	// Op names the operation, such as "list pages".
	Op string
	// Status is the HTTP status, or 0 if no response arrived.
	Status int
	// Code is the OneNote or Graph error code from the response body, such
	// as "20166" or "InvalidAuthenticationToken", or "".
	Code string
	// Message is Graph's own message from the response body, or a
	// description of a local failure.
	Message string
	// Hint says what to do about it, for errors a person must fix.
	Hint string
	// RequestID is Graph's request-id header, for support cases.
	RequestID string
	// Err is the underlying error, if any (a network error, a context
	// error, a JSON syntax error).
	Err error
}

// Error formats e as "onenote: <op>: <kind>: HTTP <status> code <code>:
// <message> (<hint>)", leaving out the parts that are empty.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("onenote: ")
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Code != "" {
		fmt.Fprintf(&b, " code %s", e.Code)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is the sentinel for e's Kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*kindError)
	return ok && t.kind == e.Kind
}

// IsRetryable reports whether the failed request may succeed if sent again
// through the limiter. See [Kind.Retryable].
func (e *Error) IsRetryable() bool { return e.Kind.Retryable() }

// KindOf returns the Kind of err if it is or wraps an *Error, and
// KindUnknown otherwise.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindUnknown
}

// IsRetryable reports whether err is or wraps an *Error whose request may
// succeed if sent again.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.IsRetryable()
}
