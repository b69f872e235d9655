package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// Error types of the ApplicationErrors activities return. Workflows decide
// on them (errors.As to *temporal.ApplicationError, then Type()).
const (
	ErrTypeNotSignedIn       = "NotSignedIn"
	ErrTypeGraphThrottled    = "GraphThrottled"
	ErrTypeGraphTransient    = "GraphTransient"
	ErrTypeGraphAuth         = "GraphAuth"
	ErrTypeGraphPermission   = "GraphPermission"
	ErrTypeGraphLibraryLimit = "GraphLibraryLimit"
	ErrTypeGraphConfig       = "GraphConfiguration"
	ErrTypeGraphNotFound     = "GraphNotFound"
	ErrTypeGraphOther        = "GraphError"
	ErrTypeNotionNotShared   = "NotionNotShared"
	ErrTypeNotionAuth        = "NotionUnauthorized"
	ErrTypeNotionBlockLimit  = "NotionBlockLimit"
	ErrTypeNotionInvalid     = "NotionValidation"
	ErrTypeNotionRetryable   = "NotionRetryable"
	ErrTypeStaging           = "StagingMissing"
	ErrTypeConvert           = "ConvertFailed"
)

// CodeLibraryLimit is OneNote's error code for the 5,000-item document
// library limit.
const CodeLibraryLimit = "10008"

// outcome maps what the Graph client observed to what the limiter learns.
func outcome(o onenote.Observation) limiter.Outcome {
	out := limiter.Outcome{Status: o.Status, Code: o.Code, ThrottlePercent: o.ThrottlePercentage}
	switch o.ThrottleScope.Kind {
	case onenote.ScopeUser:
		out.Scope = limiter.ScopeUser
	case onenote.ScopeApp, onenote.ScopeTenant:
		out.Scope = limiter.ScopeApp
	}
	return out
}

// notSignedIn is the error for a user without usable Graph tokens. It is
// fatal: a person must sign in.
func notSignedIn(user string, err error) error {
	return temporal.NewNonRetryableApplicationError(
		fmt.Sprintf("user %q is not signed in to Microsoft (%v): sign in with the notebridge CLI, then start the migration again", user, err),
		ErrTypeNotSignedIn, nil)
}

// graphError wraps a Graph client error with its observation, typed by
// kind. Non-retryable kinds are fatal: Call stops at once.
func graphError(err error, obs onenote.Observation) error {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return err
	}
	o := outcome(obs)
	kind := onenote.KindOf(err)
	var typ string
	switch kind {
	case onenote.KindThrottled, onenote.KindConcurrency:
		typ = ErrTypeGraphThrottled
	case onenote.KindTransient, onenote.KindCanceled:
		typ = ErrTypeGraphTransient
	case onenote.KindAuth:
		typ = ErrTypeGraphAuth
	case onenote.KindPermission:
		typ = ErrTypeGraphPermission
	case onenote.KindConfiguration:
		typ = ErrTypeGraphConfig
		if obs.Code == CodeLibraryLimit {
			typ = ErrTypeGraphLibraryLimit
		}
	case onenote.KindNotFound:
		typ = ErrTypeGraphNotFound
	default:
		typ = ErrTypeGraphOther
	}
	fatal := !onenote.IsRetryable(err) && kind != onenote.KindCanceled
	return entity.OutcomeError(err, typ, o, fatal)
}

// notionError types a Notion writer error.
func notionError(err error) error {
	var typ string
	fatal := true
	switch {
	case errors.Is(err, notion.ErrNotFound):
		typ = ErrTypeNotionNotShared
	case errors.Is(err, notion.ErrUnauthorized):
		typ = ErrTypeNotionAuth
	case errors.Is(err, notion.ErrWorkspaceBlockLimit):
		typ = ErrTypeNotionBlockLimit
	case errors.Is(err, notion.ErrValidation):
		typ = ErrTypeNotionInvalid
	default:
		typ, fatal = ErrTypeNotionRetryable, false
	}
	if fatal {
		return temporal.NewNonRetryableApplicationError(err.Error(), typ, err)
	}
	return temporal.NewApplicationErrorWithCause(err.Error(), typ, err)
}

func asApp(err error, target **temporal.ApplicationError) bool { return errors.As(err, target) }
