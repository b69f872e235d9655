// Package onenote is Note Bridge's Microsoft Graph OneNote client.
//
// It reads notebooks, section groups, sections, pages, page content
// (optionally with InkML) and resources. It sends no $batch: page HTML
// asked for inside one does not come back usable (graph-reality.md #16),
// and nothing else the migration reads would gain from it.
// It is deliberately thin and never waits or retries on its own: the
// OneNote API allows each user only 120 requests a minute, 400 an hour and
// 5 at once, sends no Retry-After, and a client that retries by itself
// walks into a retry storm. Pacing lives in the limiter; this package makes
// sure every upstream request is one the limiter granted:
//
//   - Each Client method makes exactly one HTTP request (Observation.Cost
//     is 1). Paging is exposed one page of results per call (ListPagesPage
//     with a PageCursor, listings with a next link). The convenience
//     iterator Pages is for tests and tools.
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
// Every failure is an *Error with a Kind: throttled (429, or code 20166 or
// 10007 in any status), concurrency (10003), protected (20185 or 10004: a
// password-protected section, readable once a person unlocks it),
// transient (5xx, 10001, 10002, 10014, 10015, 19999, 30103, truncated or
// unparseable bodies, network errors, and bare 400s on page GETs, which
// Graph is known to return spuriously), auth (401: refresh the token and
// retry), permission (403, 40004), configuration (10008 and 10013 library
// limits, 20266, malformed requests), not found (404: e.g. a page deleted
// since it was listed), too large (a size cap), invalid argument (nothing
// was sent) and canceled. Only the status and the code decide, never the
// message: real messages are localised and sometimes misspelt.
// Error.IsRetryable says whether sending the request again (through the
// limiter) may help; errors.Is works with the Err* sentinels. Messages say
// what to do and never contain the bearer token. On a 401 the client tells
// a caching token source (TokenInvalidator) to drop the rejected token, so
// the caller's retry uses a fresh one.
//
// # Listing
//
// ListNotebooks and GetNotebook fetch notebooks with their sections,
// section groups and those groups' sections in one call: the two-level
// $expand with $select in every clause (ExpandNotebookTree), the deepest
// real Graph serves. Groups nested deeper are read with ListSectionGroups
// and ListSections (GET .../sectionGroups/{id}/sectionGroups and
// .../sections), one request each; when Graph fails the expanded call
// (500/19999, seen for minutes at a time), ListNotebookNames and the same
// per-container listings read the tree without $expand. FlattenSections
// lists a tree's sections with their paths. The account-wide listings
// (/onenote/sections, /onenote/sectionGroups, /onenote/pages) are refused
// before anything is sent: Graph answers them 500/19999 or 20266. Pages
// are listed per section:
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
