// Package onenote is Note Bridge's Microsoft Graph OneNote client.
//
// It reads notebooks, section groups, sections, pages, page content
// (optionally with InkML) and resources, and sends JSON $batch requests.
// It is deliberately thin and never waits or retries on its own: the
// OneNote API allows each user only 120 requests a minute, 400 an hour and
// 5 at once, sends no Retry-After, and a client that retries by itself
// walks into a retry storm. Pacing lives in the limiter; this package makes
// sure every upstream request is one the limiter granted:
//
//   - Each Client method makes exactly one HTTP request. Paging is exposed
//     one page of results per call (ListPagesPage with a PageCursor), and a
//     $batch is one call whose Observation.Cost is its number of
//     sub-requests. The convenience iterator Pages is for tests and tools.
//   - NewHTTPClient builds an http.Client that does not reuse connections
//     (so net/http never silently re-sends a request) and follows no
//     redirects. New turns off redirects on any client it is given.
//   - Every call returns an Observation: the HTTP status, the OneNote error
//     code, x-ms-throttle-limit-percentage, x-ms-throttle-scope (parsed into
//     user, app or tenant from its simple, documented and older flat forms),
//     Retry-After if any, the duration and the request cost. The limiter's
//     breakers and adaptive limits learn from it.
//
// # Errors
//
// Every failure is an *Error with a Kind: throttled (429, or code 20166 in
// any status), concurrency (10003), transient (5xx, 10001, 10002, 10007,
// 10014, 10015, 19999, 30103, truncated or unparseable bodies, network
// errors, and bare 400s on page GETs, which Graph is known to return
// spuriously), auth (401: refresh the token and retry), permission (403,
// 40004), configuration (10008 and 10013 library limits, 20266, malformed
// requests), not found (404: e.g. a page deleted since it was listed), too
// large (a size cap), invalid argument (nothing was sent) and canceled.
// Error.IsRetryable says whether sending the request again (through the
// limiter) may help; errors.Is works with the Err* sentinels. Messages say
// what to do and never contain the bearer token. On a 401 the client tells
// a caching token source (TokenInvalidator) to drop the rejected token, so
// the caller's retry uses a fresh one.
//
// A $batch never hides an inner failure: a 200 envelope with inner 429,
// 502 or 503 sub-responses gives a BatchResult per sub-request, each with
// its own Observation and classified error, plus a *BatchError; use
// RetryRequests to pick the sub-requests to send again.
//
// # Listing
//
// ListNotebooks and GetNotebook fetch a notebook's whole tree in one call
// with $expand (ExpandNotebookTree); FlattenSections lists its sections
// with their paths. Pages are listed per section, never with the
// account-wide /onenote/pages (slow, and error 20266 on large accounts):
// pagelevel=true with $top=100 and $skip, ordered by position. The
// listing stops on a short batch, or when Graph returns the same batch
// again (it sometimes ignores $skip); callers deduplicate by ID. Without
// $top Graph pages with @odata.nextLink instead (PageCursor.UseNextLink).
// BuildPageTree rebuilds subpage nesting from level and order, and
// PageIDFromClientURL extracts the page-id GUID that internal onenote:
// links refer to.
//
// The package does not import the Temporal SDK.
package onenote
