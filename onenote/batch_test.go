package onenote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// batchServer answers $batch with the sub-responses faults names (by
// request ID) failing, in reverse order, leaving out the IDs in omit.
type batchServer struct {
	t      *testing.T
	faults map[string]int
	omit   map[string]bool
	seen   [][]string // request IDs of each batch received
}

func (s *batchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1.0/$batch" || r.Header.Get("Content-Type") != "application/json" {
		s.t.Errorf("unexpected %s %s (%s)", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
	}
	var in struct {
		Requests []BatchRequest `json:"requests"`
	}
	b, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(b, &in); err != nil {
		s.t.Errorf("bad batch body: %v", err)
	}
	var ids []string
	var out []map[string]any
	for _, q := range in.Requests {
		ids = append(ids, q.ID)
		if s.omit[q.ID] {
			continue
		}
		resp := map[string]any{"id": q.ID, "status": 200,
			"headers": map[string]string{"Content-Type": "application/json"},
			"body":    map[string]any{"id": "page-" + q.ID, "title": "T"}}
		switch st := s.faults[q.ID]; st {
		case 0:
		case 429:
			resp["status"] = 429
			resp["headers"] = map[string]string{"x-ms-throttle-scope": "User", "Retry-After": "0.249"}
			resp["body"] = map[string]any{"error": map[string]any{"code": "20166", "message": "The app has issued too many requests on behalf of this user in a short time period."}}
		default:
			resp["status"] = st
			resp["body"] = map[string]any{"error": map[string]any{"code": "UnknownError", "message": "upstream failure"}}
		}
		out = append(out, resp)
	}
	s.seen = append(s.seen, ids)
	slices.Reverse(out)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"responses": out})
}

func batchOf(c *Client, n int) []BatchRequest {
	var reqs []BatchRequest
	for i := 1; i <= n; i++ {
		reqs = append(reqs, BatchRequest{ID: fmt.Sprint(i), Method: "GET", URL: c.OneNotePath(fmt.Sprintf("pages/p%d?pagelevel=true", i))})
	}
	return reqs
}

// TestBatchInnerFaultsLoseNothing: a batch of 20 comes back 200 with inner
// 429, 502 and 503; exactly those come back as failed and retryable, the
// rest succeed, and re-sending them completes the set.
func TestBatchInnerFaultsLoseNothing(t *testing.T) {
	bs := &batchServer{t: t, faults: map[string]int{"3": 429, "7": 502, "12": 503}}
	c, n, _ := newTestClient(t, bs.ServeHTTP)
	reqs := batchOf(c, 20)
	results, obs, err := c.Batch(context.Background(), reqs)
	if obs.Status != 200 || obs.Cost != 20 || n.Load() != 1 {
		t.Fatalf("envelope obs = %+v, %d HTTP requests", obs, n.Load())
	}
	var be *BatchError
	if !errors.As(err, &be) || len(be.Failed) != 3 || be.Total != 20 || !be.IsRetryable() {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, ErrThrottled) || !errors.Is(err, ErrTransient) {
		t.Errorf("BatchError must unwrap to its inner kinds: %v", err)
	}
	if len(results) != 20 {
		t.Fatalf("%d results, want 20", len(results))
	}
	for i, r := range results {
		if r.ID != reqs[i].ID {
			t.Fatalf("result %d has ID %s: not in request order", i, r.ID)
		}
		want := bs.faults[r.ID]
		if want == 0 {
			if r.Failed() || r.Status != 200 || r.Observation.Cost != 1 {
				t.Errorf("sub %s: %+v", r.ID, r)
			}
			var p Page
			body, _ := r.BodyBytes()
			if json.Unmarshal(body, &p); p.ID != "page-"+r.ID {
				t.Errorf("sub %s body = %s", r.ID, body)
			}
			continue
		}
		if !r.Failed() || !r.Retryable() || r.Status != want || r.Observation.Status != want {
			t.Errorf("sub %s: status %d failed %v retryable %v, want %d", r.ID, r.Status, r.Failed(), r.Retryable(), want)
		}
	}
	r3 := results[2]
	if KindOf(r3.Err) != KindThrottled || r3.Observation.Code != "20166" || r3.Observation.ThrottleScope.Kind != ScopeUser ||
		!r3.Observation.Throttled() || r3.Observation.RetryAfter.Milliseconds() != 249 {
		t.Errorf("throttled sub-result: %+v / %v", r3.Observation, r3.Err)
	}
	if KindOf(results[6].Err) != KindTransient || KindOf(results[11].Err) != KindTransient {
		t.Errorf("502/503 must be transient: %v / %v", results[6].Err, results[11].Err)
	}

	retry := RetryRequests(reqs, results)
	var ids []string
	for _, q := range retry {
		ids = append(ids, q.ID)
	}
	if strings.Join(ids, ",") != "3,7,12" {
		t.Fatalf("retry = %v, want 3,7,12", ids)
	}
	bs.faults = nil
	results2, obs2, err := c.Batch(context.Background(), retry)
	if err != nil || obs2.Cost != 3 || len(results2) != 3 {
		t.Fatalf("retry batch: %v (cost %d)", err, obs2.Cost)
	}
	if len(RetryRequests(retry, results2)) != 0 {
		t.Fatal("nothing should be left to retry")
	}
}

func TestBatchMissingAndDuplicateResponses(t *testing.T) {
	bs := &batchServer{t: t, omit: map[string]bool{"2": true}}
	c, _, _ := newTestClient(t, bs.ServeHTTP)
	reqs := batchOf(c, 3)
	results, _, err := c.Batch(context.Background(), reqs)
	if err == nil || !results[1].Failed() || !results[1].Retryable() || results[0].Failed() || results[2].Failed() {
		t.Fatalf("a left-out sub-request must fail retryably: %v %+v", err, results)
	}
	if got := RetryRequests(reqs, results); len(got) != 1 || got[0].ID != "2" {
		t.Fatalf("retry = %+v", got)
	}
	// A result list that lacks a request entirely still yields it for retry.
	if got := RetryRequests(reqs, results[:1]); len(got) != 2 {
		t.Fatalf("retry with missing results = %+v", got)
	}
}

func TestBatchEnvelopeFailures(t *testing.T) {
	tests := []struct {
		name     string
		status   int
		body     string
		wantKind Kind
	}{
		{"envelope throttled", 429, `{"error":{"code":"20166","message":"too many"}}`, KindThrottled},
		{"envelope 503", 503, ``, KindTransient},
		{"envelope malformed", 400, `{"error":{"code":"BadRequest","message":"Invalid batch payload"}}`, KindConfiguration},
		{"truncated envelope", 200, `{"responses":[{"id":"1","status":200,"bo`, KindTransient},
		{"not a batch envelope", 200, `{"value":[]}`, KindTransient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(tt.status)
				_, _ = w.Write([]byte(tt.body))
			})
			reqs := batchOf(c, 4)
			results, obs, err := c.Batch(context.Background(), reqs)
			if KindOf(err) != tt.wantKind || obs.Cost != 4 {
				t.Fatalf("err = %v (kind %v), cost %d", err, KindOf(err), obs.Cost)
			}
			if len(results) != 4 {
				t.Fatalf("%d results", len(results))
			}
			for _, r := range results {
				if !r.Failed() || KindOf(r.Err) != tt.wantKind {
					t.Errorf("sub %s: %v", r.ID, r.Err)
				}
			}
			wantRetry := 0
			if tt.wantKind.Retryable() {
				wantRetry = 4
			}
			if got := len(RetryRequests(reqs, results)); got != wantRetry {
				t.Errorf("retry %d, want %d", got, wantRetry)
			}
		})
	}
}

func TestBatchValidation(t *testing.T) {
	c, n, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {})
	dup := batchOf(c, 2)
	dup[1].ID = "1"
	caseDup := batchOf(c, 2)
	caseDup[0].ID, caseDup[1].ID = "a", "A"
	abs := batchOf(c, 1)
	abs[0].URL = "https://graph.microsoft.com/v1.0/me"
	noMethod := batchOf(c, 1)
	noMethod[0].Method = ""
	for name, reqs := range map[string][]BatchRequest{
		"21 requests": batchOf(c, 21), "empty": nil, "duplicate IDs": dup, "IDs differing in case": caseDup,
		"absolute URL": abs, "no method": noMethod,
	} {
		_, obs, err := c.Batch(context.Background(), reqs)
		if KindOf(err) != KindInvalidArgument || obs.Cost != 0 {
			t.Errorf("%s: err = %v, cost %d", name, err, obs.Cost)
		}
	}
	if n.Load() != 0 {
		t.Fatalf("invalid batches must not be sent; %d were", n.Load())
	}
}

func TestParseBatchResponse(t *testing.T) {
	subs, err := ParseBatchResponse([]byte(`{"responses":[
		{"id":"1","status":200,"headers":{"content-type":"application/json","x-ms-throttle-limit-percentage":0.9},"body":{"a":1}},
		{"id":2,"status":"429","body":null}]}`))
	if err != nil || len(subs) != 2 {
		t.Fatalf("subs = %+v, err = %v", subs, err)
	}
	if subs[0].Headers.Get("X-Ms-Throttle-Limit-Percentage") != "0.9" || subs[1].ID != "2" || subs[1].Status != 429 {
		t.Errorf("lenient parse: %+v", subs)
	}
	for _, bad := range []string{``, `[]`, `{}`, `{"responses":[{"status":200}]}`, `{"responses":[{"id":"1"}]}`, `{"responses":[{"id":"1","status":99999}]}`} {
		if _, err := ParseBatchResponse([]byte(bad)); err == nil {
			t.Errorf("ParseBatchResponse(%q) succeeded", bad)
		}
	}
}

func TestBatchResultBodyBytes(t *testing.T) {
	r := BatchResult{Headers: http.Header{"Content-Type": {"image/png"}}, Body: json.RawMessage(`"iVBORw0KGgo="`)}
	b, err := r.BodyBytes()
	if err != nil || string(b) != "\x89PNG\r\n\x1a\n" {
		t.Fatalf("base64 body = %q, %v", b, err)
	}
	r = BatchResult{Headers: http.Header{"Content-Type": {"application/json"}}, Body: json.RawMessage(`"just a string"`)}
	if b, _ := r.BodyBytes(); string(b) != `"just a string"` {
		t.Fatalf("JSON string body = %q", b)
	}
}

func TestBatchURLsAreRootRelative(t *testing.T) {
	var got []string
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Requests []BatchRequest `json:"requests"`
		}
		_ = json.NewDecoder(r.Body).Decode(&in)
		for _, q := range in.Requests {
			got = append(got, q.URL)
		}
		_, _ = w.Write([]byte(`{"responses":[{"id":"a","status":200},{"id":"b","status":200}]}`))
	})
	reqs := []BatchRequest{{ID: "a", Method: "GET", URL: "me/onenote/pages/p"}, {ID: "b", Method: "GET", URL: c.OneNotePath("pages/q")}}
	if _, _, err := c.Batch(context.Background(), reqs); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, " ") != "/me/onenote/pages/p /me/onenote/pages/q" || reqs[0].URL != "me/onenote/pages/p" {
		t.Fatalf("sent %q; caller's slice now %q", got, reqs[0].URL)
	}
}

func TestBatchErrorMessage(t *testing.T) {
	be := &BatchError{Total: 20, Failed: []BatchResult{
		{ID: "1", Err: &Error{Kind: KindThrottled}},
		{ID: "2", Err: &Error{Kind: KindThrottled}},
		{ID: "3", Err: &Error{Kind: KindNotFound}},
	}}
	if got, want := be.Error(), "onenote: batch: 3 of 20 sub-requests failed (2 throttled, 1 not found)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if be.IsRetryable() {
		t.Error("a not-found sub-request is not retryable")
	}
}
