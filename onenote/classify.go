package onenote

import "net/http"

// OneNote error codes the client treats specially. The full list is at
// https://learn.microsoft.com/graph/onenote-error-codes.
const (
	CodeUnexpected          = "10001" // unexpected error: transient
	CodeServiceUnavailable  = "10002" // service unavailable: transient
	CodeTooManyActive       = "10003" // too many active requests: concurrency
	CodePasswordProtected   = "10004" // section protected by a password: protected
	CodeServerBusy          = "10007" // server too busy: throttled (seen on 429s of a burst, graph-reality.md #9)
	CodeLibraryItemLimit    = "10008" // >5,000 OneNote items in a library: configuration
	CodeLibraryLimit20k     = "10013" // >20,000 items in a library: configuration
	CodeKeyVaultBusy        = "10014" // Key Vault busy: transient
	CodeSharePointDown      = "10015" // SharePoint unavailable: transient
	CodeUndetermined        = "19999" // undetermined error: transient
	CodePageLevelNotAllowed = "20104" // pagelevel on the wrong endpoint: configuration
	CodeTopTooLarge         = "20129" // $top above 100: configuration
	CodeCircularExpand      = "20142" // circular $expand: configuration
	CodeThrottled           = "20166" // too many requests: throttled
	CodeEncryptedSection    = "20185" // encrypted (password-protected) section: protected (graph-reality.md #13)
	CodeMaxSectionsExceeded = "20266" // account-wide pages listing: configuration
	CodeResourceConsumption = "30103" // resource consumption too high: transient
	CodeInvalidToken        = "40001" // bad token: auth
	CodeMissingScope        = "40004" // token lacks a needed scope: permission
	codeInvalidAuthToken    = "InvalidAuthenticationToken"
)

// IsThrottleCode reports whether a OneNote code means the request was
// throttled, whatever the HTTP status: 20166, and 10007, which real Graph
// answers with 429 to a burst of requests (graph-reality.md #9).
func IsThrottleCode(code string) bool {
	return code == CodeThrottled || code == CodeServerBusy
}

// IsProtectedCode reports whether a OneNote code means the section is
// password-protected (encrypted) and cannot be read through the API:
// 20185 ("Encrypted sections are not accessible.", what real Graph
// answers, graph-reality.md #13) and 10004 (documented).
func IsProtectedCode(code string) bool {
	return code == CodeEncryptedSection || code == CodePasswordProtected
}

// isTransientCode reports whether a OneNote code means "back off and
// retry".
func isTransientCode(code string) bool {
	switch code {
	case CodeUnexpected, CodeServiceUnavailable, CodeKeyVaultBusy,
		CodeSharePointDown, CodeUndetermined, CodeResourceConsumption:
		return true
	}
	return false
}

// Hints for the errors a person has to fix.
const (
	hintLibraryLimit = "the OneDrive or SharePoint document library that holds this notebook has 5,000 or more " +
		"OneNote items (notebooks, sections and section groups), which the OneNote API cannot list; " +
		"move or delete notebooks so that library holds fewer than 5,000 OneNote items, or migrate a notebook " +
		"that lives in another library, then run the scan again"
	hintLibraryLimit20k = "the document library holding this notebook has 20,000 or more items; " +
		"move items out of it so the OneNote API can read it, then run the scan again"
	hintMissingScope = "the access token lacks the OneNote permission; sign in again and grant Notes.Read " +
		"(Notes.Read.All for notebooks shared with you in an organisation)"
	hintPasswordProtected = "the section is password-protected, which the OneNote API cannot open; " +
		"unlock it in OneNote (or remove its password), then retry the section"
	hintForbidden = "the signed-in account may not read this notebook; check it is shared with the account, " +
		"or sign in again with Notes.Read.All for shared notebooks"
	hintMaxSections = "the account-wide pages listing is not usable for accounts with many sections; " +
		"list pages per section instead"
	hintAuth        = "the access token was rejected; refresh it (or sign in again) and retry"
	hintBadRequest  = "Graph rejected the request as malformed; this is a bug in the client, please report it"
	hintThrottled   = "Graph throttled the request; wait for the limiter's cooldown before sending more"
	hintConcurrency = "too many requests were in flight for this user; retry when fewer are active"
)

// requestClass carries what classification needs to know about the request
// besides the response.
type requestClass struct {
	// pageGET is true for GETs of page lists, page metadata and page
	// content, where Graph is known to answer with transient bare 400s.
	pageGET bool
}

// classify maps an HTTP status and a OneNote or Graph error code to an
// error Kind and a hint. It is pure so it can be table-tested.
//
// Precedence: the throttle codes 20166 and 10007 (in any status), 10003
// (concurrency) and the protected-section codes 20185 and 10004 win over
// the status; then 429; then the auth codes and 401; then the other known
// codes; then the status alone. The message never matters: real messages
// are localised and sometimes misspelt (graph-reality.md #10, #11).
//
// A bare 400 (no code, or a code not listed here) on a page GET is
// transient: Graph is known to return them spuriously on page reads, and the
// limiter bounds how often a retry can happen. On any other request a 400
// is a configuration error.
func classify(status int, code string, rc requestClass) (Kind, string) {
	switch {
	case IsThrottleCode(code):
		return KindThrottled, hintThrottled
	case code == CodeTooManyActive:
		return KindConcurrency, hintConcurrency
	case IsProtectedCode(code):
		return KindProtected, hintPasswordProtected
	}
	if status == http.StatusTooManyRequests {
		return KindThrottled, hintThrottled
	}
	switch code {
	case CodeInvalidToken, codeInvalidAuthToken:
		return KindAuth, hintAuth
	case CodeMissingScope:
		return KindPermission, hintMissingScope
	case CodeLibraryItemLimit:
		return KindConfiguration, hintLibraryLimit
	case CodeLibraryLimit20k:
		return KindConfiguration, hintLibraryLimit20k
	case CodeMaxSectionsExceeded:
		return KindConfiguration, hintMaxSections
	case CodePageLevelNotAllowed, CodeTopTooLarge, CodeCircularExpand:
		return KindConfiguration, hintBadRequest
	}
	if status == http.StatusUnauthorized {
		return KindAuth, hintAuth
	}
	if isTransientCode(code) {
		return KindTransient, ""
	}
	switch {
	case status == http.StatusForbidden:
		return KindPermission, hintForbidden
	case status == http.StatusNotFound || status == http.StatusGone:
		return KindNotFound, ""
	case status == http.StatusBadRequest && rc.pageGET:
		return KindTransient, ""
	case status == http.StatusBadRequest:
		return KindConfiguration, hintBadRequest
	case status == http.StatusRequestTimeout:
		return KindTransient, ""
	case status >= 500:
		return KindTransient, ""
	}
	return KindUnknown, ""
}
