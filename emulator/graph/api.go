package graph

import (
	"log/slog"
	"time"
)

// Window is one rolling rate window: at most N requests may reach the
// server in any span of time shorter than Duration. Windows slide (the
// emulator keeps a log of request times); they are never fixed buckets.
type Window struct {
	N        int
	Duration time.Duration
}

// ScopeLimits are the limits of one scope (a user, or the app).
type ScopeLimits struct {
	// Windows are enforced together; whichever runs out first throttles.
	Windows []Window
	// Concurrency is the most requests in flight at once (0 means no cap).
	Concurrency int
}

// Limits are the OneNote limits for both scopes. User limits apply to each
// user separately; App limits apply to the sum over all users of the one
// app an emulator instance represents.
type Limits struct {
	User ScopeLimits
	App  ScopeLimits
}

// DefaultLimits returns the documented OneNote limits: per user 120 per
// minute, 400 per hour and 5 concurrent; per app 240 per minute, 800 per
// hour and 20 concurrent.
func DefaultLimits() Limits {
	return Limits{
		User: ScopeLimits{
			Windows:     []Window{{N: 120, Duration: time.Minute}, {N: 400, Duration: time.Hour}},
			Concurrency: 5,
		},
		App: ScopeLimits{
			Windows:     []Window{{N: 240, Duration: time.Minute}, {N: 800, Duration: time.Hour}},
			Concurrency: 20,
		},
	}
}

// UnlimitedLimits returns limits no client will reach (a billion requests a
// second, no concurrency cap), for tests and benchmarks that are not about
// throttling. (A zero Limits in Config means DefaultLimits, not "none".)
func UnlimitedLimits() Limits {
	w := []Window{{N: 1 << 30, Duration: time.Second}}
	return Limits{User: ScopeLimits{Windows: w}, App: ScopeLimits{Windows: append([]Window(nil), w...)}}
}

// Scaled returns l with every window shortened by timeScale: with a scale
// of 60 a minute lasts one second and an hour one minute. A scale of 0 or 1
// returns l unchanged.
func (l Limits) Scaled(timeScale float64) Limits {
	if timeScale <= 0 || timeScale == 1 {
		return l.clone()
	}
	out := l.clone()
	for _, sl := range []*ScopeLimits{&out.User, &out.App} {
		for i := range sl.Windows {
			sl.Windows[i].Duration = time.Duration(float64(sl.Windows[i].Duration) / timeScale)
		}
	}
	return out
}

// Tightened returns l with every request count and concurrency cap
// multiplied by factor (rounded down, at least 1). A factor of 0.7 enforces
// limits 30% stricter than advertised. A factor of 0 or >= 1 returns l
// unchanged.
func (l Limits) Tightened(factor float64) Limits {
	out := l.clone()
	if factor <= 0 || factor >= 1 {
		return out
	}
	shrink := func(n int) int {
		if n <= 0 {
			return n
		}
		return max(1, int(float64(n)*factor))
	}
	for _, sl := range []*ScopeLimits{&out.User, &out.App} {
		for i := range sl.Windows {
			sl.Windows[i].N = shrink(sl.Windows[i].N)
		}
		sl.Concurrency = shrink(sl.Concurrency)
	}
	return out
}

func (l Limits) clone() Limits {
	out := l
	out.User.Windows = append([]Window(nil), l.User.Windows...)
	out.App.Windows = append([]Window(nil), l.App.Windows...)
	return out
}

// ScopeHeaderMode selects what x-ms-throttle-scope says on a 429.
type ScopeHeaderMode int

const (
	// ScopeHeaderNone sends no x-ms-throttle-scope (what OneNote is
	// documented to do; the header is documented only for other services).
	ScopeHeaderNone ScopeHeaderMode = iota
	// ScopeHeaderSimple sends "User" or "Application".
	ScopeHeaderSimple
	// ScopeHeaderFull sends the documented "<Scope>/<Limit>/<AppId>/<Id>"
	// form, e.g. "User/Read/<app GUID>/<user GUID>" or
	// "Application/Read/<app GUID>/<tenant GUID>".
	ScopeHeaderFull
)

// Config configures a Server. The zero value is usable: it enforces
// DefaultLimits in real time with seed 0.
type Config struct {
	// Limits are the advertised limits. Zero means DefaultLimits().
	Limits Limits
	// TimeScale shortens every limit window (see Limits.Scaled). 0 means 1.
	// Token lifetimes are not scaled.
	TimeScale float64
	// HiddenLimitFactor, when in (0,1), enforces limits stricter than the
	// advertised ones (see Limits.Tightened); Violations still judges
	// clients against the advertised limits.
	HiddenLimitFactor float64
	// ScopeHeader selects the x-ms-throttle-scope header on 429s.
	ScopeHeader ScopeHeaderMode
	// PercentageHeader sends x-ms-throttle-limit-percentage on successful
	// responses when the usage of any enforced limit is 0.8 or more.
	PercentageHeader bool
	// ThrottledNotCounted, when true, keeps throttled requests out of the
	// rate windows. By default every request that reached the server and
	// passed authentication counts, throttled or not, as real services do:
	// a client that keeps hammering a throttled API keeps itself throttled.
	ThrottledNotCounted bool
	// AppID is the application (client) id of the one app this instance
	// represents; it appears in x-ms-throttle-scope. Empty means a fixed GUID.
	AppID string
	// TenantID appears in the full x-ms-throttle-scope form. Empty means a
	// GUID derived from the seed.
	TenantID string
	// Seed drives fault injection, batch response order and generated ids.
	Seed uint64
	// Now is the clock. Nil means time.Now.
	Now func() time.Time
	// BaseURL is the scheme and host put into nextLinks and resource URLs,
	// e.g. "http://127.0.0.1:8080". Empty means derived from each request's
	// Host header.
	BaseURL string
	// TokenTTL is the lifetime of access tokens from the identity endpoints.
	// Zero means one hour.
	TokenTTL time.Duration
	// RefreshTokenTTL is the lifetime of each refresh token (see
	// identity.go). Zero means 90 days, Microsoft's default.
	RefreshTokenTTL time.Duration
	// StrictRefreshRotation revokes a refresh token the moment it is
	// redeemed. By default a redeemed refresh token stays valid until its
	// own lifetime ends, as on the Microsoft identity platform.
	StrictRefreshRotation bool
	// BatchConcurrency is how many sub-requests of one $batch run at once,
	// each holding a concurrency slot while it runs. Zero means 4 (the
	// figure documented for Outlook; none is documented for OneNote).
	BatchConcurrency int
	// AllPagesSectionLimit is the number of sections above which the
	// account-wide /onenote/pages answers 400 with code 20266. Zero means 10.
	AllPagesSectionLimit int
	// InkMultipartRelated answers page content with includeInkML=true as
	// multipart/related, as the documentation says. By default it is
	// multipart/mixed, as a real account answered ([M1], reference fact
	// 35).
	InkMultipartRelated bool
	// LenientToLower accepts tolower(field) eq '…' on the account-wide
	// /sections list. By default it answers 500 with code 19999, as a
	// real account did, while displayName eq '…' and
	// contains(tolower(displayName),'…') answer ([M1], fact 33).
	LenientToLower bool
	// FreshTitleLag is how long after a page is created (AddPage,
	// AddPageAt) GET /pages/{id} answers its title as "" while the
	// section's page listing has it at once ([M1], fact 25: "" for pages
	// created seconds before). Scaled by TimeScale. Zero means 30 seconds;
	// negative turns it off.
	FreshTitleLag time.Duration
	// RefreshExpiredCode70008 answers a refresh token that lapsed unused
	// with AADSTS70008 ("expired"). By default it answers AADSTS700082
	// ("inactive"), the code Microsoft's reference gives for a refresh
	// token unused for longer than its lifetime (fact 32).
	RefreshExpiredCode70008 bool
	// Logger receives debug logs of every request. Nil discards them.
	Logger *slog.Logger
}

// Faults are injected failures. Each rate is a probability in [0,1];
// decisions are drawn from Config.Seed and a per-kind sequence number that
// restarts at every SetFaults, so a sequential client sees the same faults
// in the same places on every run.
type Faults struct {
	// ServerErrorRate is the probability that a block of ServerErrorBurst
	// consecutive requests fails with 500, 502, 503 or 504 (OneNote codes
	// 10001, 10002 or 10007).
	ServerErrorRate float64
	// ServerErrorBurst is the length of a failure burst. Zero means 1.
	ServerErrorBurst int
	// SlowRate is the probability that a request is delayed by SlowDelay
	// (holding its concurrency slot) before it is answered.
	SlowRate  float64
	SlowDelay time.Duration
	// TruncateRate is the probability that a successful response declares
	// its full Content-Length, writes half the body and closes the connection.
	TruncateRate float64
	// BatchInnerRate is the probability that a $batch sub-request that would
	// have succeeded comes back as 429 (20166), 502 or 503 inside the 200
	// envelope.
	BatchInnerRate float64
	// BadRequestRate is the probability of a transient bare 400 on a page or
	// content GET (reported by real importers).
	BadRequestRate float64
	// TokenExpiryRate is the probability that a request's access token
	// expires just before the request (401 from then on).
	TokenExpiryRate float64
	// LibraryLimitUsers get 403 with code 10008 (the 5,000-item document
	// library limit) on every OneNote request.
	LibraryLimitUsers []string
	// LibraryLimitNotebooks are notebook ids whose notebook, section group,
	// section and page requests get 403 with code 10008.
	LibraryLimitNotebooks []string
	// IgnoreSkip makes page listings with $top ignore $skip: every request
	// returns the first window again, as Graph has been reported to do.
	// A client notices the repeated batch and lists again without $top,
	// following @odata.nextLink (which keeps working).
	IgnoreSkip bool
	// ThrottleRate is the probability that a request the limits admit is
	// answered 429 with code 20166 anyway (an upstream limit the client
	// cannot see; the request counts as a throttled one).
	ThrottleRate float64
	// DeleteAfterListing are page ids deleted (see DeletePage) right after
	// a listing returned them, each once: a page deleted between its
	// listing and the fetch of its content.
	DeleteAfterListing []string
	// TouchAfterListing are page ids edited (see TouchPage) right after a
	// listing returned them, each once: a page changed between its listing
	// and the fetch of its content.
	TouchAfterListing []string
	// ExpandOutageRate is the probability that a notebooks request with
	// $expand starts an "expand outage": for ExpandOutage every $expand on
	// /notebooks and /notebooks/{id} answers 500 with code 19999 while the
	// same requests without $expand succeed ([M1] saw this for about 7
	// minutes, then it recovered by itself). 1 starts one at the next
	// expanded request.
	ExpandOutageRate float64
	// ExpandOutage is the length of an expand outage, scaled by
	// Config.TimeScale like the limit windows. Zero means 7 minutes.
	ExpandOutage time.Duration
	// BurstConcurrency, when above 0, is the most Graph requests (of all
	// users, admitted or not) that may be inside the server at once: the
	// request that exceeds it answers 429 with code 10007, and so does
	// every request for BurstCooldown after it ([M1]: a burst of about 108
	// concurrent requests, then five retries over 3 minutes refused).
	BurstConcurrency int
	// BurstCooldown is how long a burst keeps every request refused,
	// scaled by Config.TimeScale. Zero means 3 minutes.
	BurstCooldown time.Duration
	// MessageLocale "nl" answers error messages in Dutch, as real Graph
	// localises them ([M4]); "" or "en" is English. Codes never change.
	MessageLocale string
}

// LogEntry is one counted request in the server's request log.
type LogEntry struct {
	User string    `json:"user"`
	Time time.Time `json:"time"`
	// Path is the request's path and query, escaped as on the wire
	// ("/v1.0/me/onenote/pages?$top=20"); a $batch step has its own url
	// under /v1.0.
	Path   string `json:"path"`
	Status int    `json:"status"`
	// Code is the Graph error code of an error response, if any.
	Code string `json:"code,omitempty"`
	// Scope is "User" or "Application" for a throttled request.
	Scope string `json:"scope,omitempty"`
}

// Violation is a span in which a client sent more requests than a rate
// window allows: some span of length Window held Count > Limit requests.
// Overlapping over-limit spans of one scope and window are merged.
type Violation struct {
	// Scope is "user" or "app".
	Scope string `json:"scope"`
	// Key is the user name, or the app id.
	Key string `json:"key"`
	// Window is the rate window, or 0 for the concurrency cap.
	Window time.Duration `json:"window"`
	Limit  int           `json:"limit"`
	// Count is the most requests found in one span of length Window (for
	// concurrency: the requests in flight at once).
	Count int `json:"count"`
	// Start is the first request and End the last request of the merged
	// over-limit spans.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// UserStats are the counters of one user.
type UserStats struct {
	// Requests counts every Graph request that passed authentication,
	// batch sub-requests included, $batch envelopes excluded.
	Requests  int64         `json:"requests"`
	ByStatus  map[int]int64 `json:"byStatus"`
	Throttled int64         `json:"throttled"`
	// InFlight is the current and MaxConcurrent the highest concurrency.
	InFlight      int `json:"inFlight"`
	MaxConcurrent int `json:"maxConcurrent"`
}

// Stats are the server's counters since it started or since ResetStats.
type Stats struct {
	AppID string `json:"appId"`
	// Requests counts every Graph request of the app (all users), batch
	// sub-requests included, envelopes excluded.
	Requests int64 `json:"requests"`
	// Batches counts $batch envelopes; Unauthorized counts requests
	// refused with 401 (not attributed to any user).
	Batches      int64         `json:"batches"`
	Unauthorized int64         `json:"unauthorized"`
	ByStatus     map[int]int64 `json:"byStatus"`
	// Throttled counts 429s with code 20166 or 10003.
	Throttled     int64                `json:"throttled"`
	InFlight      int                  `json:"inFlight"`
	MaxConcurrent int                  `json:"maxConcurrent"`
	Users         map[string]UserStats `json:"users"`
}
