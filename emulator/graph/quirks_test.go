package graph

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

func TestIgnoreSkipRepeatsTheFirstWindowButNextLinkWorks(t *testing.T) {
	f, path := bigSection(t)
	f.srv.SetFaults(Faults{IgnoreSkip: true})
	first := decode[pageList](t, f.get(t, "alice", path+"?$top=100&$skip=0").Body.Bytes())
	second := decode[pageList](t, f.get(t, "alice", path+"?$top=100&$skip=100").Body.Bytes())
	if len(first.Value) != 100 || len(second.Value) != 100 || first.Value[0].ID != second.Value[0].ID {
		t.Fatalf("with IgnoreSkip, $skip=100 should repeat the first window: %d and %d pages", len(first.Value), len(second.Value))
	}
	seen := map[string]bool{}
	next := path
	for next != "" {
		pl := decode[pageList](t, f.get(t, "alice", next).Body.Bytes())
		for _, p := range pl.Value {
			if seen[p.ID] {
				t.Fatalf("page %s listed twice through nextLink", p.ID)
			}
			seen[p.ID] = true
		}
		next = strings.TrimPrefix(pl.NextLink, "http://graph.test")
	}
	if len(seen) != 250 {
		t.Errorf("nextLink paging listed %d pages with IgnoreSkip on, want 250", len(seen))
	}
}

func TestPasswordProtectedSection(t *testing.T) {
	f, path := bigSection(t)
	pages := decode[pageList](t, f.get(t, "alice", path+"?$top=5").Body.Bytes())
	if err := f.srv.LockSection(f.firstSection("alice"), true); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, "/v1.0/me/onenote/pages/" + pages.Value[0].ID + "/content", "/v1.0/me/onenote/pages/" + pages.Value[0].ID} {
		rec := f.get(t, "alice", p)
		if rec.Code != http.StatusForbidden || graphErrorCode(t, rec.Body.Bytes()) != "20185" {
			t.Errorf("GET %s in a protected section: %d %s, want 403 20185", p, rec.Code, rec.Body)
		}
	}
	if err := f.srv.LockSection(f.firstSection("alice"), false); err != nil {
		t.Fatal(err)
	}
	if rec := f.get(t, "alice", path); rec.Code != http.StatusOK {
		t.Errorf("after unlocking: %d", rec.Code)
	}
	if err := f.srv.LockSection("nope", true); err == nil {
		t.Error("protecting an unknown section is not an error")
	}
}

func TestAfterListingFaultsHitOnce(t *testing.T) {
	f, path := bigSection(t)
	pl := decode[pageList](t, f.get(t, "alice", path+"?$top=3").Body.Bytes())
	gone, changed := pl.Value[0].ID, pl.Value[1].ID
	f.srv.SetFaults(Faults{DeleteAfterListing: []string{gone}, TouchAfterListing: []string{changed}})
	before := pl.Value[1].LastModifiedDateTime
	f.clock.Advance(61_000_000_000)
	f.get(t, "alice", path+"?$top=3")
	if rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+gone+"/content"); rec.Code != http.StatusNotFound {
		t.Errorf("page deleted after listing: content %d, want 404", rec.Code)
	}
	page := decode[struct {
		LastModifiedDateTime string `json:"lastModifiedDateTime"`
	}](t, f.get(t, "alice", "/v1.0/me/onenote/pages/"+changed).Body.Bytes())
	if page.LastModifiedDateTime == before {
		t.Errorf("page touched after listing still reports %s", before)
	}
	again := decode[pageList](t, f.get(t, "alice", path+"?$top=100").Body.Bytes())
	for _, p := range again.Value {
		if p.ID == gone {
			t.Error("deleted page still listed")
		}
		if p.ID == changed && p.LastModifiedDateTime != page.LastModifiedDateTime {
			t.Error("touched twice: the fault should hit once")
		}
	}
}

func TestThrottleFaultAndRemovedResource(t *testing.T) {
	f, path := bigSection(t)
	f.srv.SetFaults(Faults{ThrottleRate: 1})
	rec := f.get(t, "alice", path)
	if rec.Code != http.StatusTooManyRequests || graphErrorCode(t, rec.Body.Bytes()) != "20166" || rec.Header().Get("Retry-After") != "" {
		t.Errorf("throttle fault: %d %s", rec.Code, rec.Body)
	}
	f = newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 2, Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2, ImagesPerPage: 1})
	path = "/v1.0/me/onenote/sections/" + f.firstSection("alice") + "/pages"
	pl := decode[pageList](t, f.get(t, "alice", path+"?$top=1").Body.Bytes())
	res := f.srv.PageResources(pl.Value[0].ID)
	if len(res) == 0 {
		t.Fatal("generated page has no resources")
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/resources/"+res[0].ID+"/$value"); rec.Code != http.StatusOK {
		t.Fatalf("resource: %d", rec.Code)
	}
	if err := f.srv.RemoveResource(res[0].ID); err != nil {
		t.Fatal(err)
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/resources/"+res[0].ID+"/$value"); rec.Code != http.StatusNotFound {
		t.Errorf("removed resource: %d, want 404", rec.Code)
	}
	secrets := f.srv.IssuedSecrets()
	if !slices.Contains(secrets, f.tokens["alice"]) {
		t.Errorf("IssuedSecrets does not list alice's token")
	}
}
