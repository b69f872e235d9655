package limiter

import (
	"fmt"
	"time"
)

// Lane is a request's priority class.
type Lane uint8

const (
	// Foreground is work a person waits for (scans, previews). It always
	// goes first and may use the whole budget.
	Foreground Lane = iota
	// Background is migration work. It may use the budget minus the
	// foreground reserve.
	Background
	numLanes
)

// String returns "foreground" or "background".
func (l Lane) String() string {
	switch l {
	case Foreground:
		return "foreground"
	case Background:
		return "background"
	}
	return fmt.Sprintf("Lane(%d)", uint8(l))
}

// MarshalText writes the lane's name.
func (l Lane) MarshalText() ([]byte, error) {
	if l >= numLanes {
		return nil, fmt.Errorf("limiter: invalid lane %d", uint8(l))
	}
	return []byte(l.String()), nil
}

// UnmarshalText reads "foreground" or "background".
func (l *Lane) UnmarshalText(b []byte) error {
	switch string(b) {
	case "foreground":
		*l = Foreground
	case "background":
		*l = Background
	default:
		return fmt.Errorf("limiter: invalid lane %q", b)
	}
	return nil
}

// Request asks for permission to send Cost Graph requests for User.
type Request struct {
	// ID identifies the request; a second Enqueue with the same ID is a
	// no-op.
	ID   string `json:"id"`
	User string `json:"user"`
	Lane Lane   `json:"lane"`
	// Cost is the number of Graph requests it will make (a $batch of k
	// sub-requests costs k). Zero means 1.
	Cost int `json:"cost,omitempty"`
	// Slots is the number of concurrency slots it holds while leased.
	// Zero means 1.
	Slots int `json:"slots,omitempty"`
	// Attempt is 0 for a first try and counts retries after that.
	// Retries draw on the retry budget.
	Attempt int `json:"attempt,omitempty"`
	// MinCost, when between 1 and Cost, makes the request divisible: a
	// sequence of Cost requests of which any first part is worth sending.
	// When the whole does not fit but MinCost units or more do, it is
	// granted as many as fit, and the grant's Cost says how many; the
	// requester sends that many and asks again for the rest. Zero means
	// all or nothing.
	MinCost int `json:"minCost,omitempty"`
	// Remaining, when positive, is how many Graph requests the user's
	// background work still needs, this one included, as the requester
	// knows it (at most MaxRemaining; more counts as MaxRemaining). The
	// latest report of a user stands, less what is granted after it.
	// Among users whose windows have room, background grants go first to
	// the user with the most work left, so the users who would otherwise
	// finish last, capped by their own limits, start early (water-filling
	// by remaining work); users with equal work left still take turns. A
	// user that never reports counts as having none left, and users who
	// all report nothing are served max-min by usage.
	Remaining int `json:"remaining,omitempty"`
}

// MaxRemaining bounds Request.Remaining: far more than one notebook's
// requests, small enough that state and arithmetic stay bounded.
const MaxRemaining = 1 << 24

// Grant is a permission to send: the request may leave now, and holds its
// concurrency slots until Release or until Expires.
type Grant struct {
	RequestID string    `json:"requestID"`
	LeaseID   string    `json:"leaseID"`
	User      string    `json:"user"`
	Lane      Lane      `json:"lane"`
	Cost      int       `json:"cost"`
	Slots     int       `json:"slots"`
	Granted   time.Time `json:"granted"`
	Expires   time.Time `json:"expires"`
	// Stamped, when set, is when the limiter's windows count the grant
	// from since its lease outlived the shortest window unreleased (see
	// Limiter.keepOpen); the zero time means Granted.
	Stamped time.Time `json:"stamped,omitzero"`
	// Probe is set when the grant is a breaker's half-open probe.
	Probe bool `json:"probe,omitempty"`
}

// ThrottleScope is the scope upstream blamed for a throttle, parsed by
// the Graph client from x-ms-throttle-scope.
type ThrottleScope uint8

const (
	// ScopeUnknown means upstream named no scope; the limiter infers one.
	ScopeUnknown ThrottleScope = iota
	// ScopeUser is the per-user (Tenant_Application) limit.
	ScopeUser
	// ScopeApp is the per-app (Application) limit.
	ScopeApp
)

// String returns "unknown", "user" or "app".
func (s ThrottleScope) String() string {
	switch s {
	case ScopeUser:
		return "user"
	case ScopeApp:
		return "app"
	}
	return "unknown"
}

// OneNote error codes the limiter reacts to.
const (
	CodeThrottled   = "20166" // too many requests for this user
	CodeServerBusy  = "10007" // server too busy: real Graph's 429 to a burst (graph-reality.md #9)
	CodeConcurrency = "10003" // too many active requests
)

// IsThrottle reports whether o is a throttle: HTTP 429, or code 20166 or
// 10007 in any status (not 10003, which lowers concurrency instead). A
// throttle opens the hard breaker of its scope.
func (o Outcome) IsThrottle() bool { return o.throttled() }

// Outcome is what upstream said about a granted request. The zero Outcome
// means the request was never sent or its fate is unknown.
type Outcome struct {
	Status int    `json:"status,omitempty"` // HTTP status; 0 if never sent
	Code   string `json:"code,omitempty"`   // OneNote error code, e.g. "20166"
	// ThrottlePercent is x-ms-throttle-limit-percentage (0.8 to 1.8), or
	// 0 if absent.
	ThrottlePercent float64       `json:"throttlePercent,omitempty"`
	Scope           ThrottleScope `json:"scope,omitempty"`
	// Sent is when the request was sent upstream (the last one, for a
	// permit covering several), by the requester's clock, or zero if
	// unknown. The model then judges the outcome by what its windows held
	// at that time rather than at the grant: requests granted later may
	// have arrived first. Pass the same time to Settle.
	Sent time.Time `json:"sent,omitzero"`
	// Unsent is how many of the permit's units were never sent: a
	// sequence of requests under one permit that stopped early. They are
	// given back (see Limiter.SettleSent).
	Unsent int `json:"unsent,omitempty"`
}

func (o Outcome) concurrency() bool { return o.Code == CodeConcurrency }

func (o Outcome) throttled() bool {
	return !o.concurrency() && (o.Status == 429 || o.Code == CodeThrottled || o.Code == CodeServerBusy)
}

func (o Outcome) serverError() bool {
	if o.throttled() || o.concurrency() {
		return false
	}
	switch o.Code {
	case "10001", "10002", "10014", "10015", "30103", "19999":
		return true
	}
	return o.Status >= 500
}

func (o Outcome) success() bool {
	return o.Status >= 200 && o.Status < 400 && !o.throttled() && !o.concurrency()
}
