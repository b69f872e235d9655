package graph

import (
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// maxBatchRequests is the most sub-requests one $batch may carry.
const maxBatchRequests = 20

// batchRequest is one item of a JSON $batch request.
type batchRequest struct {
	ID        string            `json:"id"`
	Method    string            `json:"method"`
	URL       string            `json:"url"`
	Headers   map[string]string `json:"headers,omitempty"`
	Body      json.RawMessage   `json:"body,omitempty"`
	DependsOn []string          `json:"dependsOn,omitempty"`
}

// batchResponse is one item of a $batch response.
type batchResponse struct {
	ID      string            `json:"id"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
}

// serveBatch answers POST /v1.0/$batch. The envelope is 200 whenever the
// batch itself is valid; each sub-request is authenticated by the
// envelope's token, counted and throttled on its own, and runs (up to
// Config.BatchConcurrency at a time, each holding a concurrency slot) once
// the request it dependsOn succeeded; if that failed it gets 424. Responses
// come back in a seeded, shuffled order.
func (s *Server) serveBatch(w http.ResponseWriter, r *http.Request) {
	requestID := s.newRequestID()
	bad := func(msg string) {
		graphError(http.StatusBadRequest, "BadRequest", msg, requestID, s.now()).write(w)
	}
	if r.Method != http.MethodPost {
		graphError(http.StatusMethodNotAllowed, "BadRequest", "$batch accepts POST only.", requestID, s.now()).write(w)
		return
	}
	tok, err := s.authenticate(r)
	if err != nil {
		s.rec.countUnauthorized()
		s.unauthorized(err, requestID).write(w)
		return
	}
	s.rec.countBatch()
	body, status, msg := requestBody(r)
	if status != 0 {
		graphError(status, "BadRequest", msg, requestID, s.now()).write(w)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(body, 4<<20))
	if err != nil {
		bad("Invalid batch payload format: the body could not be read (" + err.Error() + ").")
		return
	}
	var in struct {
		Requests []batchRequest `json:"requests"`
	}
	if err := json.Unmarshal(raw, &in); err != nil || in.Requests == nil {
		bad("Invalid batch payload format.")
		return
	}
	if msg := validateBatch(in.Requests); msg != "" {
		bad(msg)
		return
	}

	base := s.base(r)
	n := len(in.Requests)
	index := make(map[string]int, n)
	for i, br := range in.Requests {
		index[strings.ToLower(br.ID)] = i
	}
	out := make([]batchResponse, n)
	done := make([]chan struct{}, n)
	for i := range done {
		done[i] = make(chan struct{})
	}
	slots := make(chan struct{}, s.cfg.BatchConcurrency)
	var wg sync.WaitGroup
	for i, br := range in.Requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			for _, dep := range br.DependsOn {
				j := index[strings.ToLower(dep)]
				<-done[j]
				if st := out[j].Status; st >= 400 {
					resp := graphError(http.StatusFailedDependency, "BadRequest", fmt.Sprintf("Failed dependency: request %q failed with status %d.", dep, st), s.newRequestID(), s.now())
					out[i] = toBatchResponse(br.ID, resp)
					return
				}
			}
			slots <- struct{}{}
			defer func() { <-slots }()
			out[i] = toBatchResponse(br.ID, s.serveSubRequest(r, tok, br, base))
		}()
	}
	wg.Wait()

	rng := rand.New(rand.NewPCG(s.cfg.Seed, seedOf("batch", itoa(s.batches.Add(1)))))
	rng.Shuffle(n, func(i, j int) { out[i], out[j] = out[j], out[i] })
	jsonResponse(http.StatusOK, map[string]any{"responses": out}).write(w)
}

// validateBatch returns why a batch is malformed, or "".
func validateBatch(reqs []batchRequest) string {
	if len(reqs) == 0 {
		return "Invalid batch payload format: no requests."
	}
	if len(reqs) > maxBatchRequests {
		return fmt.Sprintf("The number of requests in a batch (%d) exceeds the maximum of %d.", len(reqs), maxBatchRequests)
	}
	ids := make(map[string]int, len(reqs))
	for i, br := range reqs {
		if br.ID == "" {
			return "Every request in a batch needs an id."
		}
		key := strings.ToLower(br.ID)
		if _, dup := ids[key]; dup {
			return fmt.Sprintf("Batch request ids must be unique; %q is repeated.", br.ID)
		}
		ids[key] = i
		if br.URL == "" || br.Method == "" {
			return fmt.Sprintf("Request %q needs a method and a url.", br.ID)
		}
	}
	for _, br := range reqs {
		for _, dep := range br.DependsOn {
			if _, ok := ids[strings.ToLower(dep)]; !ok {
				return fmt.Sprintf("Request %q depends on unknown request %q.", br.ID, dep)
			}
		}
	}
	// Reject cycles: follow dependsOn from each request.
	state := make([]int, len(reqs)) // 0 new, 1 visiting, 2 done
	var visit func(i int) bool
	visit = func(i int) bool {
		if state[i] == 1 {
			return false
		}
		if state[i] == 2 {
			return true
		}
		state[i] = 1
		for _, dep := range reqs[i].DependsOn {
			if !visit(ids[strings.ToLower(dep)]) {
				return false
			}
		}
		state[i] = 2
		return true
	}
	for i := range reqs {
		if !visit(i) {
			return "Batch dependsOn forms a cycle."
		}
	}
	return ""
}

// serveSubRequest answers one batch item as if it were a plain request.
func (s *Server) serveSubRequest(r *http.Request, tok *accessToken, br batchRequest, base string) response {
	requestID := s.newRequestID()
	rel := br.URL
	if strings.Contains(rel, "://") {
		return graphError(http.StatusBadRequest, "BadRequest", "Batch request urls must be relative, e.g. /me/onenote/notebooks.", requestID, s.now())
	}
	if !strings.HasPrefix(rel, "/") {
		rel = "/" + rel
	}
	u, err := url.Parse("/v1.0" + rel)
	if err != nil {
		return graphError(http.StatusBadRequest, "BadRequest", "Invalid request url.", requestID, s.now())
	}
	clientRequestID := ""
	for k, v := range br.Headers {
		if strings.EqualFold(k, "client-request-id") {
			clientRequestID = v
		}
	}
	resp := s.serveAPI(r.Context(), tok, strings.ToUpper(br.Method), u, base, requestID, clientRequestID)
	if resp.status == http.StatusOK && isPageContent(u.Path) {
		// Page HTML does not come back usable through $batch (reference
		// fact 16, [M5]): the emulator answers 200 with the HTML headers
		// and no body, the failure a client can mistake for an empty page.
		resp.body = nil
		return resp
	}
	if resp.status < 300 && s.faultHit(faultBatchInner) {
		pick := seedOf("batch-inner", itoa(s.cfg.Seed), requestID) % 3
		switch pick {
		case 0:
			resp = graphError(http.StatusTooManyRequests, "20166", "", requestID, s.now())
		case 1:
			resp = graphError(http.StatusBadGateway, "10001", "", requestID, s.now())
		default:
			resp = graphError(http.StatusServiceUnavailable, "10002", "", requestID, s.now())
		}
		resp = s.finish(resp, u, requestID, clientRequestID)
	}
	return resp
}

// toBatchResponse turns a response into a batch item: JSON bodies are
// embedded, text bodies (page HTML) become a string, binaries base64.
func toBatchResponse(id string, resp response) batchResponse {
	br := batchResponse{ID: id, Status: resp.status, Headers: map[string]string{}}
	for k, v := range resp.header {
		switch {
		case len(v) == 0 || strings.EqualFold(k, "Content-Length"):
		case strings.EqualFold(k, "request-id"), strings.EqualFold(k, "client-request-id"):
			br.Headers[strings.ToLower(k)] = v[0] // Graph's own spelling
		default:
			br.Headers[k] = v[0]
		}
	}
	ctype := resp.header.Get("Content-Type")
	switch {
	case len(resp.body) == 0:
	case strings.HasPrefix(ctype, "application/json"):
		br.Body = json.RawMessage(resp.body)
	case strings.HasPrefix(ctype, "text/"), strings.HasPrefix(ctype, "multipart/"):
		br.Body = string(resp.body)
	default:
		br.Body = base64.StdEncoding.EncodeToString(resp.body)
	}
	return br
}

// isPageContent reports whether path asks for a page's HTML.
func isPageContent(path string) bool {
	return strings.Contains(path, "/onenote/pages/") && (strings.HasSuffix(path, "/content") || strings.HasSuffix(path, "/$value"))
}

// requestBody returns r's body, decompressed when it is sent with
// Content-Encoding: gzip (msgraph-sdk-go compresses request bodies by
// default and Graph's gateway accepts them, reference fact 27, [S], [M6]).
// Another encoding answers 415, which is the SDKs' cue to resend the body
// uncompressed; a corrupt gzip stream answers 400.
func requestBody(r *http.Request) (io.Reader, int, string) {
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return r.Body, 0, ""
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			return nil, http.StatusBadRequest, "The request body is not valid gzip (Content-Encoding: gzip): " + err.Error() + "."
		}
		return zr, 0, ""
	default:
		return nil, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q is not supported; send the body uncompressed or gzip-compressed.", enc)
	}
}
