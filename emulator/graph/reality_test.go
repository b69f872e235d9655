package graph

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// errorBody is the full shape of a Graph error body.
type errorBody struct {
	Error map[string]json.RawMessage `json:"error"`
}

func TestThrottleBodiesAreExactlyGraphs(t *testing.T) {
	one := Limits{User: ScopeLimits{Windows: []Window{{N: 1, Duration: time.Minute}}}}
	f := newFixture(t, Config{Limits: one}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 1, ImagesPerPage: 1})
	res := f.srv.PageResources(f.srv.PageIDs("alice")[0])[0].ID
	send := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "http://graph.test"+path, nil)
		req.Header.Set("Authorization", "Bearer "+f.tokens["alice"])
		req.Header.Set("client-request-id", "c0ffee00-0000-4000-8000-000000000001")
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		return rec
	}
	send(notebooksPath) // spends the window
	for _, tc := range []struct {
		name, path, locale, message string
	}{
		{"page call", notebooksPath, "", "The app has issued too many requests on behalf of this user in a short time period."},
		{"resource download", "/v1.0/me/onenote/resources/" + res + "/$value", "", "Too may connections"},
		{"Dutch", notebooksPath, "nl", "De app heeft namens deze gebruiker in korte tijd te veel aanvragen verzonden."},
	} {
		f.srv.SetFaults(Faults{MessageLocale: tc.locale})
		rec := send(tc.path)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "" {
			t.Fatalf("%s: %d Retry-After %q, want 429 without", tc.name, rec.Code, rec.Header().Get("Retry-After"))
		}
		var b errorBody
		if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
			t.Fatal(err)
		}
		if got := keys(map[string]any{"code": 0, "message": 0, "innerError": 0}); !slices.Equal(sortedKeys(b.Error), got) {
			t.Errorf("%s: error members %v, want exactly %v (no @api.url)", tc.name, sortedKeys(b.Error), got)
		}
		var code, msg string
		_ = json.Unmarshal(b.Error["code"], &code)
		_ = json.Unmarshal(b.Error["message"], &msg)
		var inner map[string]string
		_ = json.Unmarshal(b.Error["innerError"], &inner)
		if code != "20166" || msg != tc.message {
			t.Errorf("%s: code %q message %q, want 20166 %q", tc.name, code, msg, tc.message)
		}
		if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$`).MatchString(inner["date"]) || inner["request-id"] == "" ||
			inner["client-request-id"] != "c0ffee00-0000-4000-8000-000000000001" || len(inner) != 3 {
			t.Errorf("%s: innerError %v", tc.name, inner)
		}
		if rec.Header().Get("client-request-id") != "c0ffee00-0000-4000-8000-000000000001" {
			t.Errorf("%s: client-request-id header %q", tc.name, rec.Header().Get("client-request-id"))
		}
	}
	// Other codes keep the documented @api.url link.
	f.srv.ClearFaults()
	rec := f.get(t, "bob", "/v1.0/me/onenote/pages/nope")
	if !strings.Contains(rec.Body.String(), `"@api.url"`) {
		t.Errorf("404 20102 without @api.url: %s", rec.Body)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestBurstRefusesWith10007ForTheCooldown: more than BurstConcurrency
// requests in flight at once draw 429 10007, and every request is refused
// until the (time-scaled) cooldown is over.
func TestBurstRefusesWith10007ForTheCooldown(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits(), TimeScale: 60}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{SlowRate: 1, SlowDelay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	held := make([]int, 3)
	for i := range held {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := httptest.NewRequestWithContext(ctx, http.MethodGet, "http://graph.test"+notebooksPath, nil)
			req.Header.Set("Authorization", "Bearer "+f.tokens["alice"])
			rec := httptest.NewRecorder()
			f.srv.ServeHTTP(rec, req)
			held[i] = rec.Code
		}()
	}
	for f.srv.Stats().InFlight < 3 {
		time.Sleep(time.Millisecond)
	}
	// Three are in flight (held by the slow fault); turn the burst on.
	f.srv.SetFaults(Faults{BurstConcurrency: 3, BurstCooldown: 3 * time.Minute})
	expect := func(user string, status int, code string) {
		t.Helper()
		rec := f.get(t, user, notebooksPath)
		if rec.Code != status || (code != "" && graphErrorCode(t, rec.Body.Bytes()) != code) {
			t.Errorf("%s: %d %s, want %d %s", user, rec.Code, rec.Body, status, code)
		}
	}
	expect("bob", http.StatusTooManyRequests, "10007") // the fourth at once
	cancel()
	wg.Wait()
	expect("alice", http.StatusTooManyRequests, "10007") // alone, but in the cooldown
	f.clock.Advance(2 * time.Second)
	expect("carol", http.StatusTooManyRequests, "10007")
	f.clock.Advance(time.Second + time.Millisecond) // 3 min at TimeScale 60
	expect("alice", http.StatusOK, "")
	if st := f.srv.Stats(); st.ByStatus[http.StatusTooManyRequests] != 3 {
		t.Errorf("refused requests counted %d, want 3", st.ByStatus[http.StatusTooManyRequests])
	}
}

var (
	pageIDPattern   = regexp.MustCompile(`^0-([0-9a-f]{32})!\d+-[0-9A-F]{16}!s([0-9a-f]{32})$`)
	wholeSecondTime = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
)

func TestPageIDsEmbedTheirSectionAndMovesRenumber(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 9, Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 3, ImagesPerPage: 1})
	f.srv.dataMu.RLock()
	from, to := f.srv.users["alice"].sectionOrder[0].section, f.srv.users["alice"].sectionOrder[1].section
	f.srv.dataMu.RUnlock()
	sectionHex := func(s *Section) string { return strings.ReplaceAll(s.GUID, "-", "") }
	list := func(sec *Section) pageList {
		t.Helper()
		return decode[pageList](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec.ID+"/pages").Body.Bytes())
	}
	meta := func(sec *Section) map[string]any {
		return decode[map[string]any](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec.ID).Body.Bytes())
	}
	before := list(from)
	for _, p := range before.Value {
		m := pageIDPattern.FindStringSubmatch(p.ID)
		if m == nil || m[2] != sectionHex(from) {
			t.Errorf("page id %s: want 0-<32 hex>!<n>-<OWNER>!s%s", p.ID, sectionHex(from))
		}
		if !wholeSecondTime.MatchString(p.LastModifiedDateTime) || !wholeSecondTime.MatchString(p.CreatedDateTime) {
			t.Errorf("timestamps %s %s: want whole seconds, no fraction", p.CreatedDateTime, p.LastModifiedDateTime)
		}
	}
	moved := before.Value[0]
	f.clock.Advance(90 * time.Second)
	rec := f.do(t, "", http.MethodPost, "/_emulator/pages/"+moved.ID+"/move?to="+to.ID, "")
	if rec.Code != http.StatusOK {
		t.Fatalf("move endpoint: %d %s", rec.Code, rec.Body)
	}
	newID := decode[struct{ ID string }](t, rec.Body.Bytes()).ID
	oldM, newM := pageIDPattern.FindStringSubmatch(moved.ID), pageIDPattern.FindStringSubmatch(newID)
	if newM == nil || newM[1] == oldM[1] || newM[2] != sectionHex(to) {
		t.Errorf("moved page id %s (was %s): want a new page part and the target's section part", newID, moved.ID)
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/pages/"+moved.ID); rec.Code != http.StatusNotFound {
		t.Errorf("old id after the move: %d, want 404", rec.Code)
	}
	res := f.srv.PageResources(newID)
	if len(res) != 1 {
		t.Fatalf("moved page has %d resources, want 1", len(res))
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/resources/"+res[0].ID+"/$value"); rec.Code != http.StatusOK {
		t.Errorf("moved page's resource: %d", rec.Code)
	}
	if err := f.srv.LockSection(to.ID, true); err != nil {
		t.Fatal(err)
	}
	if rec := f.get(t, "alice", "/v1.0/me/onenote/resources/"+res[0].ID+"/$value"); rec.Code != http.StatusForbidden {
		t.Errorf("moved page's resource in its now locked section: %d, want 403", rec.Code)
	}
	if err := f.srv.LockSection(to.ID, false); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, p := range list(to).Value {
		if p.ID == newID {
			found = true
			if p.LastModifiedDateTime != moved.LastModifiedDateTime {
				t.Errorf("moved page lastModifiedDateTime %s, want the old %s", p.LastModifiedDateTime, moved.LastModifiedDateTime)
			}
			if !strings.Contains(p.Links.OneNoteClientURL.Href, "page-id={"+pageGUIDOf(t, moved.Links.OneNoteClientURL.Href)+"}") {
				t.Errorf("moved page lost its page-id GUID: %s", p.Links.OneNoteClientURL.Href)
			}
		}
	}
	if !found || len(list(from).Value) != 2 {
		t.Errorf("after the move: found %v in the target, %d left in the source", found, len(list(from).Value))
	}
	now := graphTime(f.clock.Now())
	if meta(from)["lastModifiedDateTime"] != now || meta(to)["lastModifiedDateTime"] != now {
		t.Errorf("sections after a move: %v and %v, want %s", meta(from)["lastModifiedDateTime"], meta(to)["lastModifiedDateTime"], now)
	}
	if _, err := f.srv.MovePage("nope", to.ID); err == nil {
		t.Error("MovePage of an unknown page: no error")
	}
	if _, err := f.srv.MovePage(newID, "nope"); err == nil {
		t.Error("MovePage to an unknown section: no error")
	}

	// A rename changes the title, not lastModifiedDateTime.
	f.clock.Advance(time.Minute)
	renamed := list(from).Value[0]
	if rec := f.do(t, "", http.MethodPost, "/_emulator/pages/"+renamed.ID+"/rename?title=Renamed%20page", ""); rec.Code != http.StatusNoContent {
		t.Fatalf("rename endpoint: %d %s", rec.Code, rec.Body)
	}
	for _, p := range list(from).Value {
		if p.ID == renamed.ID && (p.Title != "Renamed page" || p.LastModifiedDateTime != renamed.LastModifiedDateTime) {
			t.Errorf("after rename: %q %s, want %q %s", p.Title, p.LastModifiedDateTime, "Renamed page", renamed.LastModifiedDateTime)
		}
	}
	if html := readAll(t, f.content(t, "alice", renamed.ID, "").Body); !strings.Contains(html, "<title>Renamed page</title>") {
		t.Errorf("content keeps the old title")
	}
	if meta(from)["lastModifiedDateTime"] != now {
		t.Errorf("a rename moved the section's lastModifiedDateTime")
	}

	// Edits and deletes roll up to the section.
	last := list(from).Value[0].ID
	for _, step := range []func(string) error{f.srv.TouchPage, f.srv.DeletePage} {
		f.clock.Advance(time.Minute + 300*time.Millisecond)
		if err := step(last); err != nil {
			t.Fatal(err)
		}
		if got, want := meta(from)["lastModifiedDateTime"], graphTime(f.clock.Now()); got != want {
			t.Errorf("section after an edit or delete: %v, want %s", got, want)
		}
	}
	// A deleted page's resources are gone with it.
	if rec := f.get(t, "alice", "/v1.0/me/onenote/resources/"+f.srv.PageResources(last)[0].ID+"/$value"); rec.Code != http.StatusNotFound {
		t.Errorf("resource of a deleted page: %d, want 404", rec.Code)
	}
}

func pageGUIDOf(t *testing.T, href string) string {
	t.Helper()
	m := regexp.MustCompile(`page-id=\{([0-9a-f-]{36})\}`).FindStringSubmatch(href)
	if m == nil {
		t.Fatalf("no page-id GUID in %q", href)
	}
	return m[1]
}

// TestClientURLsCarryThePageGUIDLinksUse: onenote: links in page HTML name
// pages by the page-id GUID of their oneNoteClientUrl, which is not the
// Graph page id ([M2]).
func TestClientURLsCarryThePageGUIDLinksUse(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Seed: 6, Notebooks: 1, SectionsPerContainer: 2, PagesPerSection: 10, LinksPerPage: 2})
	byGUID := map[string]string{}
	for _, sec := range []string{f.firstSection("alice")} {
		for _, p := range decode[pageList](t, f.get(t, "alice", "/v1.0/me/onenote/sections/"+sec+"/pages").Body.Bytes()).Value {
			g := pageGUIDOf(t, p.Links.OneNoteClientURL.Href)
			if strings.Contains(p.ID, strings.ReplaceAll(g, "-", "")) || strings.Contains(p.ID, g) {
				t.Errorf("page %s: its page-id GUID %s is part of the Graph id", p.ID, g)
			}
			if !strings.HasPrefix(p.Links.OneNoteWebURL.Href, "https://") {
				t.Errorf("oneNoteWebUrl %q is not https", p.Links.OneNoteWebURL.Href)
			}
			byGUID[g] = p.ID
		}
	}
	f.srv.dataMu.RLock()
	all := map[string]bool{}
	for _, ref := range f.srv.users["alice"].pages {
		all[ref.page.GUID] = true
	}
	f.srv.dataMu.RUnlock()
	html := readAll(t, f.content(t, "alice", f.srv.PageIDs("alice")[0], "").Body)
	links := regexp.MustCompile(`href="onenote:[^"]*page-id=\{([0-9a-f-]{36})\}`).FindAllStringSubmatch(html, -1)
	if len(links) != 2 {
		t.Fatalf("%d onenote: links, want 2", len(links))
	}
	for _, l := range links {
		if !all[l[1]] {
			t.Errorf("link to page-id %s names no page", l[1])
		}
	}
}

func TestGeneratedHTMLNamesResourceTypes(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, richSpec)
	for _, id := range f.srv.PageIDs("alice")[:3] {
		html := readAll(t, f.content(t, "alice", id, "").Body)
		imgs := regexp.MustCompile(`<img [^>]*>`).FindAllString(html, -1)
		objs := regexp.MustCompile(`<object [^>]*>`).FindAllString(html, -1)
		if len(imgs) == 0 || len(objs) == 0 {
			t.Fatalf("page %s: %d images, %d objects", id, len(imgs), len(objs))
		}
		for _, tag := range imgs {
			if !strings.Contains(tag, `data-src-type="image/`) || !strings.Contains(tag, `data-fullres-src-type="image/`) {
				t.Errorf("image without its types: %s", tag)
			}
		}
		for _, tag := range objs {
			if !strings.Contains(tag, ` type="application/pdf"`) {
				t.Errorf("object without its type: %s", tag)
			}
		}
	}
}

func TestGzipRequestBodies(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Notebooks: 1})
	send := func(encoding string, body []byte) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, "http://graph.test/v1.0/$batch", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+f.tokens["alice"])
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Content-Encoding", encoding)
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, req)
		return rec
	}
	plain := []byte(batchBody(t, batchOf(2, func(int) string { return "/me/onenote/notebooks" })))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write(plain)
	_ = zw.Close()
	corrupt := append([]byte(nil), zipped.Bytes()[:zipped.Len()/2]...)
	for _, tc := range []struct {
		name, encoding string
		body           []byte
		want           int
	}{
		{"gzip", "gzip", zipped.Bytes(), http.StatusOK},
		{"identity", "", plain, http.StatusOK},
		{"not gzip at all", "gzip", plain, http.StatusBadRequest},
		{"truncated gzip", "gzip", corrupt, http.StatusBadRequest},
		{"brotli", "br", plain, http.StatusUnsupportedMediaType},
	} {
		rec := send(tc.encoding, tc.body)
		if rec.Code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, rec.Code, rec.Body, tc.want)
		}
		if rec.Code == http.StatusOK && len(decode[struct{ Responses []batchResult }](t, rec.Body.Bytes()).Responses) != 2 {
			t.Errorf("%s: batch answered %s", tc.name, rec.Body)
		}
	}
}

// TestTokenReadsOnlyItsOwnUser: alice's token on bob's data is 403 or 404,
// never 200, through /me and through /users/{id}.
func TestTokenReadsOnlyItsOwnUser(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2, ImagesPerPage: 1})
	bobPage := f.srv.PageIDs("bob")[0]
	bobRes := f.srv.PageResources(bobPage)[0].ID
	bobSec := f.firstSection("bob")
	for _, root := range []string{"/v1.0/me/onenote", "/v1.0/users/bob/onenote", "/v1.0/users/" + UserGUID("bob") + "/onenote", "/v1.0/users/bob@contoso.example/onenote"} {
		for _, p := range []string{"/pages/" + bobPage, "/pages/" + bobPage + "/content", "/resources/" + bobRes + "/$value", "/resources/" + bobRes + "/content", "/sections/" + bobSec, "/sections/" + bobSec + "/pages"} {
			rec := f.get(t, "alice", root+p)
			if rec.Code != http.StatusForbidden && rec.Code != http.StatusNotFound {
				t.Errorf("alice GET %s%s: %d, want 403 or 404", root, p, rec.Code)
			}
		}
	}
	if rec := f.get(t, "alice", "/v1.0/users/bob/onenote/notebooks"); rec.Code != http.StatusForbidden || graphErrorCode(t, rec.Body.Bytes()) != "40003" {
		t.Errorf("alice lists bob's notebooks: %d %s, want 403 40003", rec.Code, rec.Body)
	}
	// Her own data through every form of her id.
	alicePage := f.srv.PageIDs("alice")[0]
	aliceRes := f.srv.PageResources(alicePage)[0].ID
	for _, root := range []string{"/v1.0/me/onenote", "/v1.0/users/alice/onenote", "/v1.0/users/" + UserGUID("alice") + "/onenote", "/v1.0/users/alice@contoso.example/onenote"} {
		for _, p := range []string{"/pages/" + alicePage + "/content", "/resources/" + aliceRes + "/$value"} {
			if rec := f.get(t, "alice", root+p); rec.Code != http.StatusOK {
				t.Errorf("alice GET %s%s: %d, want 200", root, p, rec.Code)
			}
		}
	}
}

func TestPagesTopCeilingAndDefaultPage(t *testing.T) {
	f, path := bigSection(t)
	for _, tc := range []struct {
		query    string
		status   int
		n        int
		nextLink bool
	}{
		{"?$top=200", http.StatusBadRequest, 0, false},
		{"?$top=100", http.StatusOK, 100, false},
		{"", http.StatusOK, 20, true},
	} {
		rec := f.get(t, "alice", path+tc.query)
		if rec.Code != tc.status {
			t.Fatalf("%s: %d %s", tc.query, rec.Code, rec.Body)
		}
		if tc.status != http.StatusOK {
			if code := graphErrorCode(t, rec.Body.Bytes()); code != "20129" {
				t.Errorf("%s: code %s, want 20129", tc.query, code)
			}
			continue
		}
		pl := decode[pageList](t, rec.Body.Bytes())
		if len(pl.Value) != tc.n || (pl.NextLink != "") != tc.nextLink {
			t.Errorf("%s: %d pages, nextLink %q; want %d, nextLink %v", tc.query, len(pl.Value), pl.NextLink, tc.n, tc.nextLink)
		}
	}
}

func TestPageContentInBatchIsNotUsable(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 2, ImagesPerPage: 1})
	page := f.srv.PageIDs("alice")[0]
	res := f.srv.PageResources(page)[0].ID
	items := []batchItem{
		{ID: "content", Method: "GET", URL: "/me/onenote/pages/" + page + "/content"},
		{ID: "value", Method: "GET", URL: "/me/onenote/pages/" + page + "/$value"},
		{ID: "meta", Method: "GET", URL: "/me/onenote/pages/" + page},
		{ID: "res", Method: "GET", URL: "/me/onenote/resources/" + res + "/$value"},
	}
	for _, r := range f.batch(t, "alice", items) {
		switch r.ID {
		case "content", "value":
			if r.Status != http.StatusOK || len(r.Body) != 0 {
				t.Errorf("%s: %d body %.60s, want 200 and no body", r.ID, r.Status, r.Body)
			}
		default:
			if r.Status != http.StatusOK || len(r.Body) == 0 {
				t.Errorf("%s: %d body %.60s, want 200 with a body", r.ID, r.Status, r.Body)
			}
		}
	}
	if n := f.srv.Stats().Requests; n != int64(len(items)) {
		t.Errorf("counted %d, want %d: each sub-request counts", n, len(items))
	}
}

// TestBatchStepErrorsLikePlainOnes: injected inner errors carry the step's
// client-request-id and the configured message language, as plain errors.
func TestBatchStepErrorsLikePlainOnes(t *testing.T) {
	f := newFixture(t, Config{Limits: UnlimitedLimits()}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{BatchInnerRate: 1, MessageLocale: "nl"})
	items := batchOf(6, func(int) string { return "/me/onenote/notebooks" })
	for i := range items {
		items[i].Headers = map[string]string{"client-request-id": "step-" + items[i].ID}
	}
	for _, r := range f.batch(t, "alice", items) {
		var e struct {
			Error struct {
				Code, Message string
				InnerError    map[string]string `json:"innerError"`
			}
		}
		if err := json.Unmarshal(r.Body, &e); err != nil {
			t.Fatalf("step %s: %v", r.ID, err)
		}
		if want, ok := dutchMessages[e.Error.Code]; !ok || e.Error.Message != want {
			t.Errorf("step %s: %d %s %q, want the Dutch message", r.ID, r.Status, e.Error.Code, e.Error.Message)
		}
		if got := e.Error.InnerError["client-request-id"]; got != "step-"+r.ID || r.Headers["client-request-id"] != got {
			t.Errorf("step %s: client-request-id %q in the body, %q in the headers", r.ID, got, r.Headers["client-request-id"])
		}
	}
}
