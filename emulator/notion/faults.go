package notion

import (
	"fmt"
	"net/http"
	"time"
)

// Fault is a kind of injected failure.
type Fault int

// The fault kinds. Except for FaultSlow and the Applied kinds, a faulted
// request is answered without touching the workspace.
const (
	// FaultNone is no fault: the request is served normally.
	FaultNone Fault = iota
	// FaultInternalError answers 500 internal_server_error.
	FaultInternalError
	// FaultBadGateway answers 502 with an HTML body, as Notion's edge does.
	FaultBadGateway
	// FaultUnavailable answers 503 service_unavailable.
	FaultUnavailable
	// FaultGatewayTimeout answers 504 gateway_timeout.
	FaultGatewayTimeout
	// FaultConflict answers 409 conflict_error.
	FaultConflict
	// FaultOverload answers 529 service_overload with a Retry-After.
	FaultOverload
	// FaultSlow delays the request by Faults.SlowDelay, then serves it.
	FaultSlow
	// FaultAppliedThenInternalError applies a write (POST, PATCH, DELETE)
	// and then answers 500 instead of its result.
	FaultAppliedThenInternalError
	// FaultAppliedThenGatewayTimeout applies a write and then answers 504.
	FaultAppliedThenGatewayTimeout
	// FaultPartialWrite accepts an append of block children or a page
	// create with children, answers 200, and keeps only part of it: the
	// last children are dropped, or a rich-text run is cut short
	// (Faults.PartialWriteCut). Every cut is recorded
	// (Server.PartialWrites).
	FaultPartialWrite
)

var faultNames = map[Fault]string{
	FaultNone: "none", FaultInternalError: "internal_error", FaultBadGateway: "bad_gateway",
	FaultUnavailable: "unavailable", FaultGatewayTimeout: "gateway_timeout", FaultConflict: "conflict",
	FaultOverload: "overload", FaultSlow: "slow", FaultAppliedThenInternalError: "applied_then_500",
	FaultAppliedThenGatewayTimeout: "applied_then_504", FaultPartialWrite: "partial_write",
}

// String names the fault kind.
func (f Fault) String() string {
	if n, ok := faultNames[f]; ok {
		return n
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// Faults are the probabilities, per API request that passed
// authentication and the rate limit, of each injected failure. Decisions
// are drawn from Config.Seed, so a sequential client sees the same faults
// in the same places on every run. The Applied kinds only hit writes;
// PartialWrite only appends of children and page creates.
type Faults struct {
	// InternalError is the probability of FaultInternalError, and so on
	// for each kind; the sum should not exceed 1.
	InternalError             float64
	BadGateway                float64
	Unavailable               float64
	GatewayTimeout            float64
	Conflict                  float64
	Overload                  float64
	Slow                      float64
	AppliedThenInternalError  float64
	AppliedThenGatewayTimeout float64
	PartialWrite              float64

	// PartialWritePages limits FaultPartialWrite to the pages named here,
	// each by ID (with or without dashes) or exact title: a page create
	// by the new page's title, an append by the page the target block is
	// on. Empty means every page.
	PartialWritePages []string
	// PartialWriteCut chooses the cut: CutChildren (only writes of two
	// children or more are cut), CutText, or "" (the children when there
	// are two or more, else the text).
	PartialWriteCut string

	// SlowDelay is how long a slow response waits. Zero means 2 s.
	SlowDelay time.Duration
	// OverloadRetryAfter is the Retry-After of a 529, in seconds. Zero
	// means 1.
	OverloadRetryAfter int
}

func (f Faults) slowDelay() time.Duration {
	if f.SlowDelay <= 0 {
		return 2 * time.Second
	}
	return f.SlowDelay
}

func (f Faults) rates() []struct {
	kind Fault
	p    float64
} {
	return []struct {
		kind Fault
		p    float64
	}{
		{FaultInternalError, f.InternalError}, {FaultBadGateway, f.BadGateway},
		{FaultUnavailable, f.Unavailable}, {FaultGatewayTimeout, f.GatewayTimeout},
		{FaultConflict, f.Conflict}, {FaultOverload, f.Overload}, {FaultSlow, f.Slow},
		{FaultAppliedThenInternalError, f.AppliedThenInternalError},
		{FaultAppliedThenGatewayTimeout, f.AppliedThenGatewayTimeout},
		{FaultPartialWrite, f.PartialWrite},
	}
}

// SetFaults replaces the fault probabilities at run time.
func (s *Server) SetFaults(f Faults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = f
}

// InjectFault makes the next n eligible requests fail with kind, before
// any random faults. Applied kinds wait for the next writes,
// FaultPartialWrite for the next appends of children or page creates; the
// others hit the next requests of any method.
func (s *Server) InjectFault(kind Fault, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.forced = append(s.forced, kind)
	}
}

func isWrite(method string) bool {
	return method == http.MethodPost || method == http.MethodPatch || method == http.MethodDelete
}

func isApplied(f Fault) bool {
	return f == FaultAppliedThenInternalError || f == FaultAppliedThenGatewayTimeout
}

// eligible reports whether a request can suffer fault f: Applied kinds
// need a write, FaultPartialWrite an append of children or a page create.
func eligible(f Fault, method, path string) bool {
	switch {
	case isApplied(f):
		return isWrite(method)
	case f == FaultPartialWrite:
		return isPartialTarget(method, path)
	}
	return true
}

// pickFault decides the fault for one request.
func (s *Server) pickFault(method, path string) Fault {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forced) > 0 {
		f := s.forced[0]
		if eligible(f, method, path) {
			s.forced = s.forced[1:]
			return f
		}
	}
	total := 0.0
	for _, r := range s.faults.rates() {
		total += r.p
	}
	if total <= 0 {
		return FaultNone
	}
	u := s.faultRng.Float64()
	for _, r := range s.faults.rates() {
		if u < r.p {
			if !eligible(r.kind, method, path) {
				return FaultNone
			}
			return r.kind
		}
		u -= r.p
	}
	return FaultNone
}

const badGatewayHTML = `<html>
<head><title>502 Bad Gateway</title></head>
<body>
<center><h1>502 Bad Gateway</h1></center>
</body>
</html>
`

// writeFault answers a request with the failure of kind f.
func (s *Server) writeFault(w http.ResponseWriter, reqID string, f Fault, now time.Time, token string) {
	switch f {
	case FaultBadGateway:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte(badGatewayHTML))
	case FaultInternalError, FaultAppliedThenInternalError:
		writeError(w, reqID, newError(http.StatusInternalServerError, codeInternal, "Unexpected error occurred."))
	case FaultUnavailable:
		writeError(w, reqID, newError(http.StatusServiceUnavailable, codeServiceUnavailable,
			"Notion is unavailable, please try again later. This can occur when the time to respond to a request takes longer than 60 seconds, the maximum request timeout."))
	case FaultGatewayTimeout, FaultAppliedThenGatewayTimeout:
		writeError(w, reqID, newError(http.StatusGatewayTimeout, codeGatewayTimeout,
			"Notion timed out while processing the request. Please try again later."))
	case FaultConflict:
		writeError(w, reqID, newError(http.StatusConflict, codeConflict,
			"Conflict occurred while saving. Please try again."))
	case FaultOverload:
		s.mu.Lock()
		retry := s.faults.OverloadRetryAfter
		if retry <= 0 {
			retry = 1
		}
		if st, ok := s.tokens[token]; ok {
			st.extendRetryAfter(now, retry, "")
		}
		s.mu.Unlock()
		e := newError(529, codeServiceOverload, "Notion is overloaded. Please try again later.")
		e.retryAfter = retry
		writeError(w, reqID, e)
	}
}
