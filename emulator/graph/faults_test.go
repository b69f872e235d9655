package graph

import (
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// faultRun sends n sequential page GETs and returns "status/code" for each.
func faultRun(t *testing.T, seed uint64, faults Faults, n int) []string {
	t.Helper()
	f := newFixture(t, Config{Seed: seed}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})
	page := "/v1.0/me/onenote/pages/" + f.srv.PageIDs("alice")[0]
	f.srv.SetFaults(faults)
	out := make([]string, n)
	for i := range out {
		rec := f.get(t, "alice", page)
		out[i] = http.StatusText(rec.Code)
		if rec.Code != http.StatusOK {
			out[i] += "/" + graphErrorCode(t, rec.Body.Bytes())
		}
		f.clock.Advance(time.Second) // stay under the limits
	}
	return out
}

func TestFaultsAreDeterministic(t *testing.T) {
	faults := Faults{ServerErrorRate: 0.2, ServerErrorBurst: 3, BadRequestRate: 0.05}
	a := faultRun(t, 11, faults, 90)
	b := faultRun(t, 11, faults, 90)
	c := faultRun(t, 12, faults, 90)
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("different seeds, same faults")
	}
	allowed := map[string]bool{
		"OK": true, "Bad Request/BadRequest": true,
		"Internal Server Error/10001": true, "Bad Gateway/10001": true,
		"Service Unavailable/10002": true, "Gateway Timeout/10007": true,
	}
	failed := 0
	for i, s := range a {
		if !allowed[s] {
			t.Errorf("request %d: unexpected %s", i, s)
		}
		if s != "OK" && s != "Bad Request/BadRequest" {
			failed++
		}
	}
	// Server errors come in whole bursts of 3 (aligned blocks).
	if failed == 0 || failed%3 != 0 {
		t.Errorf("%d server errors, want a positive multiple of the burst length 3: %v", failed, a)
	}
	if got := faultRun(t, 11, Faults{}, 20); slices.ContainsFunc(got, func(s string) bool { return s != "OK" }) {
		t.Errorf("no faults configured, got %v", got)
	}
}

func TestTruncatedBodyOverTCP(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	get := func() ([]byte, error) {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+"/v1.0/me/onenote/pages/"+f.srv.PageIDs("alice")[0]+"/content", nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens["alice"])
		resp, err := ts.Client().Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		return io.ReadAll(resp.Body)
	}
	f.srv.SetFaults(Faults{TruncateRate: 1})
	if body, err := get(); err == nil {
		t.Errorf("truncated response read without error (%d bytes)", len(body))
	}
	f.srv.ClearFaults()
	if _, err := get(); err != nil {
		t.Errorf("after ClearFaults: %v", err)
	}
}

func TestSlowResponses(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{SlowRate: 1, SlowDelay: 50 * time.Millisecond})
	start := time.Now()
	f.burst(t, "alice", 1, 0, http.StatusOK)
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("slow response took %v, want >= 50ms", d)
	}
}

func TestLibraryLimitFaults(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 2, SectionsPerContainer: 1, PagesPerSection: 1})
	f.srv.SetFaults(Faults{LibraryLimitUsers: []string{"alice"}})
	if rec := f.get(t, "alice", notebooksPath); rec.Code != http.StatusForbidden || graphErrorCode(t, rec.Body.Bytes()) != "10008" {
		t.Errorf("limited user: %d %s", rec.Code, rec.Body)
	}
	f.burst(t, "bob", 1, 0, http.StatusOK)

	f.srv.dataMu.RLock()
	limited := f.srv.users["bob"].notebooks[0]
	other := f.srv.users["bob"].notebooks[1]
	f.srv.dataMu.RUnlock()
	f.srv.SetFaults(Faults{LibraryLimitNotebooks: []string{limited.ID}})
	for _, tc := range []struct {
		path string
		want int
	}{
		{"/v1.0/me/onenote/notebooks/" + limited.ID, 403},
		{"/v1.0/me/onenote/sections/" + limited.Sections[0].ID + "/pages", 403},
		{"/v1.0/me/onenote/pages/" + limited.Sections[0].Pages[0].ID + "/content", 403},
		{"/v1.0/me/onenote/notebooks/" + other.ID, 200},
		{"/v1.0/me/onenote/pages/" + other.Sections[0].Pages[0].ID + "/content", 200},
	} {
		if rec := f.get(t, "bob", tc.path); rec.Code != tc.want {
			t.Errorf("GET %s: %d, want %d", tc.path, rec.Code, tc.want)
		}
	}
}

func TestTokenExpiryFault(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{TokenExpiryRate: 1})
	f.burst(t, "alice", 1, 0, http.StatusUnauthorized)
	f.srv.ClearFaults()
	f.burst(t, "alice", 1, 0, http.StatusUnauthorized) // the token stays expired
	f.burst(t, "bob", 1, 0, http.StatusOK)
}
