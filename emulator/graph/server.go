package graph

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Server emulates the Microsoft Graph OneNote API and the Microsoft
// identity platform endpoints it needs. Create it with NewServer; it is an
// http.Handler safe for concurrent use.
type Server struct {
	cfg        Config
	now        func() time.Time
	log        *slog.Logger
	appID      string
	tenantID   string
	advertised Limits // scaled, what clients are told and judged by
	enforced   Limits // scaled and possibly tightened
	baseURL    atomic.Value

	limiter *limiter
	rec     *recorder
	reqSeq  atomic.Uint64
	batches atomic.Uint64
	// arrivals counts Graph requests inside serveAPI, admitted or not (for
	// the burst fault).
	arrivals atomic.Int64

	rendered *renderCache

	dataMu    sync.RWMutex
	users     map[string]*userData
	resources map[string]Resource

	authMu   sync.Mutex
	tokenSeq uint64
	tokens   map[string]*accessToken
	refresh  map[string]*refreshGrant
	// issued lists every token ever issued (for IssuedSecrets).
	issued  []string
	devices map[string]*deviceGrant // by device_code
	codes   map[string]*deviceGrant // by user_code

	faultMu  sync.Mutex
	faults   Faults
	faultSeq map[faultKind]uint64
	// burstUntil ends the refusals a burst started; expandOutageUntil the
	// current $expand outage (both zero when none).
	burstUntil        time.Time
	expandOutageUntil time.Time
}

// NewServer returns a server with no data; add some with AddNotebooks.
func NewServer(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if len(cfg.Limits.User.Windows) == 0 && len(cfg.Limits.App.Windows) == 0 &&
		cfg.Limits.User.Concurrency == 0 && cfg.Limits.App.Concurrency == 0 {
		cfg.Limits = DefaultLimits()
	}
	if cfg.TimeScale <= 0 {
		cfg.TimeScale = 1
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = time.Hour
	}
	if cfg.BatchConcurrency <= 0 {
		cfg.BatchConcurrency = 4
	}
	if cfg.AllPagesSectionLimit <= 0 {
		cfg.AllPagesSectionLimit = 10
	}
	if cfg.AppID == "" {
		cfg.AppID = "6b1f3c5e-2d4a-4e8b-9c7d-0a1b2c3d4e5f"
	}
	if cfg.TenantID == "" {
		cfg.TenantID = guidOf("tenant", itoa(cfg.Seed))
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg:        cfg,
		now:        cfg.Now,
		log:        logger,
		appID:      cfg.AppID,
		tenantID:   cfg.TenantID,
		advertised: cfg.Limits.Scaled(cfg.TimeScale),
		users:      make(map[string]*userData),
		resources:  make(map[string]Resource),
		tokens:     make(map[string]*accessToken),
		refresh:    make(map[string]*refreshGrant),
		devices:    make(map[string]*deviceGrant),
		codes:      make(map[string]*deviceGrant),
		faultSeq:   make(map[faultKind]uint64),
		rec:        newRecorder(),
		rendered:   newRenderCache(),
	}
	s.enforced = s.advertised.Tightened(cfg.HiddenLimitFactor)
	s.limiter = newLimiter(s.enforced, !cfg.ThrottledNotCounted, cfg.Now)
	s.baseURL.Store(strings.TrimSuffix(cfg.BaseURL, "/"))
	return s
}

// SetBaseURL sets the scheme and host used in nextLinks, resource URLs and
// verification_uri, e.g. ts.URL of an httptest.Server. Empty means derive
// it from each request's Host header (the default).
func (s *Server) SetBaseURL(base string) { s.baseURL.Store(strings.TrimSuffix(base, "/")) }

// AppID returns the application id this instance represents.
func (s *Server) AppID() string { return s.appID }

// AdvertisedLimits returns the limits clients are told about (scaled).
func (s *Server) AdvertisedLimits() Limits { return s.advertised.clone() }

// EnforcedLimits returns the limits actually enforced (scaled, and
// tightened when hidden limits are on).
func (s *Server) EnforcedLimits() Limits { return s.enforced.clone() }

// UserGUID returns the object id the emulator gives user; /users/{id}
// accepts it as well as the user name.
func UserGUID(user string) string { return guidOf("user", user) }

func (s *Server) base(r *http.Request) string {
	if b := s.baseURL.Load().(string); b != "" {
		return b
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *Server) newRequestID() string {
	return guidOf("request", itoa(s.cfg.Seed), itoa(s.reqSeq.Add(1)))
}

// ServeHTTP routes identity, emulator and Graph requests.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	switch {
	case strings.HasPrefix(p, "/_emulator/"):
		s.serveEmulator(w, r)
	case p == "/devicelogin":
		s.serveDeviceLogin(w, r)
	case strings.Contains(p, "/oauth2/v2.0/"):
		s.serveIdentity(w, r)
	case p == "/v1.0/$batch":
		s.serveBatch(w, r)
	case strings.HasPrefix(p, "/v1.0/"):
		s.serveGraph(w, r)
	default:
		graphError(http.StatusNotFound, "BadRequest", "Resource not found for the segment '"+strings.TrimPrefix(p, "/")+"'.", s.newRequestID(), s.now()).write(w)
	}
}

// serveGraph answers one plain (non-batch) Graph request.
func (s *Server) serveGraph(w http.ResponseWriter, r *http.Request) {
	requestID := s.newRequestID()
	tok, err := s.authenticate(r)
	if err != nil {
		s.rec.countUnauthorized()
		s.unauthorized(err, requestID).write(w)
		return
	}
	resp := s.serveAPI(r.Context(), tok, r.Method, r.URL, s.base(r), requestID, r.Header.Get("client-request-id"))
	s.log.Debug("graph request", "user", tok.user, "method", r.Method, "path", r.URL.Path, "status", resp.status, "code", resp.code)
	if resp.status < 300 && s.faultHit(faultTruncate) {
		writeTruncated(w, resp)
		return
	}
	resp.write(w)
}

// serveAPI counts, throttles and answers one Graph request (plain or a
// $batch sub-request) of the token's user. clientRequestID is the
// caller's client-request-id header, echoed as Graph does (empty: the
// request id).
func (s *Server) serveAPI(ctx context.Context, tok *accessToken, method string, u *url.URL, base, requestID, clientRequestID string) response {
	arriving := s.arrivals.Add(1)
	defer s.arrivals.Add(-1)
	adm := s.limiter.admit(tok.user)
	var resp response
	if s.burstRefused(int(arriving)) {
		if adm.admitted {
			s.limiter.release(tok.user)
		}
		resp = graphError(http.StatusTooManyRequests, "10007", "", requestID, s.now())
	} else {
		resp = s.answerAdmitted(ctx, tok, adm, method, u, base, requestID)
	}
	resp = s.finish(resp, u, requestID, clientRequestID)
	s.rec.record(tok.user, adm.at, u.RequestURI(), resp.status, resp.code, adm.scope)
	return resp
}

// finish sets the request-id headers of resp and renders an error body
// with them, in the configured locale; a 20166 on a resource download
// carries "Too may connections" ([M3] #257).
func (s *Server) finish(resp response, u *url.URL, requestID, clientRequestID string) response {
	if clientRequestID == "" {
		clientRequestID = requestID
	}
	if resp.code != "" && resp.status >= 400 {
		if resp.code == "20166" && isResourcePath(u.Path) {
			resp.message = tooManyConnections
		}
		resp = resp.withErrorBody(requestID, clientRequestID, s.currentFaults().MessageLocale)
	}
	if resp.header == nil {
		resp.header = http.Header{}
	}
	resp.header.Set("request-id", requestID)
	resp.header.Set("client-request-id", clientRequestID)
	return resp
}

// isResourcePath reports whether path is a resource download.
func isResourcePath(path string) bool {
	return strings.Contains(path, "/onenote/resources/")
}

func (s *Server) answerAdmitted(ctx context.Context, tok *accessToken, adm admission, method string, u *url.URL, base, requestID string) response {
	if !adm.admitted {
		resp := graphError(http.StatusTooManyRequests, adm.code, "", requestID, s.now())
		s.setScopeHeader(resp.header, adm.scope, tok.user)
		return resp
	}
	defer s.limiter.release(tok.user)
	if !hasNotesScope(tok.scopes) {
		return graphError(http.StatusForbidden, "40004", "", requestID, s.now())
	}
	s.slowFault(ctx)
	if resp, hit := s.serverErrorFault(requestID); hit {
		return resp
	}
	if s.faultHit(faultThrottle) {
		resp := graphError(http.StatusTooManyRequests, "20166", "", requestID, s.now())
		s.setScopeHeader(resp.header, scopeUser, tok.user)
		return resp
	}
	ar := &apiRequest{
		method:    method,
		url:       u,
		query:     parseQuery(u.RawQuery),
		caller:    tok.user,
		base:      base,
		requestID: requestID,
	}
	resp := s.route(ar)
	if len(ar.listed) > 0 {
		s.afterListing(ar.listed)
	}
	if s.cfg.PercentageHeader && resp.status < 300 && adm.usage >= 0.8 {
		if resp.header == nil {
			resp.header = http.Header{}
		}
		resp.header.Set("x-ms-throttle-limit-percentage", strconv.FormatFloat(adm.usage, 'f', 2, 64))
	}
	return resp
}

// setScopeHeader sets x-ms-throttle-scope for a throttled request.
func (s *Server) setScopeHeader(h http.Header, scope, user string) {
	switch s.cfg.ScopeHeader {
	case ScopeHeaderSimple:
		h.Set("x-ms-throttle-scope", scope)
	case ScopeHeaderFull:
		id := s.tenantID
		if scope == scopeUser {
			id = UserGUID(user)
		}
		h.Set("x-ms-throttle-scope", fmt.Sprintf("%s/Read/%s/%s", scope, s.appID, id))
	}
}

// writeTruncated declares the full body length, writes half of it and
// closes the connection. Without a hijackable connection (an in-process
// recorder) it only writes half the body.
func writeTruncated(w http.ResponseWriter, resp response) {
	half := resp.body[:len(resp.body)/2]
	hj, ok := w.(http.Hijacker)
	if !ok {
		for k, v := range resp.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
		w.WriteHeader(resp.status)
		_, _ = w.Write(half)
		return
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	resp.header.Set("Content-Length", strconv.Itoa(len(resp.body)))
	writeRawResponse(buf.Writer, resp.status, resp.header, half)
	_ = buf.Flush()
}

func writeRawResponse(w *bufio.Writer, status int, h http.Header, body []byte) {
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\n", status, http.StatusText(status))
	_ = h.Write(w)
	_, _ = io.WriteString(w, "\r\n")
	_, _ = w.Write(body)
}
