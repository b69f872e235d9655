// Package failure is Note Bridge's error taxonomy: the types of the
// Temporal ApplicationErrors that activities and workflows return, and the
// one decision each type stands for. Activities type their errors with
// these names (and mark non-retryable what Decide does not retry),
// workflows decide on a failure with Of, and the starter explains one with
// Find, so nothing is decided by matching an error's text.
package failure

import (
	"errors"
	"slices"

	"go.temporal.io/sdk/temporal"
)

// Decision is what Note Bridge does with an error of a type.
type Decision int

// The decisions, from the least to the most drastic.
const (
	// Retry: the request may succeed if sent again. The layers below the
	// workflow send it again (the Notion client, a new permit, the
	// activity's retry policy), within the bound the workflows package
	// states; once they give up, the error fails its page like FailPage.
	Retry Decision = iota + 1
	// RunAgain: the worker holding the page's staged content was lost;
	// the page runs again from Graph on a new worker session.
	RunAgain
	// SkipPage: there is nothing to migrate (the page was deleted in
	// OneNote since it was listed); the page is counted as gone.
	SkipPage
	// FailPage: this page cannot be migrated now. It is reported failed,
	// the section goes on, and a retry of the section runs it again.
	FailPage
	// SkipSection: the section cannot be read as it is (it is
	// password-protected). It is reported skipped, the other sections
	// migrate, and a retry-section runs it once a person unlocked it.
	SkipSection
	// Stop: no page can go on until a person acts (signs in, upgrades or
	// shares in Notion, trims the document library). The section stops
	// before its next page, the notebook starts no new section and ends
	// with a Config error that says what to do, keeping this one as its
	// cause.
	Stop
	// Fail: what was asked cannot be done: a migration with a bad input
	// or a notebook not found ends at once with the error; an operator's
	// update the notebook refuses changes nothing.
	Fail
)

var decisionNames = [...]string{Retry: "retry", RunAgain: "run again", SkipPage: "skip the page", FailPage: "fail the page",
	SkipSection: "skip the section", Stop: "stop the notebook", Fail: "fail the migration"}

// String names d, for logs and tests.
func (d Decision) String() string {
	if d > 0 && int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return "unknown"
}

// The error types. An activity's error carries one of the Graph, Notion or
// worker types; a workflow's, one of the migration types.
const (
	// NotSignedIn: the user has no usable Microsoft sign-in (none stored,
	// expired, a wrong token key): "starter login" fixes it.
	NotSignedIn = "NotSignedIn"
	// GraphThrottled: Graph refused the request on a rate or concurrency
	// limit; the limiter's breaker holds the next permit back.
	GraphThrottled = "GraphThrottled"
	// GraphTransient: a 5xx, a network failure, a cancelled request.
	GraphTransient = "GraphTransient"
	// GraphAuth: Graph rejected the access token; a refreshed token may
	// be accepted.
	GraphAuth = "GraphAuth"
	// GraphPermission: the user or app may not read this content (403).
	GraphPermission = "GraphPermission"
	// GraphLibraryLimit: OneNote code 10008, the document library holds
	// more than 5,000 items; no notebook of the account can be listed.
	GraphLibraryLimit = "GraphLibraryLimit"
	// GraphConfig: the account or the request is in a state the API
	// cannot serve (other configuration codes, malformed requests).
	GraphConfig = "GraphConfiguration"
	// GraphNotFound: the item is gone (404), e.g. a page deleted since it
	// was listed.
	GraphNotFound = "GraphNotFound"
	// GraphProtected: a password-protected (encrypted) section, OneNote
	// code 20185 (what real Graph answers) or 10004. The API cannot read
	// it until a person unlocks it in OneNote.
	GraphProtected = "GraphPasswordProtected"
	// GraphOther: a Graph failure the client could not classify.
	GraphOther = "GraphError"
	// NotionNotShared: the Notion page or database is not shared with
	// the integration, or does not exist.
	NotionNotShared = "NotionNotShared"
	// NotionAuth: Notion rejected the integration token.
	NotionAuth = "NotionUnauthorized"
	// NotionBlockLimit: the workspace reached its block limit (Free plan).
	NotionBlockLimit = "NotionBlockLimit"
	// NotionNotReady: the readiness check found, before anything was
	// written, that the migration cannot finish in the Notion workspace
	// (the Free block limit); the message names the limit, the numbers
	// and the options.
	NotionNotReady = "NotionNotReady"
	// NotionInvalid: Notion refused what was sent (a validation error).
	NotionInvalid = "NotionValidation"
	// NotionRetryable: a Notion failure the client retried until it gave
	// up (rate limits, 5xx, timeouts).
	NotionRetryable = "NotionRetryable"
	// Staging: the page's staged content is not on this worker (the
	// session's worker was lost or restarted).
	Staging = "StagingMissing"
	// Convert: the page's content could not be converted; converting it
	// again gives the same answer.
	Convert = "ConvertFailed"
	// SectionProtected: a section's workflow ended because the section is
	// password-protected; its cause is the GraphProtected error.
	SectionProtected = "SectionPasswordProtected"
	// FileProtected: a section of a OneNote file is password-protected;
	// the reader cannot decrypt it. Its section is skipped and named.
	FileProtected = "FilePasswordProtected"
	// FileUnreadable: a OneNote file (or one of its sections) cannot be
	// read on the worker: missing, damaged or in a format the reader
	// refuses. Reading it again gives the same answer.
	FileUnreadable = "FileUnreadable"
	// Config: a migration ended because a person must fix something
	// first; the message says what, the cause is the error that stopped
	// it, and when sections had run the details hold the NotebookReport of
	// what was migrated.
	Config = "MigrationConfigError"
	// InvalidInput: a workflow's input is malformed; the details name the
	// field.
	InvalidInput = "InvalidInput"
	// Refused: a notebook refused an operator's update (retry-section,
	// retry-failed, finish); the message says why and what to do.
	Refused = "UpdateRefused"
)

// Decide is the decision for an error of type typ. A type this package
// does not name (an SDK wrapper, a panic) fails the page.
func Decide(typ string) Decision {
	switch typ {
	case GraphThrottled, GraphTransient, GraphAuth, NotionRetryable:
		return Retry
	case Staging:
		return RunAgain
	case GraphNotFound:
		return SkipPage
	case GraphProtected, SectionProtected, FileProtected:
		return SkipSection
	case NotSignedIn, GraphLibraryLimit, NotionNotShared, NotionAuth, NotionBlockLimit:
		return Stop
	case Config, InvalidInput, Refused, NotionNotReady:
		return Fail
	}
	return FailPage
}

// Retryable reports whether an error of type typ is sent again by the
// layers below the workflow: activities mark every other type
// non-retryable.
func Retryable(typ string) bool { return Decide(typ) == Retry }

// Of returns the first ApplicationError in err's chain whose type this
// package names, and its decision; nil and 0 when there is none (err is
// nil, or carries no typed cause). errors.As would stop at the first
// ApplicationError, which, for an error that crossed an activity or a
// child workflow boundary wrapped, is a generic one.
func Of(err error) (*temporal.ApplicationError, Decision) {
	for ; err != nil; err = errors.Unwrap(err) {
		if app, ok := err.(*temporal.ApplicationError); ok && known(app.Type()) {
			return app, Decide(app.Type())
		}
	}
	return nil, 0
}

// Find returns the first ApplicationError in err's chain whose type is
// one of types (any type if none is given), or nil.
func Find(err error, types ...string) *temporal.ApplicationError {
	for ; err != nil; err = errors.Unwrap(err) {
		if app, ok := err.(*temporal.ApplicationError); ok && (len(types) == 0 || slices.Contains(types, app.Type())) {
			return app
		}
	}
	return nil
}

// Types lists every type this package names.
func Types() []string {
	return []string{NotSignedIn, GraphThrottled, GraphTransient, GraphAuth, GraphPermission, GraphLibraryLimit, GraphConfig,
		GraphNotFound, GraphProtected, GraphOther, NotionNotShared, NotionAuth, NotionBlockLimit, NotionNotReady, NotionInvalid, NotionRetryable,
		Staging, Convert, SectionProtected, FileProtected, FileUnreadable, Config, InvalidInput, Refused}
}

// NotRetried lists the types the layers below the workflow must not send
// again, for an activity retry policy's NonRetryableErrorTypes.
func NotRetried() []string {
	return slices.DeleteFunc(Types(), Retryable)
}

func known(typ string) bool { return slices.Contains(Types(), typ) }
