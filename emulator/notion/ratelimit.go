package notion

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"time"
)

// tokenState is the rate-limit bucket, request log and capabilities of one
// integration token.
type tokenState struct {
	bucket bucket
	// notBefore is the end of the latest Retry-After this token was given,
	// notBeforeReason the limit that gave it.
	notBefore       time.Time
	notBeforeReason string
	log             []RequestRecord
	caps            Capabilities
	// typ is the token's connection kind (block limit exemption).
	typ TokenType
	// window is the token's 2026 per-connection window (Config.Plan).
	window window
}

func (s *Server) newTokenState(c Capabilities) *tokenState {
	return &tokenState{caps: c, typ: s.cfg.TokenType}
}

// Reasons a request was rate limited, as Notion names them in
// additional_data.rate_limit_reason.
const (
	reasonToken     = "public_api_request_rate_limit"
	reasonWorkspace = "public_api_space_request_rate_limit"
)

// RequestRecord is one API request that arrived with a known token.
type RequestRecord struct {
	// Time is when the request arrived (by the server's clock).
	Time   time.Time `json:"time"`
	Method string    `json:"method"`
	Path   string    `json:"path"`
	// Status is the HTTP status it was answered with (0 while in flight).
	Status int `json:"status"`
	// Early says the request arrived before a Retry-After this token had
	// been given had passed.
	Early bool `json:"early"`
}

// MaxInWindow is the largest number of requests in recs that arrived
// within any one window of length w (a half-open interval [t, t+w)). With
// w = time.Second it is the peak per-second rate a client reached.
func MaxInWindow(recs []RequestRecord, w time.Duration) int {
	times := make([]time.Time, len(recs))
	for i, r := range recs {
		times[i] = r.Time
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	best, lo := 0, 0
	for hi := range times {
		for !times[hi].Before(times[lo].Add(w)) {
			lo++
		}
		best = max(best, hi-lo+1)
	}
	return best
}

// admit charges one request to token's bucket (and the workspace's, when
// a workspace rate is set) and logs it. It returns the log entry's index
// and, when the request is refused, the Retry-After in whole seconds (0
// means admitted) and the reason. A request is refused when a bucket is
// empty, and also when it arrives before the end of a Retry-After the
// token was given (by a 429 or a 529): such requests are logged as early.
func (s *Server) admit(token string, now time.Time, method, path string) (int, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.tokens[token]
	rec := RequestRecord{Time: now, Method: method, Path: path, Early: now.Before(st.notBefore)}
	st.log = append(st.log, rec)
	idx := len(st.log) - 1
	if rec.Early {
		// Too soon after a Retry-After: refused again, for the rest of
		// that wait, without charging the buckets.
		wait := int(math.Ceil(st.notBefore.Sub(now).Seconds()))
		return idx, max(wait, 1), cmp.Or(st.notBeforeReason, reasonToken)
	}
	if s.cfg.Plan != "" {
		retry, reason := s.admitWindows(st, now)
		return idx, retry, reason
	}
	retry, reason := 0, ""
	if s.rate >= 0 {
		st.bucket.refill(now, s.rate, s.burst)
		if st.bucket.tokens < 1 {
			retry, reason = st.bucket.wait(s.rate), reasonToken
		}
	}
	if s.wsRate > 0 {
		s.wsBucket.refill(now, s.wsRate, s.wsBurst)
		if s.wsBucket.tokens < 1 {
			if w := s.wsBucket.wait(s.wsRate); w > retry {
				retry, reason = w, reasonWorkspace
			}
		}
	}
	if retry > 0 {
		st.extendRetryAfter(now, retry, reason)
		return idx, retry, reason
	}
	if s.rate >= 0 {
		st.bucket.tokens--
	}
	if s.wsRate > 0 {
		s.wsBucket.tokens--
	}
	return idx, 0, ""
}

// admitWindows applies the 2026 limits (reference row 14): the
// connection's budget per 60-second window, then the workspace's budget
// shared by every connection. A refusal's Retry-After is the time until
// the window that refused resets, so the workspace's can exceed a minute.
func (s *Server) admitWindows(st *tokenState, now time.Time) (int, string) {
	if retry := st.window.take(now, s.cfg.ConnectionBudget, ConnectionWindow); retry > 0 {
		st.extendRetryAfter(now, retry, reasonToken)
		return retry, reasonToken
	}
	if retry := s.wsWindow.take(now, s.cfg.WorkspaceBudget, s.cfg.WorkspaceWindow); retry > 0 {
		st.window.refund()
		st.extendRetryAfter(now, retry, reasonWorkspace)
		return retry, reasonWorkspace
	}
	return 0, ""
}

func (st *tokenState) extendRetryAfter(now time.Time, seconds int, reason string) {
	if end := now.Add(time.Duration(seconds) * time.Second); end.After(st.notBefore) {
		st.notBefore, st.notBeforeReason = end, reason
	}
}

// finish records the status a request was answered with.
func (s *Server) finish(token string, entry, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	s.byStatus[status]++
	if st, ok := s.tokens[token]; ok && entry >= 0 && entry < len(st.log) {
		st.log[entry].Status = status
	}
}

// SetRate changes the per-token rate (requests per second; negative
// disables limiting) and burst at run time.
func (s *Server) SetRate(perSecond float64, burst int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rate = perSecond
	if burst > 0 {
		s.burst = burst
	}
}

// Requests returns the log of every request that arrived with token, in
// arrival order.
func (s *Server) Requests(token string) []RequestRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tokens[token]
	if !ok {
		return nil
	}
	return append([]RequestRecord(nil), st.log...)
}

// TokenStats are the counters of one token.
type TokenStats struct {
	Requests    int64         `json:"requests"`
	ByStatus    map[int]int64 `json:"by_status"`
	RateLimited int64         `json:"rate_limited"`
	// Early counts requests that arrived before a Retry-After had passed.
	Early int64 `json:"early"`
}

// Stats are the server's request counters.
type Stats struct {
	// Requests counts every API request, authenticated or not.
	Requests int64         `json:"requests"`
	ByStatus map[int]int64 `json:"by_status"`
	// RateLimited counts 429s, Early the requests that came too soon,
	// over all tokens.
	RateLimited int64 `json:"rate_limited"`
	Early       int64 `json:"early"`
	// Tokens holds per-token counters keyed by token. In JSON (the
	// stats endpoint, the export) the keys are token fingerprints.
	Tokens map[string]TokenStats `json:"tokens"`
	// Blocks is the lifetime number of blocks (pages included) created.
	Blocks int `json:"blocks"`
}

// MarshalJSON writes the stats with every token replaced by its
// fingerprint, so no token leaves the process.
func (st Stats) MarshalJSON() ([]byte, error) {
	type plain Stats
	out := plain(st)
	out.Tokens = make(map[string]TokenStats, len(st.Tokens))
	for tok, ts := range st.Tokens {
		out.Tokens[TokenFingerprint(tok)] = ts
	}
	return json.Marshal(out)
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.statsLocked()
}

func (s *Server) statsLocked() Stats {
	out := Stats{Requests: s.requests, ByStatus: map[int]int64{}, Tokens: map[string]TokenStats{}, Blocks: s.blocksCreated}
	for k, v := range s.byStatus {
		out.ByStatus[k] = v
	}
	out.RateLimited = s.byStatus[429]
	for tok, st := range s.tokens {
		ts := TokenStats{ByStatus: map[int]int64{}}
		for _, r := range st.log {
			ts.Requests++
			ts.ByStatus[r.Status]++
			if r.Status == 429 {
				ts.RateLimited++
			}
			if r.Early {
				ts.Early++
			}
		}
		out.Early += ts.Early
		out.Tokens[tok] = ts
	}
	return out
}

// ResetStats clears the counters and request logs. Rate-limit buckets and
// pending Retry-After waits are kept.
func (s *Server) ResetStats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = 0
	s.byStatus = map[int]int64{}
	for _, st := range s.tokens {
		st.log = nil
	}
}
