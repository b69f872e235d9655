package onenote

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Response headers Graph uses to describe throttling.
const (
	HeaderThrottleScope      = "X-Ms-Throttle-Scope"
	HeaderThrottlePercentage = "X-Ms-Throttle-Limit-Percentage"
	HeaderRetryAfter         = "Retry-After"
	HeaderRequestID          = "Request-Id"
)

// ScopeKind says whose budget a throttle applies to.
type ScopeKind int

// The throttle scopes the limiter distinguishes.
const (
	// ScopeUnknown means no scope header, or one the client does not
	// recognise; the limiter has to infer the scope.
	ScopeUnknown ScopeKind = iota
	// ScopeUser is the per-app-per-user budget.
	ScopeUser
	// ScopeApp is the app's budget (Application, Tenant_Application).
	ScopeApp
	// ScopeTenant is the budget of every app in the tenant.
	ScopeTenant
)

// String returns "unknown", "user", "app" or "tenant".
func (k ScopeKind) String() string {
	switch k {
	case ScopeUser:
		return "user"
	case ScopeApp:
		return "app"
	case ScopeTenant:
		return "tenant"
	}
	return "unknown"
}

// ThrottleScope is a parsed x-ms-throttle-scope header.
//
// Three forms are recognised:
//   - simple: "User" or "Application";
//   - documented: "<Scope>/<Limit>/<ApplicationId>/<TenantId|UserId|ResourceId>",
//     Scope being Tenant_Application, Tenant or Application, and Limit being
//     Read, Write or ReadWrite;
//   - older flat: "Tenant_Application_All", "Tenant_Write", ...
type ThrottleScope struct {
	// Kind is what the scope means for the limiter.
	Kind ScopeKind
	// Raw is the header value as received.
	Raw string
	// Scope is the scope part, e.g. "Tenant_Application" or "User".
	Scope string
	// Limit is the limit part, e.g. "ReadWrite", "All", or "".
	Limit string
	// AppID and ID are the last two parts of the documented form.
	AppID, ID string
}

// ParseThrottleScope parses an x-ms-throttle-scope value. An empty or
// unrecognised value gives Kind ScopeUnknown with Raw kept. It never
// panics.
func ParseThrottleScope(v string) ThrottleScope {
	ts := ThrottleScope{Raw: v}
	v = strings.TrimSpace(v)
	if v == "" {
		return ts
	}
	parts := strings.Split(v, "/")
	ts.Scope = strings.TrimSpace(parts[0])
	if len(parts) > 1 {
		ts.Limit = strings.TrimSpace(parts[1])
	}
	if len(parts) > 2 {
		ts.AppID = strings.TrimSpace(parts[2])
	}
	if len(parts) > 3 {
		ts.ID = strings.TrimSpace(strings.Join(parts[3:], "/"))
	}
	if len(parts) == 1 {
		// Older flat form: split a trailing limit off the scope.
		for _, suffix := range []string{"_ReadWrite", "_All", "_Read", "_Write"} {
			if len(ts.Scope) > len(suffix) && strings.EqualFold(ts.Scope[len(ts.Scope)-len(suffix):], suffix) {
				ts.Limit = ts.Scope[len(ts.Scope)-len(suffix)+1:]
				ts.Scope = ts.Scope[:len(ts.Scope)-len(suffix)]
				break
			}
		}
	}
	ts.Kind = scopeKind(ts.Scope)
	return ts
}

func scopeKind(scope string) ScopeKind {
	switch strings.ToLower(scope) {
	case "user", "tenant_user", "application_user", "user_application":
		return ScopeUser
	case "application", "app", "tenant_application", "partition_application":
		return ScopeApp
	case "tenant", "partition":
		return ScopeTenant
	}
	return ScopeUnknown
}

// ParseThrottlePercentage parses x-ms-throttle-limit-percentage (a
// fraction such as "0.8" or "1.2"). It returns 0 for an absent, malformed,
// negative or non-finite value. It never panics.
func ParseThrottlePercentage(v string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || f != f || f > 1e6 {
		return 0
	}
	return f
}

// ParseRetryAfter parses a Retry-After value: seconds (fractional values
// such as "0.249" are kept, not truncated) or an HTTP date, measured from
// now. It returns 0 and false for an absent or malformed value.
func ParseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 || secs != secs || secs > 1e9 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}
