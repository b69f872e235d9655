package notion

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// faultsJSON is the wire form of Faults for GET and PUT /_emulator/faults,
// so a standalone emulator can be switched at run time:
//
//	curl -X PUT localhost:8082/_emulator/faults -d '{"internal_error":0.05,"slow":0.1,"slow_delay":"3s"}'
//	curl -X PUT localhost:8082/_emulator/faults -d '{"partial_write":1,"partial_write_pages":["Trip notes"]}'
type faultsJSON struct {
	InternalError             float64 `json:"internal_error"`
	BadGateway                float64 `json:"bad_gateway"`
	Unavailable               float64 `json:"unavailable"`
	GatewayTimeout            float64 `json:"gateway_timeout"`
	Conflict                  float64 `json:"conflict"`
	Overload                  float64 `json:"overload"`
	Slow                      float64 `json:"slow"`
	AppliedThenInternalError  float64 `json:"applied_then_500"`
	AppliedThenGatewayTimeout float64 `json:"applied_then_504"`
	PartialWrite              float64 `json:"partial_write"`
	// PartialWritePages are page IDs or titles (Faults.PartialWritePages).
	PartialWritePages []string `json:"partial_write_pages"`
	// PartialWriteCut is "children", "text" or "" (Faults.PartialWriteCut).
	PartialWriteCut    string `json:"partial_write_cut"`
	SlowDelay          string `json:"slow_delay"`
	OverloadRetryAfter int    `json:"overload_retry_after"`
}

func toFaultsJSON(f Faults) faultsJSON {
	pages := f.PartialWritePages
	if pages == nil {
		pages = []string{}
	}
	return faultsJSON{InternalError: f.InternalError, BadGateway: f.BadGateway, Unavailable: f.Unavailable,
		GatewayTimeout: f.GatewayTimeout, Conflict: f.Conflict, Overload: f.Overload, Slow: f.Slow,
		AppliedThenInternalError: f.AppliedThenInternalError, AppliedThenGatewayTimeout: f.AppliedThenGatewayTimeout,
		PartialWrite: f.PartialWrite, PartialWritePages: pages, PartialWriteCut: f.PartialWriteCut,
		SlowDelay: f.slowDelay().String(), OverloadRetryAfter: f.OverloadRetryAfter}
}

func (j faultsJSON) faults() (Faults, error) {
	f := Faults{InternalError: j.InternalError, BadGateway: j.BadGateway, Unavailable: j.Unavailable,
		GatewayTimeout: j.GatewayTimeout, Conflict: j.Conflict, Overload: j.Overload, Slow: j.Slow,
		AppliedThenInternalError: j.AppliedThenInternalError, AppliedThenGatewayTimeout: j.AppliedThenGatewayTimeout,
		PartialWrite: j.PartialWrite, PartialWritePages: j.PartialWritePages, PartialWriteCut: j.PartialWriteCut,
		OverloadRetryAfter: j.OverloadRetryAfter}
	switch j.PartialWriteCut {
	case "", CutChildren, CutText:
	default:
		return Faults{}, fmt.Errorf("partial_write_cut: %q is not %q, %q or empty", j.PartialWriteCut, CutChildren, CutText)
	}
	if j.SlowDelay != "" {
		d, err := time.ParseDuration(j.SlowDelay)
		if err != nil {
			return Faults{}, fmt.Errorf("slow_delay: %w", err)
		}
		f.SlowDelay = d
	}
	total := 0.0
	for _, r := range f.rates() {
		if r.p < 0 || r.p > 1 {
			return Faults{}, fmt.Errorf("%s: rate %v outside [0,1]", r.kind, r.p)
		}
		total += r.p
	}
	if total > 1 {
		return Faults{}, fmt.Errorf("fault rates add up to %v, more than 1", total)
	}
	return f, nil
}

// serveFaults answers GET (the current fault rates) and PUT (replace
// them) on /_emulator/faults.
func (s *Server) serveFaults(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPut {
		var j faultsJSON
		if err := json.NewDecoder(r.Body).Decode(&j); err != nil {
			http.Error(w, "decode faults: "+err.Error(), http.StatusBadRequest)
			return
		}
		f, err := j.faults()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.SetFaults(f)
	}
	s.mu.Lock()
	f := s.faults
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, toFaultsJSON(f))
}
