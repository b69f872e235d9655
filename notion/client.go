package notion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// APIVersion is the Notion-Version every request carries: databases hold
// data sources, pages are trashed with in_trash (see datasource.go).
const APIVersion = "2026-03-11"

// DefaultBaseURL is the Notion API's address.
const DefaultBaseURL = "https://api.notion.com"

// Config configures a Client. Only Token is required.
type Config struct {
	// BaseURL is the API's scheme and host (DefaultBaseURL if empty); tests
	// point it at the emulator.
	BaseURL string
	// Token supplies the integration token.
	Token TokenSource
	// HTTPClient sends the requests (a client with no timeout of its own
	// if nil; each attempt is bounded by Retry.AttemptTimeout).
	HTTPClient *http.Client
	// Pacing gives every request its token's Pace. A Pacing shared by
	// every worker process (the limiter entity's, wired by the worker)
	// holds the token's rate whatever the number of processes; nil means
	// Pacers.
	Pacing Pacing
	// Pacers shares one pace per token between the Clients of this
	// process: give every Client of the process the same Pacers. It is
	// used when Pacing is nil; nil means a registry of its own.
	Pacers *Pacers
	// Clock tells time and sleeps (SystemClock if nil).
	Clock Clock
	// Retry bounds retries (DefaultRetryPolicy() where zero).
	Retry RetryPolicy
	// Limits are Notion's payload rules (DefaultLimits() where zero).
	Limits Limits
	// Logger receives request logs (slog.Default() if nil).
	Logger *slog.Logger
}

// Client talks to the Notion API: it paces requests per token, retries
// what may be retried, reconciles writes whose outcome is unknown, and
// writes migrated pages exactly once. It is safe for concurrent use.
type Client struct {
	base   *url.URL
	token  TokenSource
	http   *http.Client
	pacing Pacing
	clock  Clock
	retry  RetryPolicy
	limits Limits
	log    *slog.Logger

	// singlePartMax and partBytes are MaxSinglePartBytes and PartBytes
	// (tests shrink them).
	singlePartMax, partBytes int64

	mu      sync.Mutex
	maxFile int64 // workspace cap on uploads, 0 until read
	// sources maps section databases (normalID) to their data source,
	// learned once (datasource.go).
	sources map[string]string
}

// NewClient returns a Client for cfg.
func NewClient(cfg Config) (*Client, error) {
	if cfg.Token == nil {
		return nil, errors.New("notion: Config.Token is required")
	}
	base := cfg.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("notion: invalid base URL %q", base)
	}
	c := &Client{base: u, token: cfg.Token, http: cfg.HTTPClient, pacing: cfg.Pacing, clock: cfg.Clock,
		retry: cfg.Retry.withDefaults(), limits: cfg.Limits.withDefaults(), log: cfg.Logger,
		singlePartMax: MaxSinglePartBytes, partBytes: PartBytes}
	if c.clock == nil {
		c.clock = SystemClock{}
	}
	if c.http == nil {
		c.http = &http.Client{}
	}
	if c.pacing == nil && cfg.Pacers != nil {
		c.pacing = cfg.Pacers
	}
	if c.pacing == nil {
		c.pacing = NewPacers(DefaultPacerConfig(), c.clock)
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	return c, nil
}

// call is one logical API request, sent as many times as its retries need.
type call struct {
	method string
	path   string // e.g. "/v1/pages"; query parameters in query
	query  url.Values
	// body builds a fresh request body for each attempt; nil for none.
	body func() (io.Reader, string, error)
	// reconcile finds out whether a write whose outcome is unknown took
	// effect. If it did, it returns the response body to use in place of
	// the lost one (nil if the caller needs none) and true.
	reconcile func(ctx context.Context) (json.RawMessage, bool, error)
	// out receives the decoded JSON response, if not nil.
	out any
	// timeout, if set, replaces RetryPolicy.AttemptTimeout (file parts
	// take longer than JSON).
	timeout time.Duration
}

// jsonBody returns a body builder that marshals v afresh for each attempt.
func jsonBody(v any) func() (io.Reader, string, error) {
	return func() (io.Reader, string, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, "", err
		}
		return bytes.NewReader(b), "application/json", nil
	}
}

// counterKey carries a request counter in a context (see withCounter).
type counterKey struct{}

// withCounter returns a context whose requests are counted in *n.
func withCounter(ctx context.Context) (context.Context, *atomic.Int64) {
	n := new(atomic.Int64)
	return context.WithValue(ctx, counterKey{}, n), n
}

func countRequest(ctx context.Context) {
	if n, ok := ctx.Value(counterKey{}).(*atomic.Int64); ok {
		n.Add(1)
	}
}

// do sends c until it succeeds, fails for good, or runs out of attempts.
func (c *Client) do(ctx context.Context, cl call) error {
	tok, err := c.token.Token(ctx)
	if err != nil {
		return fmt.Errorf("notion: token: %w", err)
	}
	pacer := c.pacing.Pace(tokenKey(tok))
	var last error
	for attempt := 1; ; attempt++ {
		if attempt > c.retry.MaxAttempts {
			kind := ErrRetryable
			if errors.Is(last, ErrRateLimited) {
				kind = ErrRateLimited
			}
			return &exhaustedError{kind: kind, last: last}
		}
		if err := pacer.Wait(ctx); err != nil {
			return err
		}
		status, hdr, body, err := c.send(ctx, tok, cl)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		v := classify(cl.method, status)
		c.log.LogAttrs(ctx, slog.LevelDebug, "notion request", slog.String("method", cl.method),
			slog.String("path", cl.path), slog.Int("status", status), slog.Int("attempt", attempt), slog.String("verdict", v.String()))
		if err == nil && status >= 300 {
			err = c.apiError(cl, status, hdr, body)
		}
		if v != done && v != fail {
			r := Retry{Method: cl.method, Path: cl.path, Status: status, Err: err, Attempt: attempt, At: c.clock.Now()}
			var ae *APIError
			if errors.As(err, &ae) {
				r.Code, r.Reason = ae.Code, ae.RateLimitReason
			}
			observeRetry(ctx, r)
		}
		switch v {
		case done:
			if cl.out != nil && len(body) > 0 {
				if err := json.Unmarshal(body, cl.out); err != nil {
					return fmt.Errorf("notion: %s %s: decoding response: %w", cl.method, cl.path, err)
				}
			}
			return nil
		case fail:
			return err
		case waitAndRetry:
			wait, ok := parseRetryAfter(hdr.Get("Retry-After"), c.clock.Now())
			if !ok {
				wait = c.retry.backoff(attempt)
			}
			// The pause holds every request of this token, this one too,
			// in every worker sharing the Pacing: a workspace limit's
			// Retry-After can be minutes, and requests sent meanwhile
			// would only be refused again.
			pacer.Pause(c.clock.Now().Add(wait))
			reason := ""
			var ae *APIError
			if errors.As(err, &ae) {
				reason = ae.RateLimitReason
			}
			c.log.LogAttrs(ctx, slog.LevelWarn, "notion rate limited", slog.String("path", cl.path),
				slog.Int("status", status), slog.Duration("retry_after", wait), slog.String("reason", reason))
		case backOffAndRetry:
			c.log.LogAttrs(ctx, slog.LevelWarn, "notion transient failure", slog.String("method", cl.method),
				slog.String("path", cl.path), slog.Int("status", status), slog.Int("attempt", attempt), slog.Any("error", err))
			if err := c.clock.Sleep(ctx, c.retry.backoff(attempt)); err != nil {
				return err
			}
		case reconcile:
			c.log.LogAttrs(ctx, slog.LevelWarn, "notion write outcome unknown", slog.String("method", cl.method),
				slog.String("path", cl.path), slog.Int("status", status), slog.Any("error", err))
			if cl.reconcile == nil {
				return fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
			}
			if err := c.clock.Sleep(ctx, c.retry.backoff(attempt)); err != nil {
				return err
			}
			raw, applied, rerr := cl.reconcile(ctx)
			if rerr != nil {
				return fmt.Errorf("%w: %s %s: looking it up: %w", ErrUnknownOutcome, cl.method, cl.path, rerr)
			}
			if applied {
				c.log.LogAttrs(ctx, slog.LevelInfo, "notion write had taken effect", slog.String("method", cl.method), slog.String("path", cl.path))
				if cl.out != nil && raw != nil {
					if err := json.Unmarshal(raw, cl.out); err != nil {
						return fmt.Errorf("notion: %s %s: decoding reconciled response: %w", cl.method, cl.path, err)
					}
				}
				return nil
			}
		}
		last = err
	}
}

// send makes one attempt. status is 0 if no response arrived.
func (c *Client) send(ctx context.Context, tok string, cl call) (int, http.Header, []byte, error) {
	countRequest(ctx)
	timeout := c.retry.AttemptTimeout
	if cl.timeout > 0 {
		timeout = cl.timeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	u := *c.base
	u.Path += cl.path
	u.RawQuery = cl.query.Encode()
	var body io.Reader
	ctype := ""
	if cl.body != nil {
		var err error
		if body, ctype, err = cl.body(); err != nil {
			return 0, nil, nil, fmt.Errorf("notion: %s %s: building body: %w", cl.method, cl.path, err)
		}
	}
	req, err := http.NewRequestWithContext(actx, cl.method, u.String(), body)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("notion: %s %s: %w", cl.method, cl.path, err)
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Notion-Version", APIVersion)
	req.Header.Set("Accept", "application/json")
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		// url.Error quotes the URL, which holds no secret; the token
		// travels in a header only.
		return 0, nil, nil, fmt.Errorf("notion: %s %s: %w", cl.method, cl.path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("notion: %s %s: reading response: %w", cl.method, cl.path, err)
	}
	return resp.StatusCode, resp.Header, data, nil
}

// apiError decodes Notion's error body (or makes do with the status when
// the body is not JSON, as a gateway's 502 page is not).
func (c *Client) apiError(cl call, status int, hdr http.Header, body []byte) *APIError {
	e := &APIError{Method: cl.method, Path: cl.path, Status: status}
	var j struct {
		Code           string `json:"code"`
		Message        string `json:"message"`
		RequestID      string `json:"request_id"`
		AdditionalData struct {
			RateLimitReason string `json:"rate_limit_reason"`
		} `json:"additional_data"`
	}
	if json.Unmarshal(body, &j) == nil {
		e.Code, e.Message, e.RequestID = j.Code, j.Message, j.RequestID
		e.RateLimitReason = j.AdditionalData.RateLimitReason
	} else {
		e.Message = http.StatusText(status)
	}
	if d, ok := parseRetryAfter(hdr.Get("Retry-After"), c.clock.Now()); ok {
		e.RetryAfter = d
	}
	return e
}
