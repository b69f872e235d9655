package notion

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestInjectedFaults(t *testing.T) {
	cases := []struct {
		kind   Fault
		status int
		code   string
	}{
		{FaultInternalError, 500, "internal_server_error"},
		{FaultBadGateway, 502, ""},
		{FaultUnavailable, 503, "service_unavailable"},
		{FaultGatewayTimeout, 504, "gateway_timeout"},
		{FaultConflict, 409, "conflict_error"},
		{FaultOverload, 529, "service_overload"},
	}
	for _, c := range cases {
		t.Run(c.kind.String(), func(t *testing.T) {
			e := newEnv(t, Config{})
			e.srv.InjectFault(c.kind, 1)
			r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()}})
			if r.status != c.status {
				t.Fatalf("status %d, want %d", r.status, c.status)
			}
			if c.kind == FaultBadGateway {
				if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(r.raw), "<html>") {
					t.Errorf("502 should be HTML, got %q: %s", ct, r.raw)
				}
			} else if r.code() != c.code {
				t.Errorf("code %q, want %q", r.code(), c.code)
			}
			if c.kind == FaultOverload && r.header.Get("Retry-After") != "1" {
				t.Errorf("529 Retry-After = %q", r.header.Get("Retry-After"))
			}
			// Nothing was written, and the next request (after any
			// Retry-After) is served normally.
			e.clock.Advance(time.Second)
			if n := len(e.listAll(e.srv.RootPageID(), 100)); n != 0 {
				t.Errorf("faulted write was applied: %d children", n)
			}
		})
	}
}

func TestAppliedThenErrorFaults(t *testing.T) {
	for _, c := range []struct {
		kind   Fault
		status int
	}{{FaultAppliedThenInternalError, 500}, {FaultAppliedThenGatewayTimeout, 504}} {
		t.Run(c.kind.String(), func(t *testing.T) {
			e := newEnv(t, Config{})
			e.srv.InjectFault(c.kind, 1)
			// Reads are not eligible: the fault waits for a write.
			e.ok("GET", "/v1/users/me", nil)
			r := e.do("POST", "/v1/pages", map[string]any{
				"parent":     map[string]any{"page_id": e.srv.RootPageID()},
				"properties": map[string]any{"title": []any{text("Written anyway")}},
			})
			if r.status != c.status {
				t.Fatalf("status %d, want %d", r.status, c.status)
			}
			ws := e.srv.Export()
			subs := ws.Pages[0].Pages
			if len(subs) != 1 || subs[0].Title != "Written anyway" {
				t.Fatalf("the write was not applied: %+v", subs)
			}
		})
	}
}

func TestSlowFault(t *testing.T) {
	var slept []time.Duration
	e := newEnv(t, Config{Sleep: func(_ context.Context, d time.Duration) { slept = append(slept, d) }})
	e.srv.SetFaults(Faults{Slow: 1, SlowDelay: 3 * time.Second})
	if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
		t.Fatalf("slow request failed: %d", r.status)
	}
	if len(slept) != 1 || slept[0] != 3*time.Second {
		t.Errorf("slept %v, want one 3s delay", slept)
	}
}

func TestRandomFaultsAreSeeded(t *testing.T) {
	run := func(seed uint64) []int {
		e := newEnv(t, Config{Seed: seed, Faults: Faults{InternalError: 0.2, BadGateway: 0.1, Conflict: 0.1}})
		var statuses []int
		for range 40 {
			statuses = append(statuses, e.do("GET", "/v1/users/me", nil).status)
		}
		return statuses
	}
	a, b := run(7), run(7)
	failures := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different faults at %d: %v vs %v", i, a, b)
		}
		if a[i] != http.StatusOK {
			failures++
		}
	}
	if failures == 0 || failures == len(a) {
		t.Errorf("fault rate 0.4 gave %d failures in %d requests", failures, len(a))
	}
}

func TestFaultsEndpoint(t *testing.T) {
	e := newEnv(t, Config{})
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("PUT", "http://notion.test/_emulator/faults",
		strings.NewReader(`{"conflict":1,"slow_delay":"5ms"}`)))
	if rec.Code != 200 {
		t.Fatalf("PUT faults: %d %s", rec.Code, rec.Body)
	}
	if r := e.do("GET", "/v1/users/me", nil); r.status != 409 {
		t.Errorf("after switching conflicts on: %d", r.status)
	}
	rec = httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("PUT", "http://notion.test/_emulator/faults", strings.NewReader(`{"conflict":0.7,"slow":0.7}`)))
	if rec.Code != 400 {
		t.Errorf("rates over 1 accepted: %d", rec.Code)
	}
}
