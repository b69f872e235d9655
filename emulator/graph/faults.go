package graph

import (
	"context"
	"net/http"
	"slices"
	"time"
)

// faultKind names one kind of injected fault; each kind draws from its own
// deterministic sequence.
type faultKind string

const (
	faultServerError faultKind = "server-error"
	faultSlow        faultKind = "slow"
	faultTruncate    faultKind = "truncate"
	faultBatchInner  faultKind = "batch-inner"
	faultBadRequest  faultKind = "bad-request"
	faultTokenExpiry faultKind = "token-expiry"
	faultThrottle    faultKind = "throttle"
	faultExpand      faultKind = "expand-outage"
)

// SetFaults replaces the injected faults and restarts their sequences, so
// the same Faults with the same seed fail the same requests again.
func (s *Server) SetFaults(f Faults) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.faults = f
	s.faults.LibraryLimitUsers = slices.Clone(f.LibraryLimitUsers)
	s.faults.LibraryLimitNotebooks = slices.Clone(f.LibraryLimitNotebooks)
	s.faults.DeleteAfterListing = slices.Clone(f.DeleteAfterListing)
	s.faults.TouchAfterListing = slices.Clone(f.TouchAfterListing)
	s.faultSeq = make(map[faultKind]uint64)
	s.burstUntil, s.expandOutageUntil = time.Time{}, time.Time{}
}

// ClearFaults turns every injected fault off.
func (s *Server) ClearFaults() { s.SetFaults(Faults{}) }

// currentFaults returns a copy of the injected faults.
func (s *Server) currentFaults() Faults {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	return s.faults
}

func (f Faults) rate(kind faultKind) float64 {
	switch kind {
	case faultServerError:
		return f.ServerErrorRate
	case faultSlow:
		return f.SlowRate
	case faultTruncate:
		return f.TruncateRate
	case faultBatchInner:
		return f.BatchInnerRate
	case faultBadRequest:
		return f.BadRequestRate
	case faultTokenExpiry:
		return f.TokenExpiryRate
	case faultThrottle:
		return f.ThrottleRate
	case faultExpand:
		return f.ExpandOutageRate
	}
	return 0
}

// faultDraw takes the next number of kind's sequence and returns it with a
// deterministic value in [0,1) for it. Kinds with rate 0 draw nothing.
func (s *Server) faultDraw(kind faultKind) (seq uint64, u float64, rate float64) {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	rate = s.faults.rate(kind)
	if rate <= 0 {
		return 0, 1, 0
	}
	seq = s.faultSeq[kind]
	s.faultSeq[kind] = seq + 1
	return seq, unitFloat("fault", itoa(s.cfg.Seed), string(kind), itoa(seq)), rate
}

// faultHit reports whether the next request of kind is hit.
func (s *Server) faultHit(kind faultKind) bool {
	_, u, rate := s.faultDraw(kind)
	return u < rate
}

// serverErrorFault returns a 5xx response when the current request falls in
// an injected failure burst. Bursts are blocks of ServerErrorBurst
// consecutive requests, each failing as a whole with ServerErrorRate.
func (s *Server) serverErrorFault(requestID string) (response, bool) {
	f := s.currentFaults()
	if f.ServerErrorRate <= 0 {
		return response{}, false
	}
	seq, _, _ := s.faultDraw(faultServerError)
	burst := uint64(max(1, f.ServerErrorBurst))
	block := itoa(seq / burst)
	if unitFloat("fault", itoa(s.cfg.Seed), string(faultServerError), block) >= f.ServerErrorRate {
		return response{}, false
	}
	choices := []struct {
		status int
		code   string
	}{
		{http.StatusInternalServerError, "10001"},
		{http.StatusBadGateway, "10001"},
		{http.StatusServiceUnavailable, "10002"},
		{http.StatusGatewayTimeout, "10007"},
	}
	c := choices[seedOf("fault-kind", itoa(s.cfg.Seed), itoa(seq))%uint64(len(choices))]
	return graphError(c.status, c.code, "", requestID, s.now()), true
}

// slowFault sleeps SlowDelay (or until ctx ends) when the request is hit.
func (s *Server) slowFault(ctx context.Context) {
	if !s.faultHit(faultSlow) {
		return
	}
	d := s.currentFaults().SlowDelay
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// libraryLimited reports whether user, or the notebook the request touches,
// is under the injected 5,000-item library limit.
func (s *Server) libraryLimited(user, notebookID string) bool {
	f := s.currentFaults()
	return slices.Contains(f.LibraryLimitUsers, user) ||
		(notebookID != "" && slices.Contains(f.LibraryLimitNotebooks, notebookID))
}

// scaled shortens d by Config.TimeScale, like the limit windows; a zero d
// means def.
func (s *Server) scaled(d, def time.Duration) time.Duration {
	if d <= 0 {
		d = def
	}
	return time.Duration(float64(d) / s.cfg.TimeScale)
}

// burstRefused reports whether a request arriving while inFlight requests
// (itself included) are inside the server is refused by the burst fault:
// it starts a cooldown when inFlight exceeds BurstConcurrency, and every
// request during the cooldown is refused.
func (s *Server) burstRefused(inFlight int) bool {
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	limit := s.faults.BurstConcurrency
	if limit <= 0 {
		return false
	}
	now := s.now()
	if now.Before(s.burstUntil) {
		return true
	}
	if inFlight > limit {
		s.burstUntil = now.Add(s.scaled(s.faults.BurstCooldown, 3*time.Minute))
		return true
	}
	return false
}

// expandOutage reports whether a notebooks request with $expand falls in
// an expand outage, starting one when the seeded draw says so.
func (s *Server) expandOutage() bool {
	s.faultMu.Lock()
	now := s.now()
	if now.Before(s.expandOutageUntil) {
		s.faultMu.Unlock()
		return true
	}
	d := s.scaled(s.faults.ExpandOutage, 7*time.Minute)
	s.faultMu.Unlock()
	if !s.faultHit(faultExpand) {
		return false
	}
	s.faultMu.Lock()
	defer s.faultMu.Unlock()
	s.expandOutageUntil = now.Add(d)
	return true
}
