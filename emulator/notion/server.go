package notion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Server is an in-memory Notion workspace behind Notion's REST API. It is
// an http.Handler and safe for concurrent use.
type Server struct {
	cfg  Config
	now  func() time.Time
	log  *slog.Logger
	api  *http.ServeMux // /v1/...
	view *template.Template
	emu  *http.ServeMux // /_emulator/...

	mu       sync.Mutex
	rng      *rand.Rand // IDs
	faultRng *rand.Rand // fault decisions
	reqRng   *rand.Rand // request IDs, so object IDs depend only on writes
	seq      int64
	tokens   map[string]*tokenState
	nodes    map[string]*node
	uploads  map[string]*upload
	rootID   string
	botID    string
	// blocksCreated counts lifetime blocks (pages included) for the
	// workspace block limit.
	blocksCreated int
	blockLimit    int
	rate          float64
	burst         int
	wsRate        float64 // workspace-wide requests per second (0: off)
	wsBurst       int
	wsBucket      bucket
	// wsWindow is the workspace's 2026 request window (Config.Plan).
	wsWindow window
	// caller is the token of the request a locked handler is serving
	// (handlers run one at a time under mu), for per-request lookups
	// such as the token's connection kind.
	caller string
	faults Faults
	forced []Fault
	// partialWrites are the writes FaultPartialWrite cut, in order.
	partialWrites []PartialWrite
	// expireNext counts the next uploads to expire as soon as they are
	// uploaded (InjectUploadExpiry).
	expireNext int
	byStatus   map[int]int64
	requests   int64
	// ver is the Notion-Version of the request a locked handler is
	// serving: responses take its shapes (empty outside a request).
	ver string
	// views are the databases' views by ID (dbviews.go).
	views map[string]*dbView
}

// NewServer returns a server with an empty workspace holding one root page
// (RootPageID) shared with the integration.
func NewServer(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:           cfg,
		now:           cfg.Now,
		log:           cfg.Logger,
		rng:           rand.New(rand.NewPCG(cfg.Seed, 0x6e6f74696f6e)),
		faultRng:      rand.New(rand.NewPCG(cfg.Seed, 0x6661756c7473)),
		reqRng:        rand.New(rand.NewPCG(cfg.Seed, 0x72657169)),
		tokens:        map[string]*tokenState{},
		nodes:         map[string]*node{},
		uploads:       map[string]*upload{},
		blockLimit:    cfg.WorkspaceBlockLimit,
		blocksCreated: cfg.BlocksUsed,
		rate:          cfg.Rate,
		burst:         cfg.Burst,
		wsRate:        cfg.WorkspaceRate,
		wsBurst:       cfg.WorkspaceBurst,
		faults:        cfg.Faults,
		byStatus:      map[int]int64{},
		view:          newViewTemplate(),
	}
	s.botID = newUUID(s.rng)
	for _, t := range cfg.Tokens {
		s.tokens[t] = s.newTokenState(AllCapabilities())
	}
	root := s.newPage(parentRef{typ: parentWorkspace}, titleProperties(cfg.RootPageTitle))
	s.rootID = root.id
	s.routes()
	return s
}

// RootPageID is the ID of the workspace-level page shared with the
// integration; migrations write under it.
func (s *Server) RootPageID() string { return s.rootID }

// BotID is the ID of the integration's bot user.
func (s *Server) BotID() string { return s.botID }

func (s *Server) routes() {
	s.api = http.NewServeMux()
	s.api.HandleFunc("POST /v1/pages", s.locked(capInsert, s.createPage))
	s.api.HandleFunc("GET /v1/pages/{id}", s.locked(capRead, s.retrievePage))
	s.api.HandleFunc("PATCH /v1/pages/{id}", s.locked(capUpdate, s.updatePage))
	s.api.HandleFunc("POST /v1/pages/{id}/move", s.locked(capUpdate, s.movePage))
	s.api.HandleFunc("POST /v1/databases", s.locked(capInsert, s.createDatabase))
	s.api.HandleFunc("GET /v1/databases/{id}", s.locked(capRead, s.retrieveDatabase))
	s.api.HandleFunc("PATCH /v1/databases/{id}", s.locked(capUpdate, s.updateDatabase))
	s.api.HandleFunc("POST /v1/databases/{id}/query", s.locked(capRead, s.queryDatabase))
	s.api.HandleFunc("POST /v1/data_sources", s.locked(capInsert, s.createDataSource))
	s.api.HandleFunc("GET /v1/data_sources/{id}", s.locked(capRead, s.retrieveDataSource))
	s.api.HandleFunc("PATCH /v1/data_sources/{id}", s.locked(capUpdate, s.updateDataSource))
	s.api.HandleFunc("POST /v1/data_sources/{id}/query", s.locked(capRead, s.queryDataSource))
	s.api.HandleFunc("GET /v1/views", s.locked(capRead, s.listViews))
	s.api.HandleFunc("POST /v1/views", s.locked(capUpdate, s.createView))
	s.api.HandleFunc("GET /v1/views/{id}", s.locked(capRead, s.retrieveView))
	s.api.HandleFunc("PATCH /v1/views/{id}", s.locked(capUpdate, s.updateView))
	s.api.HandleFunc("DELETE /v1/views/{id}", s.locked(capUpdate, s.deleteView))
	s.api.HandleFunc("GET /v1/blocks/{id}", s.locked(capRead, s.retrieveBlock))
	s.api.HandleFunc("PATCH /v1/blocks/{id}", s.locked(capUpdate, s.updateBlock))
	s.api.HandleFunc("DELETE /v1/blocks/{id}", s.locked(capUpdate, s.deleteBlock))
	s.api.HandleFunc("GET /v1/blocks/{id}/children", s.locked(capRead, s.listChildren))
	s.api.HandleFunc("PATCH /v1/blocks/{id}/children", s.locked(capInsert, s.appendChildren))
	s.api.HandleFunc("POST /v1/file_uploads", s.locked(capInsert, s.createUpload))
	s.api.HandleFunc("GET /v1/file_uploads", s.locked(capRead, s.listUploads))
	s.api.HandleFunc("GET /v1/file_uploads/{id}", s.locked(capRead, s.retrieveUpload))
	s.api.HandleFunc("POST /v1/file_uploads/{id}/send", s.unlocked(capInsert, s.sendUpload))
	s.api.HandleFunc("POST /v1/file_uploads/{id}/complete", s.locked(capInsert, s.completeUpload))
	s.api.HandleFunc("GET /v1/users/me", s.locked(capNone, s.usersMe))
	s.api.HandleFunc("GET /v1/users", s.locked(capNone, s.listUsers))
	s.api.HandleFunc("POST /v1/search", s.locked(capRead, s.search))
	s.api.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, requestID(r.Context()), errInvalidURL)
	})

	s.emu = http.NewServeMux()
	s.emu.HandleFunc("GET /_emulator/export", s.serveExport)
	s.emu.HandleFunc("GET /_emulator/stats", s.serveStats)
	s.emu.HandleFunc("GET /_emulator/view", s.serveView)
	s.emu.HandleFunc("GET /_emulator/view/{id}", s.serveView)
	s.emu.HandleFunc("GET /_emulator/files/{id}/{name}", s.serveFile)
	s.emu.HandleFunc("GET /_emulator/faults", s.serveFaults)
	s.emu.HandleFunc("PUT /_emulator/faults", s.serveFaults)
	s.emu.HandleFunc("GET /_emulator/partial-writes", s.servePartialWrites)
	s.emu.HandleFunc("DELETE /_emulator/partial-writes", s.servePartialWrites)
	s.emu.HandleFunc("GET /_emulator/log", s.serveLog)
	s.emu.HandleFunc("DELETE /_emulator/log", s.serveLog)
	s.emu.HandleFunc("GET /_emulator/capabilities", s.serveCapabilities)
	s.emu.HandleFunc("PUT /_emulator/capabilities", s.serveCapabilities)
}

// ServeHTTP serves the Notion API under /v1/ and the emulator's own
// endpoints under /_emulator/.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasPrefix(r.URL.Path, "/_emulator/") {
		s.emu.ServeHTTP(w, r)
		return
	}
	s.serveAPI(w, r)
}

type requestIDKey struct{}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// serveAPI runs the checks every API request goes through (authentication,
// rate limit, version header, faults) and then routes it.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	arrived := s.now()
	s.mu.Lock()
	reqID := newUUID(s.reqRng)
	s.mu.Unlock()
	r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, reqID))
	rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
	token, known := s.authenticate(r)
	entry := -1
	defer func() {
		s.finish(token, entry, rec.status)
		// The token is named by its fingerprint only: tokens never enter logs.
		s.log.Debug("notion emulator request", "method", r.Method, "path", r.URL.Path,
			"status", rec.status, "request_id", reqID, "token", TokenFingerprint(token))
	}()
	if !known {
		writeError(rec, reqID, errUnauthorized)
		return
	}
	var (
		retryAfter int
		reason     string
	)
	entry, retryAfter, reason = s.admit(token, arrived, r.Method, r.URL.Path)
	if retryAfter > 0 {
		e := newError(http.StatusTooManyRequests, codeRateLimited,
			"You have been rate limited. Please try again in a few minutes.")
		e.retryAfter = retryAfter
		e.additional = map[string]any{"rate_limit_reason": reason}
		writeError(rec, reqID, e)
		return
	}
	if e := checkVersion(r.Header.Get("Notion-Version")); e != nil {
		writeError(rec, reqID, e)
		return
	}
	r = r.WithContext(withVersion(r.Context(), r.Header.Get("Notion-Version")))
	fault := s.pickFault(r.Method, r.URL.Path)
	switch fault {
	case FaultNone:
	case FaultPartialWrite:
		// Served as usual; the handler keeps only part of the write.
		r = r.WithContext(context.WithValue(r.Context(), partialKey{}, true))
	case FaultSlow:
		s.mu.Lock()
		d := s.faults.slowDelay()
		s.mu.Unlock()
		s.cfg.Sleep(r.Context(), d)
	case FaultAppliedThenInternalError, FaultAppliedThenGatewayTimeout:
		buf := newBufferedResponse()
		s.api.ServeHTTP(buf, r)
		if buf.status >= 300 {
			buf.copyTo(rec)
			return
		}
		s.writeFault(rec, reqID, fault, arrived, token)
		return
	default:
		s.writeFault(rec, reqID, fault, arrived, token)
		return
	}
	s.api.ServeHTTP(rec, r)
}

// authenticate reads the bearer token and says whether it is known.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		return "", false
	}
	token = strings.TrimSpace(token)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, known := s.tokens[token]
	return token, known
}

// call is one API request as a handler sees it.
type call struct {
	r     *http.Request
	token string
	body  map[string]any
	// base is the scheme and host the client used, for URLs the server
	// hands out (upload URLs, file URLs).
	base string
}

func (c *call) pathID() string { return c.r.PathValue("id") }

type apiFunc func(c *call) (any, error)

// locked adapts h, an endpoint that needs capability need: it checks the
// capability, reads and decodes a JSON body for POST and PATCH, runs h
// holding the server lock and writes its result or error.
func (s *Server) locked(need capability, h apiFunc) http.HandlerFunc {
	return s.adapt(need, h, true)
}

// unlocked adapts h without decoding the body or taking the lock; h does
// both itself (file upload parts are read before locking).
func (s *Server) unlocked(need capability, h apiFunc) http.HandlerFunc {
	return s.adapt(need, h, false)
}

func (s *Server) adapt(need capability, h apiFunc, lock bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		reqID := requestID(r.Context())
		c := &call{r: r, token: bearerToken(r), base: baseURL(r)}
		if !s.allowed(c.token, need) {
			writeError(w, reqID, errRestricted)
			return
		}
		if lock && (r.Method == http.MethodPost || r.Method == http.MethodPatch) {
			if r.ContentLength > maxRequestBytes {
				// Refused on the declared length, before reading ([N6]).
				writeError(w, reqID, errTooLarge)
				return
			}
			data, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
			if err != nil {
				writeError(w, reqID, errInvalidJSON)
				return
			}
			if len(data) > maxRequestBytes {
				writeError(w, reqID, errTooLarge)
				return
			}
			c.body, err = decodeJSON(data)
			if err != nil {
				writeError(w, reqID, errInvalidJSON)
				return
			}
		}
		v, err := s.invoke(h, c, lock)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) {
				s.log.Error("notion emulator: handler failed", "path", r.URL.Path, "err", err)
				ae = newError(http.StatusInternalServerError, codeInternal, "Unexpected error occurred.")
			}
			writeError(w, reqID, ae)
			return
		}
		if m, ok := v.(map[string]any); ok {
			// Successful answers carry request_id too ([N3], SDK types [N4]).
			m["request_id"] = reqID
		}
		writeJSON(w, http.StatusOK, v)
	}
}

// allowed says whether token holds capability need.
func (s *Server) allowed(token string, need capability) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tokens[token]
	return ok && st.caps.has(need)
}

// invoke runs h (holding the lock if asked) and turns a panic into an
// error, so one bad request cannot take the emulator down.
func (s *Server) invoke(h apiFunc, c *call, lock bool) (v any, err error) {
	if lock {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.caller = c.token
		s.ver = c.version()
		defer func() { s.caller, s.ver = "", "" }()
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic in handler: %v", p)
		}
	}()
	return h(c)
}

func bearerToken(r *http.Request) string {
	t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return strings.TrimSpace(t)
}

func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

type errorBody struct {
	Object    string `json:"object"`
	Status    int    `json:"status"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
	// AdditionalData carries retry guidance (e.g. rate_limit_reason).
	AdditionalData map[string]any `json:"additional_data,omitempty"`
}

func writeError(w http.ResponseWriter, reqID string, e *apiError) {
	if e.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.retryAfter))
	}
	writeJSON(w, e.status, errorBody{Object: "error", Status: e.status, Code: e.code, Message: e.message,
		RequestID: reqID, AdditionalData: e.additional})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		data = []byte(`{"object":"error","status":500,"code":"internal_server_error","message":"Unexpected error occurred."}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	w.Write(data)
}

// statusRecorder remembers the status written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// bufferedResponse holds a response so it can be replaced (a write that
// succeeds but is answered with an error).
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newBufferedResponse() *bufferedResponse {
	return &bufferedResponse{header: http.Header{}, status: http.StatusOK}
}

func (b *bufferedResponse) Header() http.Header         { return b.header }
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
func (b *bufferedResponse) WriteHeader(status int)      { b.status = status }

func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.WriteHeader(b.status)
	w.Write(b.body.Bytes())
}
