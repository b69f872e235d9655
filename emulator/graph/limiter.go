package graph

import (
	"sort"
	"sync"
	"time"
)

// Throttle scopes, as named in the simple x-ms-throttle-scope form.
const (
	scopeUser = "User"
	scopeApp  = "Application"
)

// admission is the limiter's answer for one request.
type admission struct {
	admitted bool
	// code is "20166" (a rate window is full) or "10003" (concurrency cap).
	code  string
	scope string // scopeUser or scopeApp when rejected
	// usage is the highest usage/limit ratio over every enforced limit,
	// counting this request.
	usage float64
	// at is the time the request was logged at.
	at time.Time
}

// scopeState is the sliding log and concurrency of one scope.
type scopeState struct {
	log         []time.Time // request times, oldest first, pruned to the longest window
	inFlight    int
	maxInFlight int
}

// limiter enforces Limits with sliding logs: a request at time t is
// admitted by a window {N, W} when fewer than N earlier requests fall in
// (t-W, t]. It is safe for concurrent use.
type limiter struct {
	now            func() time.Time
	mu             sync.Mutex
	limits         Limits
	countThrottled bool
	users          map[string]*scopeState
	app            scopeState
}

func newLimiter(limits Limits, countThrottled bool, now func() time.Time) *limiter {
	return &limiter{now: now, limits: limits, countThrottled: countThrottled, users: make(map[string]*scopeState)}
}

// admit decides whether user may send a request now and, if so, takes a
// concurrency slot that release gives back. The clock is read under the
// lock (and never allowed to run backwards) so the logs stay sorted.
func (l *limiter) admit(user string) admission {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if n := len(l.app.log); n > 0 && now.Before(l.app.log[n-1]) {
		now = l.app.log[n-1]
	}
	us := l.users[user]
	if us == nil {
		us = &scopeState{}
		l.users[user] = us
	}
	prune(us, l.limits.User.Windows, now)
	prune(&l.app, l.limits.App.Windows, now)

	a := admission{admitted: true}
	switch {
	case full(us, l.limits.User.Windows, now):
		a = admission{code: "20166", scope: scopeUser}
	case full(&l.app, l.limits.App.Windows, now):
		a = admission{code: "20166", scope: scopeApp}
	case capped(us, l.limits.User.Concurrency):
		a = admission{code: "10003", scope: scopeUser}
	case capped(&l.app, l.limits.App.Concurrency):
		a = admission{code: "10003", scope: scopeApp}
	}
	if a.admitted || l.countThrottled {
		us.log = append(us.log, now)
		l.app.log = append(l.app.log, now)
	}
	if a.admitted {
		for _, s := range []*scopeState{us, &l.app} {
			s.inFlight++
			s.maxInFlight = max(s.maxInFlight, s.inFlight)
		}
	}
	a.usage = max(usage(us, l.limits.User, now), usage(&l.app, l.limits.App, now))
	a.at = now
	return a
}

// release gives back the concurrency slot of an admitted request.
func (l *limiter) release(user string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if us := l.users[user]; us != nil && us.inFlight > 0 {
		us.inFlight--
	}
	if l.app.inFlight > 0 {
		l.app.inFlight--
	}
}

// concurrency reports the current and highest concurrency of user (or of
// the app when user is empty).
func (l *limiter) concurrency(user string) (now, highest int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := &l.app
	if user != "" {
		if s = l.users[user]; s == nil {
			return 0, 0
		}
	}
	return s.inFlight, s.maxInFlight
}

// resetPeaks sets every highest concurrency to the current one.
func (l *limiter) resetPeaks() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.app.maxInFlight = l.app.inFlight
	for _, s := range l.users {
		s.maxInFlight = s.inFlight
	}
}

// prune drops log entries older than the longest window.
func prune(s *scopeState, windows []Window, now time.Time) {
	var longest time.Duration
	for _, w := range windows {
		longest = max(longest, w.Duration)
	}
	i := sort.Search(len(s.log), func(i int) bool { return s.log[i].After(now.Add(-longest)) })
	if i == 0 {
		return
	}
	if i > len(s.log)/2 {
		s.log = append(s.log[:0:0], s.log[i:]...)
		return
	}
	s.log = s.log[i:]
}

// inWindow counts log entries in (now-d, now].
func inWindow(s *scopeState, d time.Duration, now time.Time) int {
	start := now.Add(-d)
	i := sort.Search(len(s.log), func(i int) bool { return s.log[i].After(start) })
	return len(s.log) - i
}

func full(s *scopeState, windows []Window, now time.Time) bool {
	for _, w := range windows {
		if w.N > 0 && inWindow(s, w.Duration, now) >= w.N {
			return true
		}
	}
	return false
}

func capped(s *scopeState, limit int) bool {
	return limit > 0 && s.inFlight >= limit
}

func usage(s *scopeState, sl ScopeLimits, now time.Time) float64 {
	var u float64
	for _, w := range sl.Windows {
		if w.N > 0 {
			u = max(u, float64(inWindow(s, w.Duration, now))/float64(w.N))
		}
	}
	if sl.Concurrency > 0 {
		u = max(u, float64(s.inFlight)/float64(sl.Concurrency))
	}
	return u
}
