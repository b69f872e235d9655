package graph

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
)

type batchItem struct {
	ID        string            `json:"id"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	DependsOn []string          `json:"dependsOn,omitempty"`
}

type batchResult struct {
	ID      string            `json:"id"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Body    json.RawMessage   `json:"body"`
}

func batchOf(n int, url func(i int) string) []batchItem {
	items := make([]batchItem, n)
	for i := range items {
		items[i] = batchItem{ID: fmt.Sprint(i + 1), Method: "GET", URL: url(i)}
	}
	return items
}

func batchBody(t *testing.T, items []batchItem) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"requests": items})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// batch posts items and returns the sub-responses of a 200 envelope.
func (f *fixture) batch(t *testing.T, user string, items []batchItem) []batchResult {
	t.Helper()
	rec := f.do(t, user, http.MethodPost, "/v1.0/$batch", batchBody(t, items))
	if rec.Code != http.StatusOK {
		t.Fatalf("batch status %d: %s", rec.Code, rec.Body)
	}
	return decode[struct {
		Responses []batchResult `json:"responses"`
	}](t, rec.Body.Bytes()).Responses
}

func TestBatchRejectsMalformed(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	nb := func(int) string { return "/me/onenote/notebooks" }
	dup := batchOf(3, nb)
	dup[2].ID = "1"
	dupCase := batchOf(2, nb)
	dupCase[0].ID, dupCase[1].ID = "Abc", "aBC"
	noID := batchOf(2, nb)
	noID[1].ID = ""
	unknownDep := batchOf(2, nb)
	unknownDep[1].DependsOn = []string{"9"}
	cycle := batchOf(2, nb)
	cycle[0].DependsOn, cycle[1].DependsOn = []string{"2"}, []string{"1"}
	for _, tc := range []struct {
		name string
		body string
	}{
		{"21 requests", batchBody(t, batchOf(21, nb))},
		{"duplicate id", batchBody(t, dup)},
		{"duplicate id, other case", batchBody(t, dupCase)},
		{"missing id", batchBody(t, noID)},
		{"unknown dependency", batchBody(t, unknownDep)},
		{"cycle", batchBody(t, cycle)},
		{"not json", "{"},
		{"empty", `{"requests":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.do(t, "alice", http.MethodPost, "/v1.0/$batch", tc.body)
			if rec.Code != http.StatusBadRequest {
				t.Errorf("status %d, want 400: %s", rec.Code, rec.Body)
			}
		})
	}
	if got := f.srv.Stats().Requests; got != 0 {
		t.Errorf("malformed batches counted %d sub-requests, want 0", got)
	}
	// Exactly 20 is fine.
	if got := len(f.batch(t, "alice", batchOf(20, nb))); got != 20 {
		t.Errorf("20-item batch: %d responses", got)
	}
}

func TestBatchDependsOnFailure(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	items := []batchItem{
		{ID: "a", Method: "GET", URL: "/me/onenote/pages/no-such-page"},
		{ID: "b", Method: "GET", URL: "/me/onenote/notebooks", DependsOn: []string{"a"}},
		{ID: "c", Method: "GET", URL: "/me/onenote/notebooks"},
		{ID: "d", Method: "GET", URL: "/me/onenote/sections?$filter=displayName ne ''", DependsOn: []string{"C"}},
		{ID: "e", Method: "GET", URL: "me/onenote/notebooks"},
		{ID: "f", Method: "GET", URL: "https://graph.microsoft.com/v1.0/me/onenote/notebooks"},
		{ID: "g", Method: "GET", URL: "/v1.0/me/onenote/notebooks"}, // the version repeated (JS SDK 3.0.7)
	}
	got := map[string]int{}
	for _, r := range f.batch(t, "alice", items) {
		got[r.ID] = r.Status
	}
	want := map[string]int{"a": 404, "b": 424, "c": 200, "d": 200, "e": 200, "f": 400, "g": 400}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("item %s: status %d, want %d", id, got[id], st)
		}
	}
	// The 424 never ran and the absolute url was refused: 5 counted
	// (the versioned url reached routing).
	if n := f.srv.Stats().Requests; n != 5 {
		t.Errorf("counted %d requests, want 5", n)
	}
}

func TestBatchResponsesOutOfOrderAndBodies(t *testing.T) {
	f := newFixture(t, Config{Seed: 7}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 3})
	page := f.srv.PageIDs("alice")[0]
	items := batchOf(10, func(i int) string { return "/me/onenote/notebooks?x=" + fmt.Sprint(i) })
	items[0].URL = "/me/onenote/pages/" + page + "/content"
	resps := f.batch(t, "alice", items)
	var ids []string
	for _, r := range resps {
		ids = append(ids, r.ID)
		if r.Status != http.StatusOK {
			t.Errorf("item %s: status %d", r.ID, r.Status)
		}
		if r.ID == "1" {
			// Page HTML does not come back through $batch ([M5]): 200,
			// text/html, and no body.
			if len(r.Body) != 0 || !strings.HasPrefix(r.Headers["Content-Type"], "text/html") {
				t.Errorf("content sub-response: %q body %.80s, want text/html and no body", r.Headers["Content-Type"], r.Body)
			}
			continue
		}
		if !strings.HasPrefix(string(r.Body), "{") {
			t.Errorf("item %s: body is not JSON: %.80s", r.ID, r.Body)
		}
	}
	var requested []string
	for _, it := range items {
		requested = append(requested, it.ID)
	}
	if slices.Equal(ids, requested) {
		t.Errorf("responses in request order %v; want them shuffled", ids)
	}
	// Same seed, same order.
	f2 := newFixture(t, Config{Seed: 7}, GenSpec{Notebooks: 1, SectionsPerContainer: 1, PagesPerSection: 3})
	var ids2 []string
	for _, r := range f2.batch(t, "alice", items) {
		ids2 = append(ids2, r.ID)
	}
	if !slices.Equal(ids, ids2) {
		t.Errorf("order %v then %v with the same seed", ids, ids2)
	}
}

func TestBatchInnerFaults(t *testing.T) {
	f := newFixture(t, Config{Seed: 3}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{BatchInnerRate: 0.5})
	statuses := map[int]int{}
	for _, r := range f.batch(t, "alice", batchOf(20, func(int) string { return "/me/onenote/notebooks" })) {
		statuses[r.Status]++
	}
	failed := statuses[429] + statuses[502] + statuses[503]
	if failed == 0 || statuses[200] == 0 || failed+statuses[200] != 20 {
		t.Errorf("statuses %v: want a mix of 200 and inner 429/502/503", statuses)
	}
	f.srv.ClearFaults()
	for _, r := range f.batch(t, "alice", batchOf(20, func(int) string { return "/me/onenote/notebooks" })) {
		if r.Status != 200 {
			t.Errorf("after ClearFaults: item %s status %d", r.ID, r.Status)
		}
	}
}

func TestBatchNeedsAuth(t *testing.T) {
	f := newFixture(t, Config{}, GenSpec{Notebooks: 1})
	rec := f.do(t, "", http.MethodPost, "/v1.0/$batch", batchBody(t, batchOf(2, func(int) string { return "/me/onenote/notebooks" })))
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", rec.Code)
	}
}

func TestBatchSubRequestsHoldConcurrencySlots(t *testing.T) {
	f := newFixture(t, Config{BatchConcurrency: 20}, GenSpec{Notebooks: 1})
	f.srv.SetFaults(Faults{SlowRate: 1, SlowDelay: 300 * time.Millisecond})
	statuses := map[string]int{}
	for _, r := range f.batch(t, "alice", batchOf(20, func(int) string { return "/me/onenote/notebooks" })) {
		key := fmt.Sprint(r.Status)
		if r.Status != http.StatusOK {
			key += "/" + graphErrorCode(t, r.Body)
		}
		statuses[key]++
	}
	if statuses["200"] < 5 || statuses["429/10003"] == 0 || statuses["200"]+statuses["429/10003"] != 20 {
		t.Errorf("statuses %v: want at least 5 OK and the rest 10003", statuses)
	}
	if got := f.srv.Stats().Users["alice"].MaxConcurrent; got != 5 {
		t.Errorf("max concurrency %d, want 5", got)
	}
}
