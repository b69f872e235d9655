package graph

import (
	"net/http"
	"slices"
	"testing"
)

// TestLogRecordsPath: every request in the log carries its path and
// query, $batch steps their own url, and GET /_emulator/log shows them.
func TestLogRecordsPath(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 2, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1})
	sec := f.firstSection("alice")
	f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec+"/pages?pagelevel=true&$top=5")
	f.get(t, "bob", "/v1.0/me/onenote/notebooks/nope")
	f.batch(t, "alice", []batchItem{{ID: "1", Method: "GET", URL: "/me/onenote/notebooks?$select=id"}})
	var paths []string
	for _, e := range f.srv.Log() {
		paths = append(paths, e.User+" "+e.Path)
	}
	want := []string{
		"alice /v1.0/me/onenote/sections/" + sec + "/pages?pagelevel=true&$top=5",
		"bob /v1.0/me/onenote/notebooks/nope",
		"alice /v1.0/me/onenote/notebooks?$select=id",
	}
	if !slices.Equal(paths, want) {
		t.Errorf("logged paths %q, want %q", paths, want)
	}
	rec := f.get(t, "", "/_emulator/log")
	logged := decode[[]LogEntry](t, rec.Body.Bytes())
	if rec.Code != http.StatusOK || len(logged) != 3 || logged[1].Path != "/v1.0/me/onenote/notebooks/nope" || logged[1].Status != http.StatusNotFound {
		t.Errorf("GET /_emulator/log: %d %s", rec.Code, rec.Body)
	}
}
