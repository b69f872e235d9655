package graph

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestAddPageAndTimestampWobble: a page added through the control
// endpoint is listed at the end of its section with a fresh timestamp, and
// a shift moves only lastModifiedDateTime: the content stays byte for byte
// (reference fact 24).
func TestAddPageAndTimestampWobble(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 4, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2})
	sec := f.firstSection("alice")
	list := func() pageList {
		t.Helper()
		return decode[pageList](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec+"/pages?pagelevel=true").Body.Bytes())
	}
	f.clock.Advance(time.Hour)
	rec := f.do(t, "", http.MethodPost, "/_emulator/sections/"+sec+"/add?title=Fresh%20page&body=Hello", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("add endpoint: %d %s", rec.Code, rec.Body)
	}
	added := decode[struct{ ID string }](t, rec.Body.Bytes()).ID
	if m := pageIDPattern.FindStringSubmatch(added); m == nil {
		t.Errorf("added page id %s is not shaped like a real one", added)
	}
	pages := list().Value
	var found bool
	for _, p := range pages {
		if p.ID == added {
			found = true
			if p.Title != "Fresh page" || p.LastModifiedDateTime != graphTime(f.clock.Now()) {
				t.Errorf("added page: %q %s, want %q %s", p.Title, p.LastModifiedDateTime, "Fresh page", graphTime(f.clock.Now()))
			}
		}
	}
	if !found || len(pages) != 3 {
		t.Fatalf("added page listed: %v, %d pages", found, len(pages))
	}
	if html := readAll(t, f.content(t, "alice", added, "").Body); !strings.Contains(html, "<p>Hello</p>") {
		t.Errorf("added page content: %s", html)
	}

	target := pages[0]
	before := readAll(t, f.content(t, "alice", target.ID, "").Body)
	if rec := f.do(t, "", http.MethodPost, "/_emulator/pages/"+target.ID+"/shift?by=1s", ""); rec.Code != http.StatusNoContent {
		t.Fatalf("shift endpoint: %d %s", rec.Code, rec.Body)
	}
	for _, p := range list().Value {
		if p.ID != target.ID {
			continue
		}
		was, _ := time.Parse(time.RFC3339, target.LastModifiedDateTime)
		if p.LastModifiedDateTime != graphTime(was.Add(time.Second)) || p.Title != target.Title {
			t.Errorf("after the shift: %q %s, want %q %s", p.Title, p.LastModifiedDateTime, target.Title, graphTime(was.Add(time.Second)))
		}
	}
	if after := readAll(t, f.content(t, "alice", target.ID, "").Body); after != before {
		t.Error("a timestamp shift changed the page's content")
	}
	if err := f.srv.ShiftTimestamp("nope", time.Second); err == nil {
		t.Error("ShiftTimestamp of an unknown page: no error")
	}
	if _, err := f.srv.AddPage("nope", "x", ""); err == nil {
		t.Error("AddPage to an unknown section: no error")
	}
}
