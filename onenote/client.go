package onenote

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// DefaultBaseURL is the Microsoft Graph v1.0 endpoint.
const DefaultBaseURL = "https://graph.microsoft.com/v1.0"

// Me selects the signed-in user's notebooks.
const Me = "me"

// User returns the selector for another user's notebooks shared with the
// signed-in user: "users/{id}", id being an object ID or a UPN.
func User(id string) string { return "users/" + url.PathEscape(id) }

// DefaultMaxContentBytes caps the size of a page's content (HTML and
// InkML) when Config.MaxContentBytes is 0.
const DefaultMaxContentBytes = 64 << 20

// maxJSONBytes caps the JSON bodies of listings.
const maxJSONBytes = 64 << 20

// maxErrorBodyBytes caps how much of an error body is read.
const maxErrorBodyBytes = 64 << 10

// Config configures a Client.
type Config struct {
	// BaseURL is the Graph root, DefaultBaseURL if empty. Tests point it
	// at the emulator.
	BaseURL string
	// HTTPClient sends the requests. If nil, NewHTTPClient(0) is used. The
	// client is copied and redirects are turned off, since following one
	// would be an upstream request without a permit. To avoid net/http's
	// silent re-sends, give it a transport like NewHTTPClient's.
	HTTPClient *http.Client
	// Tokens supplies the bearer token. Required.
	Tokens TokenSource
	// User selects whose notebooks are read: Me (the default) or
	// User(id). "groups/{id}" and "sites/{id}" are accepted as well.
	User string
	// MaxContentBytes caps page content; DefaultMaxContentBytes if 0.
	MaxContentBytes int64
}

// Client is a Microsoft Graph OneNote client. Each method makes exactly one
// upstream HTTP request and never retries: the caller obtains a permit
// from the limiter before each call and reports the returned Observation
// back to it. A Client is safe for concurrent use.
type Client struct {
	base       *url.URL
	baseStr    string
	hc         *http.Client
	tokens     TokenSource
	user       string
	maxContent int64
	now        func() time.Time
}

// New returns a Client for cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Tokens == nil {
		return nil, &Error{Kind: KindInvalidArgument, Op: "new client", Message: "Config.Tokens is required"}
	}
	baseStr := strings.TrimRight(cfg.BaseURL, "/")
	if baseStr == "" {
		baseStr = DefaultBaseURL
	}
	base, err := url.Parse(baseStr)
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, &Error{Kind: KindInvalidArgument, Op: "new client", Message: fmt.Sprintf("BaseURL %q is not an absolute http(s) URL", cfg.BaseURL)}
	}
	user := strings.Trim(cfg.User, "/")
	if user == "" {
		user = Me
	}
	if err := validateUser(user); err != nil {
		return nil, err
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = NewHTTPClient(0)
	} else {
		cp := *hc
		cp.CheckRedirect = refuseRedirect
		hc = &cp
	}
	maxContent := cfg.MaxContentBytes
	if maxContent <= 0 {
		maxContent = DefaultMaxContentBytes
	}
	return &Client{
		base:       base,
		baseStr:    baseStr,
		hc:         hc,
		tokens:     cfg.Tokens,
		user:       user,
		maxContent: maxContent,
		now:        time.Now,
	}, nil
}

func validateUser(user string) error {
	if user == Me {
		return nil
	}
	prefix, id, ok := strings.Cut(user, "/")
	if ok && id != "" && !strings.Contains(id, "/") {
		switch prefix {
		case "users", "groups", "sites":
			return nil
		}
	}
	return &Error{Kind: KindInvalidArgument, Op: "new client",
		Message: fmt.Sprintf("User %q must be %q or users/{id} (groups/{id}, sites/{id})", user, Me)}
}

// UserSelector returns the user selector the client was configured with,
// e.g. "me" or "users/{id}".
func (c *Client) UserSelector() string { return c.user }

// OneNotePath returns the path of a OneNote resource relative to the Graph
// root, e.g. OneNotePath("pages/x/content") is "/me/onenote/pages/x/content".
func (c *Client) OneNotePath(rel string) string {
	return "/" + c.user + "/onenote/" + strings.TrimLeft(rel, "/")
}

// url returns the absolute URL of a OneNote resource.
func (c *Client) url(rel string, q url.Values) string {
	u := c.baseStr + c.OneNotePath(rel)
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// sameOrigin reports whether u points at the Graph host the client was
// configured with, so the bearer token is never sent anywhere else.
func (c *Client) sameOrigin(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, c.base.Scheme) && strings.EqualFold(u.Host, c.base.Host)
}

// call describes one upstream request.
type call struct {
	op          string
	method      string
	url         string
	body        []byte
	contentType string
	cost        int
	class       requestClass
}

// send makes one upstream request. On a 2xx it returns the open response,
// which the caller must close. Otherwise it reads the error body, closes
// it, and returns a classified *Error. The Observation always has Cost set
// (0 if nothing was sent) and, for non-2xx, Duration.
func (c *Client) send(ctx context.Context, cl call) (*http.Response, Observation, string, error) {
	if accountWide(cl.url) {
		return nil, Observation{}, "", &Error{Kind: KindInvalidArgument, Op: cl.op,
			Message: "refusing an account-wide listing (/onenote/sections, /onenote/sectionGroups or /onenote/pages): " +
				"Graph answers 500/19999 or 20266 to them; list per notebook, section group or section instead"}
	}
	tok, err := c.tokens.Token(ctx)
	if err != nil {
		kind := KindAuth
		if ctx.Err() != nil {
			kind = KindCanceled
		}
		return nil, Observation{}, "", &Error{Kind: kind, Op: cl.op, Message: "could not get an access token",
			Hint: "sign in again if the refresh token has expired", Err: scrubErr(err, tok)}
	}
	var body io.Reader
	if cl.body != nil {
		body = bytes.NewReader(cl.body)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, cl.url, body)
	if err != nil {
		return nil, Observation{}, tok, &Error{Kind: KindInvalidArgument, Op: cl.op, Message: "cannot build request", Err: err}
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	if cl.contentType != "" {
		req.Header.Set("Content-Type", cl.contentType)
	}
	start := c.now()
	resp, err := c.hc.Do(req)
	if err != nil {
		obs := Observation{Cost: cl.cost, Sent: start, Duration: c.now().Sub(start)}
		kind := KindTransient
		if ctx.Err() != nil {
			kind = KindCanceled
		}
		return nil, obs, tok, &Error{Kind: kind, Op: cl.op, Message: "request failed", Err: scrubErr(err, tok)}
	}
	obs := observe(resp.StatusCode, resp.Header, start)
	obs.Cost = cl.cost
	obs.Sent = start
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, obs, tok, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBodyBytes))
	obs.Duration = c.now().Sub(start)
	eb, _ := ParseErrorBody(raw)
	obs.Code = eb.Code
	e := responseError(cl.op, resp.StatusCode, eb, obs.RequestID, cl.class, tok)
	if e.Kind == KindAuth {
		if inv, ok := c.tokens.(TokenInvalidator); ok {
			inv.InvalidateToken(tok)
		}
	}
	if e.Message == "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
		e.Message = "unexpected redirect (not followed: it would be a request without a permit)"
	}
	return nil, obs, tok, e
}

// accountWideCollections are the OneNote collections that list a whole
// account. Real Graph answers /sections and /sectionGroups without a
// $filter with 500/19999 every time and /pages with 20266 on accounts with
// many sections (graph-reality.md #4, #5), so the client never sends them.
var accountWideCollections = []string{"/onenote/sections", "/onenote/sectiongroups", "/onenote/pages"}

// accountWide reports whether u is one of the account-wide listings.
func accountWide(u string) bool {
	pu, err := url.Parse(u)
	if err != nil {
		return false
	}
	p := strings.ToLower(strings.TrimRight(pu.Path, "/"))
	for _, c := range accountWideCollections {
		if strings.HasSuffix(p, c) {
			return true
		}
	}
	return false
}

// responseError builds the *Error for a non-2xx response.
func responseError(op string, status int, eb ErrorBody, requestID string, rc requestClass, tok string) *Error {
	kind, hint := classify(status, eb.Code, rc)
	return &Error{
		Kind:      kind,
		Op:        op,
		Status:    status,
		Code:      scrub(eb.Code, tok),
		Message:   scrub(eb.Message, tok),
		Hint:      hint,
		RequestID: requestID,
	}
}

// readBody reads a 2xx body of at most limit bytes and closes it. A body
// that ends early is a transient error; a body over the limit is
// KindTooLarge.
func (c *Client) readBody(resp *http.Response, op string, limit int64, tok string) ([]byte, error) {
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &Error{Kind: KindTransient, Op: op, Status: resp.StatusCode,
			Message: "response body was cut short", Err: scrubErr(err, tok)}
	}
	if int64(len(b)) > limit {
		return nil, &Error{Kind: KindTooLarge, Op: op, Status: resp.StatusCode,
			Message: fmt.Sprintf("response body is larger than the %d-byte cap", limit)}
	}
	return b, nil
}

// malformed returns the error for a 2xx body that could not be decoded.
// Truncated bodies look like this too, so it is transient.
func malformed(op string, status int, err error) *Error {
	return &Error{Kind: KindTransient, Op: op, Status: status,
		Message: "response body is truncated or not the JSON expected", Err: err}
}
