package graph

import (
	"crypto/ecdsa"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// treeSpec has section groups nested four deep, two per level.
var treeSpec = GenSpec{Notebooks: 2, GroupDepth: 4, GroupsPerLevel: 2, SectionsPerContainer: 2, PagesPerSection: 1}

// keys returns the sorted keys of m.
func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestExpandNestsTwoLevelsAtMost(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, treeSpec)
	nbs := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/notebooks").Body.Bytes()).Value
	groups := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/notebooks/"+nbs[0].ID+"/sectionGroups").Body.Bytes()).Value
	for _, tc := range []struct {
		path, expand string
		code         string // "" for 200
	}{
		{"/notebooks", "sections,sectionGroups($expand=sections)", ""},
		{"/notebooks", "sections($select=id,displayName),sectionGroups($select=id,displayName;$expand=sections($select=id,displayName))", ""},
		{"/notebooks", "sectionGroups($expand=sectionGroups,sections)", ""},
		{"/notebooks/" + nbs[0].ID, "sections,sectionGroups($expand=sections)", ""},
		{"/sectionGroups/" + groups[0].ID, "sections,sectionGroups($expand=sections)", ""},
		{"/notebooks/" + nbs[0].ID + "/sectionGroups", "sections,sectionGroups($expand=sections)", ""},
		{"/sections/" + f.firstSection("alice"), "parentNotebook($select=id)", ""},
		// A third level, in any form, and $levels answer 400.
		{"/notebooks", "sections,sectionGroups($expand=sections,sectionGroups($expand=sections))", "20143"},
		{"/notebooks", "sectionGroups($expand=sectionGroups($expand=sectionGroups))", "20143"},
		{"/notebooks", "sections,sectionGroups($expand=sections,sectionGroups(levels=max;expand=sections))", "20143"},
		{"/notebooks", "sectionGroups($levels=max)", "20143"},
		{"/notebooks/" + nbs[0].ID, "sectionGroups($expand=sectionGroups($expand=sections))", "20143"},
		{"/sectionGroups/" + groups[0].ID, "sectionGroups($expand=sectionGroups($expand=sections))", "20143"},
		{"/notebooks", "pages", "20145"},
		{"/notebooks", "sections($expand=parentNotebook)", "20142"},
		{"/notebooks", "sections($top=1)", "20108"},
	} {
		rec := f.get(t, "alice", "/v1.0/me/onenote"+tc.path+"?$expand="+tc.expand)
		switch {
		case tc.code == "" && rec.Code != http.StatusOK:
			t.Errorf("%s?$expand=%s: %d %s, want 200", tc.path, tc.expand, rec.Code, rec.Body)
		case tc.code != "" && (rec.Code != http.StatusBadRequest || graphErrorCode(t, rec.Body.Bytes()) != tc.code):
			t.Errorf("%s?$expand=%s: %d %s, want 400 %s", tc.path, tc.expand, rec.Code, rec.Body, tc.code)
		}
	}
}

func TestSelectTrimsNestedObjects(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, treeSpec)
	full := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$expand=sections,sectionGroups($expand=sections)")
	rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$select=id,displayName&$expand=sections($select=id,displayName),sectionGroups($select=id,displayName;$expand=sections($select=id,displayName,lastModifiedDateTime))")
	if rec.Code != http.StatusOK {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if full.Body.Len() < 3*rec.Body.Len() {
		t.Errorf("$select in every clause: %d bytes against %d without; want far smaller", rec.Body.Len(), full.Body.Len())
	}
	type obj = map[string]any
	nbs := decode[struct{ Value []obj }](t, rec.Body.Bytes()).Value
	if len(nbs) != 2 {
		t.Fatalf("%d notebooks", len(nbs))
	}
	for _, nb := range nbs {
		if got := keys(nb); !slices.Equal(got, []string{"displayName", "id", "sectionGroups", "sections"}) {
			t.Errorf("notebook fields %v", got)
		}
		for _, s := range nb["sections"].([]any) {
			if got := keys(s.(obj)); !slices.Equal(got, []string{"displayName", "id"}) {
				t.Errorf("section fields %v", got)
			}
		}
		for _, g := range nb["sectionGroups"].([]any) {
			if got := keys(g.(obj)); !slices.Equal(got, []string{"displayName", "id", "sections"}) {
				t.Errorf("section group fields %v", got)
			}
			for _, s := range g.(obj)["sections"].([]any) {
				if got := keys(s.(obj)); !slices.Equal(got, []string{"displayName", "id", "lastModifiedDateTime"}) {
					t.Errorf("nested section fields %v", got)
				}
			}
		}
	}
}

// TestDeepSectionGroupsOneRequestEach walks a four-deep tree with the
// per-container endpoints: every container answers its own children, and
// each call counts as one request.
func TestDeepSectionGroupsOneRequestEach(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, treeSpec)
	calls := 0
	list := func(path string) []container {
		t.Helper()
		calls++
		rec := f.get(t, "alice", path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		return decode[struct{ Value []container }](t, rec.Body.Bytes()).Value
	}
	sections, groups, deepest := 0, 0, 0
	var walk func(kind, id string, depth int)
	walk = func(kind, id string, depth int) {
		deepest = max(deepest, depth)
		sections += len(list("/v1.0/me/onenote/" + kind + "/" + id + "/sections"))
		for _, g := range list("/v1.0/me/onenote/" + kind + "/" + id + "/sectionGroups") {
			groups++
			walk("sectionGroups", g.ID, depth+1)
		}
	}
	for _, nb := range list("/v1.0/me/onenote/notebooks") {
		walk("notebooks", nb.ID, 0)
	}
	// Per notebook: groups 2+4+8+16 = 30, sections 2*(1+30) = 62.
	if sections != 2*62 || groups != 2*30 || deepest != 4 {
		t.Errorf("walk found %d sections, %d groups, depth %d; want 124, 60, 4", sections, groups, deepest)
	}
	if got := f.srv.Stats().Users["alice"].Requests; got != int64(calls) {
		t.Errorf("server counted %d requests for %d calls", got, calls)
	}
	// Child lists sort by name by default.
	for _, nb := range list("/v1.0/me/onenote/notebooks") {
		for _, kind := range []string{"sections", "sectionGroups"} {
			items := list("/v1.0/me/onenote/notebooks/" + nb.ID + "/" + kind)
			if !slices.IsSortedFunc(items, func(a, b container) int {
				return strings.Compare(strings.ToLower(a.DisplayName), strings.ToLower(b.DisplayName))
			}) {
				t.Errorf("%s of %s not sorted by name: %+v", kind, nb.ID, items)
			}
		}
	}
	// The child lists page with $top and $skip.
	nb := list("/v1.0/me/onenote/notebooks")[0].ID
	all := list("/v1.0/me/onenote/notebooks/" + nb + "/sectionGroups?$orderby=displayName")
	second := list("/v1.0/me/onenote/notebooks/" + nb + "/sectionGroups?$orderby=displayName&$top=1&$skip=1")
	if len(all) != 2 || len(second) != 1 || second[0].ID != all[1].ID {
		t.Errorf("$top=1&$skip=1 gave %+v of %+v", second, all)
	}
}

func TestAccountWideListsFailLikeGraph(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits(), AllPagesSectionLimit: 10}, treeSpec)
	for _, tc := range []struct {
		path   string
		status int
		code   string
	}{
		{"/v1.0/me/onenote/sections", 500, "19999"},
		{"/v1.0/me/onenote/sections?$select=id", 500, "19999"},
		{"/v1.0/me/onenote/sectionGroups", 500, "19999"},
		{"/v1.0/me/onenote/sectionGroups?$filter=displayName ne 'x'", 500, "19999"},
		{"/v1.0/users/alice/onenote/sectionGroups", 500, "19999"},
		{"/v1.0/me/onenote/pages", 400, "20266"},
		{"/v1.0/me/onenote/sections?$filter=displayName ne 'x'", 200, ""},
	} {
		for range 3 { // every time, not once
			rec := f.get(t, "alice", tc.path)
			if rec.Code != tc.status || (tc.code != "" && graphErrorCode(t, rec.Body.Bytes()) != tc.code) {
				t.Errorf("GET %s: %d %s, want %d %s", tc.path, rec.Code, rec.Body, tc.status, tc.code)
			}
		}
	}
	// $filter really filters.
	want := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/sections?$filter=displayName ne 'x'").Body.Bytes()).Value[3]
	got := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/sections?$filter=id eq '"+want.ID+"'").Body.Bytes()).Value
	if len(got) != 1 || got[0].ID != want.ID {
		t.Errorf("$filter=id eq %q gave %+v", want.ID, got)
	}
	lower := decode[struct{ Value []container }](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+want.ID+"/pages?$filter=tolower(title) ne 'x' and lastModifiedDateTime ge 2000-01-01T00:00:00Z").Body.Bytes()).Value
	if len(lower) != 1 {
		t.Errorf("tolower() and and: %+v", lower)
	}
}

// TestFilterQuirks: the account-wide $filter as a real account answered
// it ([M1], facts 33 and 34): tolower(displayName) eq on /sections is 500
// 19999 (unless Config.LenientToLower), displayName eq and contains() and
// startswith() answer, and an unquoted datetime comparison is accepted
// on a section's pages.
func TestFilterQuirks(t *testing.T) {
	strict := newFixture(t, Config{Limits: UnlimitedLimits()}, treeSpec)
	lenient := newFixture(t, Config{Limits: UnlimitedLimits(), LenientToLower: true}, treeSpec)
	secs := decode[struct{ Value []container }](t, strict.get(t, "alice", "/v1.0/me/onenote/sections?$filter=displayName ne 'x'").Body.Bytes()).Value
	nbs := decode[struct{ Value []container }](t, strict.get(t, "alice", "/v1.0/me/onenote/notebooks").Body.Bytes()).Value
	sec, nb := secs[3], nbs[1]
	count := func(list []container, keep func(container) bool) int {
		n := 0
		for _, c := range list {
			if keep(c) {
				n++
			}
		}
		return n
	}
	word := strings.ToLower(strings.Fields(sec.DisplayName)[0])
	withWord := count(secs, func(c container) bool { return strings.Contains(strings.ToLower(c.DisplayName), word) })
	prefix := nb.DisplayName[:3]
	withPrefix := count(nbs, func(c container) bool { return strings.HasPrefix(c.DisplayName, prefix) })

	secPages := decode[pageList](t, strict.get(t, "alice", "/v1.0/me/onenote/sections/"+sec.ID+"/pages").Body.Bytes()).Value
	lm := secPages[0].LastModifiedDateTime

	for _, tc := range []struct {
		name   string
		f      *fixture
		path   string
		status int
		code   string
		n      int // items in a 200
	}{
		{"tolower eq on /sections", strict, "/v1.0/me/onenote/sections?$filter=tolower(displayName) eq '" + strings.ToLower(sec.DisplayName) + "'", 500, "19999", 0},
		{"tolower eq and id eq", strict, "/v1.0/me/onenote/sections?$filter=tolower(displayName) eq '" + strings.ToLower(sec.DisplayName) + "' and id eq '" + sec.ID + "'", 500, "19999", 0},
		{"tolower eq, lenient", lenient, "/v1.0/me/onenote/sections?$filter=tolower(displayName) eq '" + strings.ToLower(sec.DisplayName) + "' and id eq '" + sec.ID + "'", 200, "", 1},
		{"displayName eq", strict, "/v1.0/me/onenote/sections?$filter=displayName eq '" + sec.DisplayName + "' and id eq '" + sec.ID + "'", 200, "", 1},
		{"contains(tolower())", strict, "/v1.0/me/onenote/sections?$filter=contains(tolower(displayName),'" + word + "')", 200, "", withWord},
		{"startswith on /notebooks", strict, "/v1.0/me/onenote/notebooks?$filter=startswith(displayName,'" + prefix + "')", 200, "", withPrefix},
		{"contains(tolower()) on /notebooks", strict, "/v1.0/me/onenote/notebooks?$filter=contains(tolower(displayName),'" + strings.ToLower(nb.DisplayName) + "')", 200, "", 1},
		{"unquoted datetime ge", strict, "/v1.0/me/onenote/sections/" + sec.ID + "/pages?$filter=lastModifiedDateTime ge " + lm, 200, "", 1},
		{"unquoted datetime gt", strict, "/v1.0/me/onenote/sections/" + sec.ID + "/pages?$filter=lastModifiedDateTime gt " + lm, 200, "", 0},
		{"unquoted datetime lt, far future", strict, "/v1.0/me/onenote/sections/" + sec.ID + "/pages?$filter=lastModifiedDateTime lt 2999-01-01T00:00:00Z", 200, "", 1},
		{"quoted datetime ge is refused", strict, "/v1.0/me/onenote/sections/" + sec.ID + "/pages?$filter=lastModifiedDateTime ge '" + lm + "'", 400, "20106", 0},
		{"unknown function", strict, "/v1.0/me/onenote/sections?$filter=endswith(displayName,'x')", 400, "20106", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := tc.f.get(t, "alice", tc.path)
			if rec.Code != tc.status || (tc.code != "" && graphErrorCode(t, rec.Body.Bytes()) != tc.code) {
				t.Fatalf("GET %s: %d %s, want %d %s", tc.path, rec.Code, rec.Body, tc.status, tc.code)
			}
			if tc.status == 200 {
				if got := decode[struct{ Value []any }](t, rec.Body.Bytes()).Value; len(got) != tc.n {
					t.Errorf("GET %s: %d items, want %d", tc.path, len(got), tc.n)
				}
			}
		})
	}
}

func TestExpandOutageFailsOnlyExpandedNotebookCalls(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits(), Seed: 3, TimeScale: 60}, GenSpec{Notebooks: 1, GroupDepth: 1, SectionsPerContainer: 1, PagesPerSection: 1})
	f.srv.SetFaults(Faults{ExpandOutageRate: 0.3, ExpandOutage: 7 * time.Minute})
	const expanded = "/v1.0/me/onenote/notebooks?$expand=sections,sectionGroups($expand=sections)"
	var outageStart time.Time
	failed, recovered := 0, false
	for range 120 {
		if rec := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$select=id,displayName"); rec.Code != http.StatusOK {
			t.Fatalf("un-expanded call during the test: %d %s", rec.Code, rec.Body)
		}
		rec := f.get(t, "alice", expanded)
		now := f.clock.Now()
		inOutage := !outageStart.IsZero() && now.Sub(outageStart) < 7*time.Second // 7 min at TimeScale 60
		switch {
		case rec.Code == http.StatusInternalServerError && graphErrorCode(t, rec.Body.Bytes()) == "19999":
			failed++
			if !inOutage {
				outageStart = now
			}
		case rec.Code == http.StatusOK:
			if inOutage {
				t.Fatalf("expanded call %v into an outage answered 200", now.Sub(outageStart))
			}
			if failed > 0 {
				recovered = true
			}
		default:
			t.Fatalf("expanded call: %d %s", rec.Code, rec.Body)
		}
		f.clock.Advance(time.Second)
	}
	if failed == 0 || !recovered {
		t.Errorf("%d expanded calls failed, recovered %v: want an outage and a recovery", failed, recovered)
	}
}

func TestLockedSections(t *testing.T) {
	spec := GenSpec{Seed: 4, Notebooks: 1, SectionsPerContainer: 3, PagesPerSection: 2, ImagesPerPage: 1, LockedSections: 1}
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, spec)
	f.srv.dataMu.RLock()
	order := f.srv.users["alice"].sectionOrder
	locked, open := order[2].section, order[0].section
	page := locked.Pages[0].ID
	f.srv.dataMu.RUnlock()
	if !locked.PasswordProtected || open.PasswordProtected {
		t.Fatalf("LockedSections: 1 should lock the last section only")
	}
	res := f.srv.PageResources(page)[0].ID
	// Still in the tree.
	tree := f.get(t, "alice", "/v1.0/me/onenote/notebooks?$expand=sections")
	if !strings.Contains(tree.Body.String(), locked.ID) {
		t.Errorf("a locked section is missing from the tree")
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/sections/"+locked.ID); rec.Code != http.StatusOK {
		t.Errorf("GET a locked section's metadata: %d", rec.Code)
	}
	lockedPaths := []string{
		"/v1.0/me/onenote/sections/" + locked.ID + "/pages",
		"/v1.0/me/onenote/pages/" + page,
		"/v1.0/me/onenote/pages/" + page + "/content",
		"/v1.0/me/onenote/resources/" + res + "/$value",
		"/v1.0/me/onenote/resources/" + res + "/content",
	}
	check := func(wantLocked bool) {
		t.Helper()
		for _, p := range lockedPaths {
			rec := f.get(t, "alice", p)
			if !wantLocked {
				if rec.Code != http.StatusOK {
					t.Errorf("GET %s unlocked: %d", p, rec.Code)
				}
				continue
			}
			var e struct {
				Error struct{ Code, Message string }
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &e)
			if rec.Code != http.StatusForbidden || e.Error.Code != "20185" || e.Error.Message != "Encrypted sections are not accessible." {
				t.Errorf("GET %s locked: %d %s, want 403 20185", p, rec.Code, rec.Body)
			}
		}
	}
	check(true)
	post := func(path string) int {
		rec := f.do(t, "", http.MethodPost, path, "")
		return rec.Code
	}
	if code := post("/_emulator/sections/" + locked.ID + "/unlock"); code != http.StatusNoContent {
		t.Fatalf("unlock endpoint: %d", code)
	}
	check(false)
	if code := post("/_emulator/sections/" + locked.ID + "/lock"); code != http.StatusNoContent {
		t.Fatalf("lock endpoint: %d", code)
	}
	check(true)
	if err := f.srv.LockSection(locked.ID, false); err != nil {
		t.Fatal(err)
	}
	check(false)
	if err := f.srv.LockSection("nope", true); err == nil {
		t.Error("LockSection of an unknown section: no error")
	}
	if code := post("/_emulator/sections/nope/lock"); code != http.StatusBadRequest {
		t.Errorf("lock endpoint, unknown section: %d", code)
	}
}

func TestHTTPSAbsoluteURLs(t *testing.T) {
	srv := NewServer(Config{Limits: UnlimitedLimits(), Seed: 1})
	srv.AddNotebooks("alice", Generate(GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 25, ImagesPerPage: 1, AttachmentsPerPage: 1})...)
	tok := srv.IssueToken("alice", []string{"Notes.Read"}, time.Hour)
	ts, cert := NewTLSTestServer(t, srv)
	if !strings.HasPrefix(ts.URL, "https://127.0.0.1:") {
		t.Fatalf("ts.URL %s", ts.URL)
	}
	leaf := cert.Certificate.Leaf
	if _, ok := leaf.PublicKey.(*ecdsa.PublicKey); !ok || !slices.Contains(leaf.DNSNames, "localhost") || len(leaf.IPAddresses) != 2 || !leaf.IPAddresses[1].Equal(net.IPv6loopback) {
		t.Errorf("certificate: key %T, DNS %v, IPs %v", leaf.PublicKey, leaf.DNSNames, leaf.IPAddresses)
	}
	get := func(url string) string {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := cert.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
		}
		return string(b)
	}
	body := get(ts.URL + "/v1.0/me/onenote/notebooks?$expand=sections")
	sec := regexp.MustCompile(`"pagesUrl":"([^"]+)"`).FindStringSubmatch(body)
	if sec == nil || !strings.HasPrefix(sec[1], ts.URL+"/v1.0/me/onenote/sections/") {
		t.Fatalf("pagesUrl %v, want under %s", sec, ts.URL)
	}
	pages := decode[pageList](t, []byte(get(sec[1])))
	if !strings.HasPrefix(pages.NextLink, ts.URL+"/") || !strings.HasPrefix(pages.Value[0].ContentURL, ts.URL+"/") {
		t.Errorf("nextLink %q contentUrl %q, want https under %s", pages.NextLink, pages.Value[0].ContentURL, ts.URL)
	}
	if !strings.HasPrefix(pages.Value[0].Links.OneNoteWebURL.Href, "https://") {
		t.Errorf("oneNoteWebUrl %q is not https", pages.Value[0].Links.OneNoteWebURL.Href)
	}
	html := get(pages.Value[0].ContentURL)
	for _, m := range regexp.MustCompile(`(?:src|data)="(http[^"]*/resources/[^"]+)"`).FindAllStringSubmatch(html, -1) {
		if !strings.HasPrefix(m[1], ts.URL+"/v1.0/me/onenote/resources/") {
			t.Errorf("resource URL %s, want under %s", m[1], ts.URL)
		}
		get(m[1])
	}
	// Plain HTTP stays the default.
	rec := newFixture(t, Config{}, GenSpec{Notebooks: 1}).get(t, "alice", "/v1.0/me/onenote/notebooks")
	if !strings.Contains(rec.Body.String(), `"self":"http://graph.test/`) {
		t.Errorf("plain request: %.200s", rec.Body)
	}
}
