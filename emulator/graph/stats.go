package graph

import (
	"maps"
	"sync"
	"time"
)

// recorder keeps the counters and the request log. It is safe for
// concurrent use.
type recorder struct {
	mu           sync.Mutex
	requests     int64
	batches      int64
	unauthorized int64
	throttled    int64
	byStatus     map[int]int64
	users        map[string]*UserStats
	log          []LogEntry
}

func newRecorder() *recorder {
	return &recorder{byStatus: make(map[int]int64), users: make(map[string]*UserStats)}
}

// record counts one request of user for path (and query) that got status
// (and error code).
func (rc *recorder) record(user string, at time.Time, path string, status int, code, scope string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests++
	rc.byStatus[status]++
	us := rc.users[user]
	if us == nil {
		us = &UserStats{ByStatus: make(map[int]int64)}
		rc.users[user] = us
	}
	us.Requests++
	us.ByStatus[status]++
	if code == "20166" || code == "10003" {
		rc.throttled++
		us.Throttled++
	}
	rc.log = append(rc.log, LogEntry{User: user, Time: at, Path: path, Status: status, Code: code, Scope: scope})
}

func (rc *recorder) countBatch() {
	rc.mu.Lock()
	rc.batches++
	rc.mu.Unlock()
}

func (rc *recorder) countUnauthorized() {
	rc.mu.Lock()
	rc.unauthorized++
	rc.mu.Unlock()
}

func (rc *recorder) reset() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.requests, rc.batches, rc.unauthorized, rc.throttled = 0, 0, 0, 0
	rc.byStatus = make(map[int]int64)
	rc.users = make(map[string]*UserStats)
	rc.log = nil
}

// Stats returns a snapshot of the counters.
func (s *Server) Stats() Stats {
	s.rec.mu.Lock()
	st := Stats{
		AppID:        s.appID,
		Requests:     s.rec.requests,
		Batches:      s.rec.batches,
		Unauthorized: s.rec.unauthorized,
		Throttled:    s.rec.throttled,
		ByStatus:     maps.Clone(s.rec.byStatus),
		Users:        make(map[string]UserStats, len(s.rec.users)),
	}
	for name, us := range s.rec.users {
		c := *us
		c.ByStatus = maps.Clone(us.ByStatus)
		st.Users[name] = c
	}
	s.rec.mu.Unlock()
	st.InFlight, st.MaxConcurrent = s.limiter.concurrency("")
	for name, us := range st.Users {
		us.InFlight, us.MaxConcurrent = s.limiter.concurrency(name)
		st.Users[name] = us
	}
	return st
}

// Log returns a copy of the request log: every counted request, in the
// order it reached the server.
func (s *Server) Log() []LogEntry {
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return append([]LogEntry(nil), s.rec.log...)
}

// ResetStats clears the counters, the request log and the concurrency
// peaks. It does not reset the limiter's windows.
func (s *Server) ResetStats() {
	s.rec.reset()
	s.limiter.resetPeaks()
}

// Violations checks the request log against the advertised limits (scaled
// by Config.TimeScale, not tightened by hidden limits) and returns every
// over-limit span. A request refused with 10003 is also reported (Window 0)
// when it proves the client exceeded the advertised concurrency cap, i.e.
// unless hidden limits made the enforced cap lower. An empty result proves
// the clients never sent more than a window allows.
func (s *Server) Violations() []Violation {
	log := s.Log()
	out := CheckViolations(log, s.appID, s.advertised)
	for _, e := range log {
		if e.Code != "10003" {
			continue
		}
		v := Violation{Scope: "user", Key: e.User, Limit: s.advertised.User.Concurrency, Count: s.enforced.User.Concurrency + 1, Start: e.Time, End: e.Time}
		if e.Scope == scopeApp {
			v.Scope, v.Key, v.Limit, v.Count = "app", s.appID, s.advertised.App.Concurrency, s.enforced.App.Concurrency+1
		}
		if v.Count > v.Limit {
			out = append(out, v)
		}
	}
	return out
}
