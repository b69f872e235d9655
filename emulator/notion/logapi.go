package notion

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// The control API for per-token request logs and capabilities. Tokens are
// named by TokenFingerprint everywhere here; they never appear in answers.

// TokenLog is the request log of one token as GET /_emulator/log answers.
type TokenLog struct {
	// Token is the token's fingerprint (TokenFingerprint).
	Token string `json:"token"`
	// Requests are every request that arrived with the token (since the
	// last reset, or since the `since` asked for), in arrival order.
	Requests []RequestRecord `json:"requests"`
	// MaxInOneSecond is the most requests that arrived within any one
	// second (MaxInWindow), over Requests.
	MaxInOneSecond int `json:"max_in_one_second"`
	// MaxAdmittedInOneSecond is the same over the requests not answered
	// 429: what the token actually got through.
	MaxAdmittedInOneSecond int `json:"max_admitted_in_one_second"`
}

// RequestLog is the request log of every token (or of the one whose
// fingerprint is given), keeping the requests that arrived at or after
// since (all when since is zero). Tokens are sorted by fingerprint.
func (s *Server) RequestLog(fingerprint string, since time.Time) []TokenLog {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []TokenLog{}
	for tok, st := range s.tokens {
		fp := TokenFingerprint(tok)
		if fingerprint != "" && fp != fingerprint {
			continue
		}
		tl := TokenLog{Token: fp, Requests: []RequestRecord{}}
		var admitted []RequestRecord
		for _, r := range st.log {
			if r.Time.Before(since) {
				continue
			}
			tl.Requests = append(tl.Requests, r)
			if r.Status != http.StatusTooManyRequests {
				admitted = append(admitted, r)
			}
		}
		tl.MaxInOneSecond = MaxInWindow(tl.Requests, time.Second)
		tl.MaxAdmittedInOneSecond = MaxInWindow(admitted, time.Second)
		out = append(out, tl)
	}
	slices.SortFunc(out, func(a, b TokenLog) int { return compareStrings(a.Token, b.Token) })
	return out
}

// serveLog answers GET /_emulator/log[?token=<fingerprint>][&since=<RFC 3339
// time>] with {"tokens":[TokenLog…]}, and DELETE /_emulator/log by clearing
// the logs and counters (ResetStats).
func (s *Server) serveLog(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		s.ResetStats()
		w.WriteHeader(http.StatusNoContent)
		return
	}
	q := r.URL.Query()
	var since time.Time
	if v := q.Get("since"); v != "" {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			http.Error(w, fmt.Sprintf("since: want an RFC 3339 time, got %q", v), http.StatusBadRequest)
			return
		}
		since = t
	}
	fp := q.Get("token")
	logs := s.RequestLog(fp, since)
	if fp != "" && len(logs) == 0 {
		http.Error(w, fmt.Sprintf("no token with fingerprint %q", fp), http.StatusNotFound)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": logs})
}

// capabilitiesJSON is the wire form of GET and PUT /_emulator/capabilities.
type capabilitiesJSON struct {
	Token        string   `json:"token"`
	Capabilities []string `json:"capabilities"`
}

// serveCapabilities answers GET /_emulator/capabilities (every token's
// capabilities, by fingerprint) and PUT with {"token": fingerprint,
// "capabilities": ["read_content", …]} (replace one token's).
func (s *Server) serveCapabilities(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		var in capabilitiesJSON
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, "decode capabilities: "+err.Error(), http.StatusBadRequest)
			return
		}
		c, err := ParseCapabilities(strings.Join(in.Capabilities, ","))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		tok, ok := s.tokenByFingerprint(in.Token)
		if ok {
			s.tokens[tok].caps = c
		}
		s.mu.Unlock()
		if !ok {
			http.Error(w, fmt.Sprintf("no token with fingerprint %q", in.Token), http.StatusNotFound)
			return
		}
	}
	s.mu.Lock()
	out := []capabilitiesJSON{}
	for tok, st := range s.tokens {
		out = append(out, capabilitiesJSON{Token: TokenFingerprint(tok), Capabilities: st.caps.Names()})
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b capabilitiesJSON) int { return compareStrings(a.Token, b.Token) })
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}
