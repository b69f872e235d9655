package onenote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// The listing parsers and the throttle headers, fed through the real
// client: a transport answers every request with the fuzzed response, so
// decoding, paging, nextLink checks and header parsing run exactly as they
// do against Graph.

// fuzzGraphBase is the Graph root the fuzz clients use.
const fuzzGraphBase = "https://graph.fuzz.test/v1.0"

// cannedTransport answers every request with one response and records
// where each request went.
type cannedTransport struct {
	status int
	header http.Header
	body   []byte

	mu   sync.Mutex
	sent []*http.Request
}

func (c *cannedTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	c.sent = append(c.sent, r)
	c.mu.Unlock()
	h := c.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: c.status, Header: h, Body: io.NopCloser(bytes.NewReader(c.body)),
		ContentLength: int64(len(c.body)), Request: r}, nil
}

// checkSentToGraph fails if the token went anywhere but the Graph host.
func (c *cannedTransport) checkSentToGraph(t *testing.T) {
	t.Helper()
	for _, r := range c.sent {
		// Host names are case-insensitive: GRAPH.fuzz.test is the same host.
		if !strings.EqualFold(r.URL.Host, "graph.fuzz.test") || !strings.EqualFold(r.URL.Scheme, "https") {
			t.Fatalf("request with the bearer token sent to %s", r.URL.Redacted())
		}
	}
}

func newFuzzClient(t *testing.T, rt *cannedTransport) *Client {
	t.Helper()
	c, err := New(Config{BaseURL: fuzzGraphBase, HTTPClient: &http.Client{Transport: rt}, Tokens: StaticToken(testToken)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkErr checks an error the client returned carries no token and
// classifies.
func checkErr(t *testing.T, err error) {
	t.Helper()
	if strings.Contains(err.Error(), testToken) {
		t.Fatalf("token leaked: %v", err)
	}
	_ = KindOf(err).String()
}

func FuzzListPagesResponse(f *testing.F) {
	page := func(id string, level, order int) string {
		b, _ := json.Marshal(Page{ID: id, Title: "T " + id, Level: level, Order: order,
			Links: Links{OneNoteClientURL: Link{Href: "onenote:https://x/S.one#T&section-id={S}&page-id={" + id + "}&end"}}})
		return string(b)
	}
	seeds := []string{
		`{"value":[` + page("p1", 0, 0) + `,` + page("p2", 1, 1) + `,` + page("p3", 2, 2) + `,` + page("p1", 0, 3) + `]}`,
		`{"value":[` + page("p1", 0, 0) + `],"@odata.nextLink":"https://graph.fuzz.test/v1.0/me/onenote/sections/s1/pages?$skip=20"}`,
		`{"value":[` + page("p1", 0, 0) + `],"@odata.nextLink":"https://evil.example/steal?x=1"}`,
		`{"value":[],"@odata.nextLink":"//graph.fuzz.test.evil.example/x"}`,
		`{"value":[{"id":"x","level":-3,"order":-1,"createdDateTime":"2024-01-01T00:00:00Z"}]}`,
		`{"value":null}`, `{"value":[{"id":1}]}`, `{"value":[{"lastModifiedDateTime":"yesterday"}]}`, `{}`, `[]`, ``, `{"value":[`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), i*37%250, i%2 == 1, "")
	}
	// A full batch (kept small: the fuzzer minimises what it finds
	// interesting, and a big seed makes that slow).
	full := make([]string, PageListTop)
	for i := range full {
		full[i] = fmt.Sprintf(`{"id":"%d","level":%d,"order":%d}`, i, []int{0, 1, 2, 1, 0}[i%5], i)
	}
	f.Add([]byte(`{"value":[`+strings.Join(full, ",")+`]}`), 100, false, "")
	f.Add([]byte(seeds[1]), 0, true, "https://graph.fuzz.test/v1.0/me/onenote/sections/s1/pages?$skip=20")
	f.Add([]byte(seeds[1]), 0, true, "https://evil.example/v1.0/me/onenote/sections/s1/pages")
	f.Add([]byte(seeds[1]), 0, true, "https://graph.fuzz.test@evil.example/")
	f.Fuzz(func(t *testing.T, body []byte, skip int, useNextLink bool, nextLink string) {
		rt := &cannedTransport{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: body}
		c := newFuzzClient(t, rt)
		cur := PageCursor{SectionID: "s1", Skip: max(0, skip%100000), UseNextLink: useNextLink, NextLink: nextLink}
		b, obs, err := c.ListPagesPage(context.Background(), cur)
		rt.checkSentToGraph(t)
		if err != nil {
			checkErr(t, err)
			if k := KindOf(err); len(rt.sent) > 0 && k != KindTransient && k != KindTooLarge {
				t.Fatalf("a 200 with an undecodable body gave a %s error: %v", k, err)
			}
			return
		}
		if obs.Status != 200 || obs.Cost != 1 {
			t.Fatalf("observation %+v", obs)
		}
		var raw struct {
			Value    []Page `json:"value"`
			NextLink string `json:"@odata.nextLink"`
		}
		if err := json.Unmarshal(body, &raw); err != nil {
			t.Fatalf("the client accepted a body encoding/json refuses: %v", err)
		}
		checkBatch(t, cur, raw.Value, raw.NextLink, b)

		// The same answer again is noticed as Graph ignoring $skip.
		if !b.Done && len(raw.Value) > 0 {
			b2, _, err := c.ListPagesPage(context.Background(), b.Next)
			rt.checkSentToGraph(t)
			if err != nil {
				checkErr(t, err)
				return
			}
			if !b2.Repeated || !b2.Done || len(b2.Pages) != 0 {
				t.Fatalf("the same batch twice was not noticed: %+v", b2)
			}
		}
	})
}

// checkBatch checks what ListPagesPage made of a decoded listing.
func checkBatch(t *testing.T, cur PageCursor, got []Page, nextLink string, b PageBatch) {
	t.Helper()
	if b.Repeated {
		if len(b.Pages) != 0 || !b.Done || b.Next.Skip != cur.Skip || b.Next.NextLink != cur.NextLink {
			t.Fatalf("repeated batch: %+v", b)
		}
		return
	}
	seen := map[string]bool{}
	for _, p := range b.Pages {
		if seen[p.ID] {
			t.Fatalf("page %q twice in one batch", p.ID)
		}
		seen[p.ID] = true
		if id, ok := PageIDFromClientURL(p.Links.OneNoteClientURL.Href); ok && (id == "" || strings.ContainsAny(id, "&#")) {
			t.Fatalf("page id %q from %q", id, p.Links.OneNoteClientURL.Href)
		}
	}
	for _, p := range got {
		if !seen[p.ID] {
			t.Fatalf("page %q dropped", p.ID)
		}
	}
	if cur.UseNextLink {
		if b.Done != (nextLink == "" || len(got) == 0) || (!b.Done && b.Next.NextLink != nextLink) {
			t.Fatalf("nextLink mode: %d pages, link %q -> %+v", len(got), nextLink, b)
		}
	} else {
		if b.Next.Skip != cur.Skip+len(got) || b.Done != (len(got) < PageListTop) {
			t.Fatalf("$skip mode: skip %d, %d pages -> %+v", cur.Skip, len(got), b)
		}
	}
	// The subpage tree holds every page once, each under a lower level.
	n := 0
	var walk func(nodes []*PageNode, parentLevel int, root bool)
	walk = func(nodes []*PageNode, parentLevel int, root bool) {
		for _, nd := range nodes {
			n++
			if !root && nd.Page.Level <= parentLevel {
				t.Fatalf("page %q (level %d) under a page of level %d", nd.Page.ID, nd.Page.Level, parentLevel)
			}
			walk(nd.Children, nd.Page.Level, false)
		}
	}
	walk(BuildPageTree(b.Pages), 0, true)
	if n != len(b.Pages) {
		t.Fatalf("page tree holds %d pages, want %d", n, len(b.Pages))
	}
}

func FuzzListNotebooksResponse(f *testing.F) {
	for _, s := range []string{
		`{"value":[{"id":"nb1","displayName":"Work","sections":[{"id":"s1","displayName":"A"}],` +
			`"sectionGroups":[{"id":"g1","displayName":"G","sections":[{"id":"s2","displayName":"B"}],` +
			`"sectionGroups":[{"id":"g2","displayName":"H","sections":[{"id":"s3","displayName":"C"}]}]}]}],` +
			`"@odata.nextLink":"https://graph.fuzz.test/v1.0/me/onenote/notebooks?$skiptoken=x"}`,
		`{"value":[{"id":"nb1","sectionGroups":[{"sectionGroups":[{"sectionGroups":[{"sections":[{},{}]}]}]}]}]}`,
		`{"value":[{"id":"nb1","sections":null,"sectionGroups":[null]}],"@odata.nextLink":"http://graph.fuzz.test/x"}`,
		`{"value":[{"id":"nb1","createdDateTime":"not a time"}]}`, `{"value":{}}`, `{}`, ``,
	} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte(`{"value":[]}`), "https://graph.fuzz.test/v1.0/me/onenote/notebooks?$skiptoken=x")
	f.Add([]byte(`{"value":[]}`), "https://evil.example/v1.0/me/onenote/notebooks")
	f.Add([]byte(`{"value":[]}`), "/v1.0/me/onenote/notebooks")
	f.Add([]byte(`{"value":[]}`), "HTTPS://GRAPH.fuzz.test/v1.0/me/onenote/notebooks#x")
	f.Fuzz(func(t *testing.T, body []byte, next string) {
		rt := &cannedTransport{status: 200, body: body}
		c := newFuzzClient(t, rt)
		list, _, err := c.ListNotebooks(context.Background(), next)
		rt.checkSentToGraph(t)
		if err != nil {
			checkErr(t, err)
			return
		}
		for _, nb := range list.Notebooks {
			want := countSections(nb.Sections, nb.SectionGroups)
			refs := FlattenSections(nb)
			if len(refs) != want {
				t.Fatalf("FlattenSections gave %d sections, the tree has %d", len(refs), want)
			}
			for _, r := range refs {
				if len(r.Path) != len(r.GroupIDs)+2 || r.Path[0] != nb.DisplayName || r.Path[len(r.Path)-1] != r.Section.DisplayName ||
					r.NotebookID != nb.ID {
					t.Fatalf("section ref %+v of notebook %q", r, nb.ID)
				}
			}
		}
		// The next page is fetched from the Graph host or not at all.
		if list.NextLink != "" {
			if _, _, err := c.ListNotebooks(context.Background(), list.NextLink); err != nil {
				checkErr(t, err)
			}
			rt.checkSentToGraph(t)
		}
	})
}

func countSections(sections []Section, groups []SectionGroup) int {
	n := len(sections)
	for _, g := range groups {
		n += countSections(g.Sections, g.SectionGroups)
	}
	return n
}

// FuzzThrottleHeaders sends a response with arbitrary status, error code
// and throttle headers (x-ms-throttle-scope, x-ms-throttle-limit-percentage,
// Retry-After, repeated or not) through the client, and checks the
// Observation the limiter learns from and the error the caller sees agree.
func FuzzThrottleHeaders(f *testing.F) {
	f.Add(429, "20166", "User", "", "", false)
	f.Add(429, "", "Application", "0.95", "0.249", false)
	f.Add(200, "", "", "0.8", "", false)
	f.Add(200, "", "Tenant_Application/ReadWrite/9a3d526c/0785ef7c", "1.0", "Wed, 21 Oct 2015 07:28:00 GMT", false)
	f.Add(503, "10007", "", "1e400", "-1", true)
	f.Add(400, "20166", "User\r\nX-Other: 1", "NaN", "Inf", true)
	f.Add(429, "10003", "User", "0x1p-2", "1e9", false)
	f.Add(401, "40001", "", "", "12345678901234567890", true)
	f.Fuzz(func(t *testing.T, status int, code, scope, pct, retryAfter string, repeat bool) {
		status = 100 + abs(status)%500
		if status < 200 {
			status += 100 // 1xx responses are not final answers
		}
		h := http.Header{}
		for name, v := range map[string]string{HeaderThrottleScope: scope, HeaderThrottlePercentage: pct, HeaderRetryAfter: retryAfter} {
			if v == "" {
				continue
			}
			h.Add(name, v)
			if repeat {
				h.Add(name, "0")
			}
		}
		msg := "echo " + testToken
		body, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
		rt := &cannedTransport{status: status, header: h, body: body}
		c := newFuzzClient(t, rt)
		_, obs, err := c.GetPage(context.Background(), "p1")

		if obs.Status != status || obs.Cost != 1 {
			t.Fatalf("observation %+v for status %d", obs, status)
		}
		if p := obs.ThrottlePercentage; p < 0 || math.IsNaN(p) || math.IsInf(p, 0) || p != ParseThrottlePercentage(h.Get(HeaderThrottlePercentage)) {
			t.Fatalf("throttle percentage %v from %q", p, h.Values(HeaderThrottlePercentage))
		}
		if obs.RetryAfter < 0 || (!obs.HasRetryAfter && obs.RetryAfter != 0) {
			t.Fatalf("Retry-After %q -> %v %v", h.Values(HeaderRetryAfter), obs.RetryAfter, obs.HasRetryAfter)
		}
		if obs.ThrottleScope.Raw != h.Get(HeaderThrottleScope) {
			t.Fatalf("scope raw %q, header %q", obs.ThrottleScope.Raw, h.Get(HeaderThrottleScope))
		}
		if status >= 200 && status < 300 {
			if err != nil {
				checkErr(t, err)
			}
			if obs.Code != "" {
				t.Fatalf("a success carries code %q", obs.Code)
			}
			return
		}
		if err == nil {
			t.Fatalf("status %d gave no error", status)
		}
		checkErr(t, err)
		var e *Error
		if !errors.As(err, &e) || e.Status != status {
			t.Fatalf("error %#v for status %d", err, status)
		}
		if strings.Contains(e.Message, testToken) || strings.Contains(e.Code, testToken) {
			t.Fatal("token in the error's fields")
		}
		throttledCode := obs.Code == CodeThrottled
		if throttledCode != (code == CodeThrottled) {
			t.Fatalf("code %q observed as %q", code, obs.Code)
		}
		// Every throttle the limiter is told about is a throttle to the
		// caller, except 429 with 10003, which the caller treats as the
		// concurrency cap.
		if obs.Throttled() && e.Kind != KindThrottled && !(e.Kind == KindConcurrency && obs.Code == CodeTooManyActive) {
			t.Fatalf("observation says throttled, error says %s (status %d, code %q)", e.Kind, status, obs.Code)
		}
		if e.Kind == KindThrottled && !obs.Throttled() {
			t.Fatalf("a throttled error the limiter is not told about (status %d, code %q)", status, obs.Code)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		if n == math.MinInt {
			return math.MaxInt
		}
		return -n
	}
	return n
}
