package onenote

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// sectionServer serves n pages of section "s1" the way Graph does: $top
// (at most 100) with $skip, or 20 at a time with @odata.nextLink when $top
// is absent. With ignoreSkip it returns the first batch whatever $skip
// says.
type sectionServer struct {
	t          *testing.T
	n          int
	ignoreSkip bool
	base       string // scheme://host, for nextLinks
}

func (s *sectionServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1.0/me/onenote/sections/s1/pages" {
		s.t.Errorf("unexpected path %q", r.URL.Path)
		writeGraphError(w, 404, "20102", "no such section")
		return
	}
	q := r.URL.Query()
	if q.Get("pagelevel") != "true" || q.Get("$orderby") != "order" || q.Get("$select") != PageSelect {
		s.t.Errorf("query lacks pagelevel/$orderby/$select: %q", r.URL.RawQuery)
	}
	top, skip := 20, 0
	hasTop := q.Has("$top")
	if hasTop {
		top, _ = strconv.Atoi(q.Get("$top"))
		if top > 100 {
			writeGraphError(w, 400, "20129", "top too large")
			return
		}
	}
	if !s.ignoreSkip {
		skip, _ = strconv.Atoi(q.Get("$skip"))
	}
	var value []Page
	for i := skip; i < skip+top && i < s.n; i++ {
		level := []int{0, 1, 2, 1, 0}[i%5]
		value = append(value, Page{ID: fmt.Sprintf("page-%03d", i), Title: fmt.Sprintf("Page %d", i), Level: level, Order: i,
			Links: Links{OneNoteClientURL: Link{Href: fmt.Sprintf("onenote:https://x/S.one#P&section-id={S}&page-id={G%03d}&end", i)}}})
	}
	body := map[string]any{"value": value}
	if !hasTop && skip+top < s.n {
		nq := make(map[string][]string)
		for k, v := range q {
			nq[k] = v
		}
		nq["$skip"] = []string{strconv.Itoa(skip + top)}
		body["@odata.nextLink"] = s.base + r.URL.Path + "?" + encodeQuery(nq)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func encodeQuery(q map[string][]string) string {
	var parts []string
	for k, vs := range q {
		for _, v := range vs {
			parts = append(parts, k+"="+strings.NewReplacer(",", "%2C", " ", "%20").Replace(v))
		}
	}
	return strings.Join(parts, "&")
}

func collect(t *testing.T, c *Client, cur PageCursor) []Page {
	t.Helper()
	var out []Page
	for p, err := range c.Pages(context.Background(), cur) {
		if err != nil {
			t.Fatalf("Pages: %v", err)
		}
		out = append(out, p)
	}
	return out
}

func TestPagesAll250(t *testing.T) {
	tests := []struct {
		name        string
		ignoreSkip  bool
		useNextLink bool
		wantPages   int
		wantCalls   int64
	}{
		{"top 100 with skip", false, false, 250, 3},
		{"nextLink without top", false, true, 250, 13},
		{"server ignores skip", true, false, 100, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss := &sectionServer{t: t, n: 250, ignoreSkip: tt.ignoreSkip}
			c, n, srv := newTestClient(t, ss.ServeHTTP)
			ss.base = srv.URL
			got := collect(t, c, PageCursor{SectionID: "s1", UseNextLink: tt.useNextLink})
			if len(got) != tt.wantPages {
				t.Fatalf("got %d pages, want %d", len(got), tt.wantPages)
			}
			seen := map[string]bool{}
			for i, p := range got {
				if seen[p.ID] {
					t.Fatalf("duplicate page %s", p.ID)
				}
				seen[p.ID] = true
				if p.ID != fmt.Sprintf("page-%03d", i) {
					t.Fatalf("page %d is %s: order lost", i, p.ID)
				}
			}
			if n.Load() != tt.wantCalls {
				t.Errorf("made %d requests, want %d", n.Load(), tt.wantCalls)
			}
		})
	}
}

func TestListPagesPageStepByStep(t *testing.T) {
	ss := &sectionServer{t: t, n: 200}
	c, _, _ := newTestClient(t, ss.ServeHTTP)
	ctx := context.Background()
	b1, obs, err := c.ListPagesPage(ctx, PageCursor{SectionID: "s1"})
	if err != nil || obs.Cost != 1 || len(b1.Pages) != 100 || b1.Done || b1.Next.Skip != 100 {
		t.Fatalf("batch 1: %d pages done=%v next=%+v err=%v", len(b1.Pages), b1.Done, b1.Next, err)
	}
	// The cursor is plain data: it survives a JSON round trip.
	raw, _ := json.Marshal(b1.Next)
	var cur PageCursor
	if err := json.Unmarshal(raw, &cur); err != nil || cur != b1.Next {
		t.Fatalf("cursor JSON round trip: %+v vs %+v (%v)", cur, b1.Next, err)
	}
	b2, _, err := c.ListPagesPage(ctx, cur)
	if err != nil || len(b2.Pages) != 100 || b2.Done {
		t.Fatalf("batch 2: %d pages done=%v err=%v", len(b2.Pages), b2.Done, err)
	}
	// Exactly 200 pages: the third batch is empty, which is a short batch.
	b3, _, err := c.ListPagesPage(ctx, b2.Next)
	if err != nil || len(b3.Pages) != 0 || !b3.Done {
		t.Fatalf("batch 3: %d pages done=%v err=%v", len(b3.Pages), b3.Done, err)
	}
}

func TestNextPageBatch(t *testing.T) {
	mk := func(ids ...string) []Page {
		var ps []Page
		for _, id := range ids {
			ps = append(ps, Page{ID: id})
		}
		return ps
	}
	full := make([]string, PageListTop)
	for i := range full {
		full[i] = fmt.Sprint("p", i)
	}
	first := nextPageBatch(PageCursor{SectionID: "s"}, mk(full...), "")
	if first.Done || first.Next.Skip != PageListTop || len(first.Pages) != PageListTop {
		t.Fatalf("full first batch: %+v", first.Next)
	}
	again := nextPageBatch(first.Next, mk(full...), "")
	if !again.Done || !again.Repeated || len(again.Pages) != 0 {
		t.Fatalf("repeated batch must end the listing with no pages: done=%v repeated=%v pages=%d", again.Done, again.Repeated, len(again.Pages))
	}
	dup := nextPageBatch(PageCursor{SectionID: "s"}, mk("a", "b", "a"), "")
	if len(dup.Pages) != 2 || !dup.Done {
		t.Fatalf("duplicates within a batch: %+v", dup)
	}
	nl := nextPageBatch(PageCursor{SectionID: "s", UseNextLink: true}, mk("a"), "http://x/next")
	if nl.Done || nl.Next.NextLink != "http://x/next" {
		t.Fatalf("nextLink mode: %+v", nl)
	}
	if end := nextPageBatch(nl.Next, mk("b"), ""); !end.Done {
		t.Fatal("nextLink mode without a link must be done")
	}
}

func TestPagesRefusesForeignNextLinkAndEmptySection(t *testing.T) {
	c, n, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
	_, _, err := c.ListPagesPage(context.Background(), PageCursor{SectionID: "s1", UseNextLink: true, NextLink: "https://evil.example/v1.0/x"})
	if KindOf(err) != KindInvalidArgument {
		t.Fatalf("foreign nextLink: %v", err)
	}
	_, _, err = c.ListPagesPage(context.Background(), PageCursor{})
	if KindOf(err) != KindInvalidArgument {
		t.Fatalf("empty section: %v", err)
	}
	if n.Load() != 0 {
		t.Fatalf("nothing may be sent, got %d requests", n.Load())
	}
}

func TestPagesTruncatedBodyIsTransient(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"value":[{"id":"a","title":"x"},{"id":"b","ti`))
	})
	_, obs, err := c.ListPagesPage(context.Background(), PageCursor{SectionID: "s1"})
	if KindOf(err) != KindTransient || obs.Status != 200 {
		t.Fatalf("truncated JSON: kind %v err %v", KindOf(err), err)
	}
}

func TestPagesErrorStopsIterator(t *testing.T) {
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		writeGraphError(w, 429, "20166", "The app has issued too many requests on behalf of this user in a short time period.")
	})
	var errs int
	for _, err := range c.Pages(context.Background(), PageCursor{SectionID: "s1"}) {
		if !errorsIsThrottled(err) {
			t.Fatalf("want throttled, got %v", err)
		}
		errs++
	}
	if errs != 1 {
		t.Fatalf("iterator yielded %d errors, want 1", errs)
	}
}

func errorsIsThrottled(err error) bool { return KindOf(err) == KindThrottled }
