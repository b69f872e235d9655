package onenote

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// BatchSubResponse is one entry of a $batch response envelope, as sent.
type BatchSubResponse struct {
	ID      string
	Status  int
	Headers http.Header
	// Body is the raw JSON body: an object, or a string holding base64
	// for a non-JSON body.
	Body json.RawMessage
}

// ParseBatchResponse parses a $batch response envelope
// ({"responses":[{"id","status","headers","body"}]}). It is lenient about
// scalar types (a status or header sent as a number or a string) and never
// panics; an envelope that is not this shape is an error.
func ParseBatchResponse(body []byte) ([]BatchSubResponse, error) {
	var env struct {
		Responses *[]struct {
			ID      json.RawMessage            `json:"id"`
			Status  json.RawMessage            `json:"status"`
			Headers map[string]json.RawMessage `json:"headers"`
			Body    json.RawMessage            `json:"body"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, fmt.Errorf("batch response is not JSON: %w", err)
	}
	if env.Responses == nil {
		return nil, errors.New(`batch response has no "responses" array`)
	}
	out := make([]BatchSubResponse, 0, len(*env.Responses))
	for i, r := range *env.Responses {
		id := scalarString(r.ID)
		if id == "" {
			return nil, fmt.Errorf("batch response %d has no id", i)
		}
		status, err := strconv.Atoi(scalarString(r.Status))
		if err != nil || status < 100 || status > 999 {
			return nil, fmt.Errorf("batch response %q has no valid status", id)
		}
		h := make(http.Header, len(r.Headers))
		for k, v := range r.Headers {
			h.Set(k, scalarString(v))
		}
		out = append(out, BatchSubResponse{ID: id, Status: status, Headers: h, Body: r.Body})
	}
	return out, nil
}

// BatchResult is the outcome of one sub-request.
type BatchResult struct {
	// ID is the sub-request's ID.
	ID string
	// Status is the sub-response's status, or 0 if there was none (the
	// envelope failed, or Graph left the sub-request out).
	Status  int
	Headers http.Header
	// Body is the sub-response's raw JSON body; see BodyBytes.
	Body json.RawMessage
	// Observation is what this sub-response said (Cost 1).
	Observation Observation
	// Err is nil for a 2xx sub-response, and an *Error otherwise.
	Err error
}

// Failed reports whether the sub-request did not succeed.
func (r BatchResult) Failed() bool { return r.Err != nil }

// Retryable reports whether the sub-request failed and may succeed if sent
// again.
func (r BatchResult) Retryable() bool { return r.Err != nil && IsRetryable(r.Err) }

// BodyBytes returns the body's bytes: the JSON itself for a JSON body, or
// the decoded bytes of a base64 string body (Graph's form for non-JSON
// content).
func (r BatchResult) BodyBytes() ([]byte, error) {
	b := bytes.TrimSpace(r.Body)
	if len(b) == 0 || b[0] != '"' {
		return b, nil
	}
	mt, _, _ := mime.ParseMediaType(r.Headers.Get("Content-Type"))
	if strings.HasSuffix(mt, "json") {
		return b, nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	if d, err := base64.StdEncoding.DecodeString(s); err == nil {
		return d, nil
	}
	return []byte(s), nil
}

// matchBatch pairs requests with sub-responses by case-insensitive ID.
func matchBatch(reqs []BatchRequest, subs []BatchSubResponse, d time.Duration, tok string, now time.Time) []BatchResult {
	byID := make(map[string]BatchSubResponse, len(subs))
	for _, s := range subs {
		id := strings.ToLower(s.ID)
		if _, dup := byID[id]; !dup {
			byID[id] = s
		}
	}
	out := make([]BatchResult, len(reqs))
	for i, r := range reqs {
		s, ok := byID[strings.ToLower(r.ID)]
		if !ok {
			out[i] = BatchResult{ID: r.ID, Err: &Error{Kind: KindTransient, Op: "batch " + r.ID,
				Message: "the batch response has no entry for this sub-request"}}
			continue
		}
		out[i] = subResult(r, s, d, tok, now)
	}
	return out
}

// subResult turns one sub-response into a result with its own observation
// and, unless it is 2xx, its own classified error.
func subResult(r BatchRequest, s BatchSubResponse, d time.Duration, tok string, now time.Time) BatchResult {
	obs := observe(s.Status, s.Headers, now)
	obs.Cost = 1
	obs.Duration = d
	res := BatchResult{ID: r.ID, Status: s.Status, Headers: s.Headers, Body: s.Body}
	if s.Status >= 200 && s.Status < 300 {
		res.Observation = obs
		return res
	}
	eb, _ := ParseErrorBody(s.Body)
	obs.Code = eb.Code
	rc := requestClass{pageGET: strings.EqualFold(r.Method, http.MethodGet) && strings.Contains(r.URL, "/pages")}
	e := responseError("batch "+r.ID, s.Status, eb, obs.RequestID, rc, tok)
	if e.Message == "" {
		e.Message = "sub-request failed"
	}
	res.Observation = obs
	res.Err = e
	return res
}
