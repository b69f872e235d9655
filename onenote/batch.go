package onenote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// MaxBatchRequests is the most sub-requests Graph accepts in one $batch.
const MaxBatchRequests = 20

// BatchRequest is one sub-request of a $batch.
type BatchRequest struct {
	// ID identifies the sub-request; unique within the batch
	// (case-insensitively).
	ID     string `json:"id"`
	Method string `json:"method"`
	// URL is relative to the Graph root, e.g. from Client.OneNotePath:
	// "/me/onenote/pages/{id}".
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	Body      json.RawMessage   `json:"body,omitempty"`
	DependsOn []string          `json:"dependsOn,omitempty"`
}

// BatchError is returned by Batch when the envelope succeeded but one or
// more sub-requests failed. The results still hold every outcome.
type BatchError struct {
	// Failed are the results that failed, in request order.
	Failed []BatchResult
	// Total is the number of sub-requests.
	Total int
}

// Error summarises the failures.
func (e *BatchError) Error() string {
	counts := map[Kind]int{}
	for _, r := range e.Failed {
		counts[KindOf(r.Err)]++
	}
	var parts []string
	for k := KindUnknown; k <= KindCanceled; k++ {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	return fmt.Sprintf("onenote: batch: %d of %d sub-requests failed (%s)", len(e.Failed), e.Total, strings.Join(parts, ", "))
}

// Unwrap returns the sub-requests' errors, so errors.Is(err, ErrThrottled)
// is true if any sub-request was throttled.
func (e *BatchError) Unwrap() []error {
	errs := make([]error, len(e.Failed))
	for i, r := range e.Failed {
		errs[i] = r.Err
	}
	return errs
}

// IsRetryable reports whether every failed sub-request is retryable.
func (e *BatchError) IsRetryable() bool {
	for _, r := range e.Failed {
		if !r.Retryable() {
			return false
		}
	}
	return true
}

// Batch sends up to MaxBatchRequests sub-requests in one POST to
// {root}/$batch and returns one result per sub-request, in request order,
// matched to the responses by ID (Graph may answer in any order).
//
// Each sub-request counts against the limits on its own, so the
// Observation's Cost is len(reqs): acquire that many permits first.
//
// If the envelope fails (a transport error, a non-2xx status, a body that
// does not parse), every result carries that error and it is also
// returned. If the envelope succeeds but some sub-requests failed, each of
// those results has its own classified *Error, and a *BatchError listing
// them is returned. A sub-request Graph left out of the response is a
// failed, retryable result. Nothing is retried: use RetryRequests to pick
// what to send again.
//
// Graph does not return usable page content inside a $batch; fetch content
// and resources with GetPageContent and DownloadResource.
func (c *Client) Batch(ctx context.Context, reqs []BatchRequest) ([]BatchResult, Observation, error) {
	const op = "batch"
	if err := validateBatch(reqs); err != nil {
		return nil, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: err.Error()}
	}
	payload, err := json.Marshal(struct {
		Requests []BatchRequest `json:"requests"`
	}{normalizeBatchURLs(reqs)})
	if err != nil {
		return nil, Observation{}, &Error{Kind: KindInvalidArgument, Op: op, Message: "cannot encode batch", Err: err}
	}
	start := c.now()
	resp, obs, tok, err := c.send(ctx, call{op: op, method: http.MethodPost, url: c.baseStr + "/$batch",
		body: payload, contentType: "application/json", cost: len(reqs)})
	if err != nil {
		return failAll(reqs, err), obs, err
	}
	b, err := c.readBody(resp, op, maxJSONBytes, tok)
	obs.Duration = c.now().Sub(start)
	if err != nil {
		return failAll(reqs, err), obs, err
	}
	subs, err := ParseBatchResponse(b)
	if err != nil {
		e := malformed(op, obs.Status, err)
		return failAll(reqs, e), obs, e
	}
	results := matchBatch(reqs, subs, obs.Duration, tok, c.now())
	var failed []BatchResult
	for _, r := range results {
		if r.Failed() {
			failed = append(failed, r)
		}
	}
	if len(failed) > 0 {
		return results, obs, &BatchError{Failed: failed, Total: len(reqs)}
	}
	return results, obs, nil
}

func validateBatch(reqs []BatchRequest) error {
	if len(reqs) == 0 {
		return errors.New("batch has no requests")
	}
	if len(reqs) > MaxBatchRequests {
		return fmt.Errorf("batch has %d requests; Graph accepts at most %d, split it", len(reqs), MaxBatchRequests)
	}
	seen := make(map[string]bool, len(reqs))
	for i, r := range reqs {
		id := strings.ToLower(r.ID)
		switch {
		case r.ID == "":
			return fmt.Errorf("batch request %d has no ID", i)
		case seen[id]:
			return fmt.Errorf("batch request ID %q is used twice", r.ID)
		case r.Method == "":
			return fmt.Errorf("batch request %q has no method", r.ID)
		case r.URL == "" || strings.Contains(r.URL, "://"):
			return fmt.Errorf("batch request %q needs a URL relative to the Graph root", r.ID)
		}
		seen[id] = true
	}
	return nil
}

// normalizeBatchURLs returns reqs with every URL starting with "/", the
// form Graph documents, without modifying the caller's slice.
func normalizeBatchURLs(reqs []BatchRequest) []BatchRequest {
	out := make([]BatchRequest, len(reqs))
	for i, r := range reqs {
		if !strings.HasPrefix(r.URL, "/") {
			r.URL = "/" + r.URL
		}
		out[i] = r
	}
	return out
}

// failAll returns a failed result for every request, all carrying err.
func failAll(reqs []BatchRequest, err error) []BatchResult {
	out := make([]BatchResult, len(reqs))
	for i, r := range reqs {
		out[i] = BatchResult{ID: r.ID, Err: err}
	}
	return out
}

// RetryRequests returns the requests whose results failed and are
// retryable, in request order, ready to go into a new batch (after the
// limiter allows it). Requests without a result are included: nothing is
// lost.
func RetryRequests(reqs []BatchRequest, results []BatchResult) []BatchRequest {
	byID := make(map[string]BatchResult, len(results))
	for _, r := range results {
		byID[strings.ToLower(r.ID)] = r
	}
	var out []BatchRequest
	for _, q := range reqs {
		r, ok := byID[strings.ToLower(q.ID)]
		if !ok || r.Retryable() {
			out = append(out, q)
		}
	}
	return out
}
