package activities

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/auth"
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
	// ErrTypeGraphProtected is a password-protected (encrypted) section:
	// OneNote code 20185, what real Graph answers, or 10004. The API
	// cannot read it until a person unlocks it in OneNote; the section is
	// skipped, and can be retried once unlocked.
	ErrTypeGraphProtected   = "GraphPasswordProtected"
	ErrTypeGraphOther       = "GraphError"
	ErrTypeNotionNotShared  = "NotionNotShared"
	ErrTypeNotionAuth       = "NotionUnauthorized"
	ErrTypeNotionBlockLimit = "NotionBlockLimit"
	ErrTypeNotionInvalid    = "NotionValidation"
	ErrTypeNotionRetryable  = "NotionRetryable"
	ErrTypeStaging          = "StagingMissing"
	ErrTypeConvert          = "ConvertFailed"
)

// CodeLibraryLimit is OneNote's error code for the 5,000-item document
// library limit.
const CodeLibraryLimit = "10008"

// outcome maps what the Graph client observed to what the limiter learns.
func outcome(o onenote.Observation) limiter.Outcome {
	out := limiter.Outcome{Status: o.Status, Code: o.Code, ThrottlePercent: o.ThrottlePercentage, Sent: o.Sent}
	switch o.ThrottleScope.Kind {
	case onenote.ScopeUser:
		out.Scope = limiter.ScopeUser
	case onenote.ScopeApp, onenote.ScopeTenant:
		out.Scope = limiter.ScopeApp
	}
	return out
}

// notSignedIn is the error for a user without usable Graph tokens. It is
// fatal: a person must sign in. The auth package's errors already say
// which command fixes them; other causes get the login command here.
func notSignedIn(user string, err error) error {
	msg := err.Error()
	if !strings.Contains(msg, "starter login") {
		msg = fmt.Sprintf("user %q is not signed in to Microsoft (%v): run \"starter login --user %s\", then start the migration again",
			user, err, user)
	}
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeNotSignedIn, nil)
}

// needsPerson reports whether a token error can only be fixed by a
// person: signing in (again), the token key, or the store's permissions.
func needsPerson(err error) bool {
	for _, target := range []error{auth.ErrNotSignedIn, auth.ErrSignInExpired, auth.ErrInvalidUser, auth.ErrWrongKey,
		auth.ErrTokenFileInvalid, auth.ErrInsecurePermissions, auth.ErrNoKey} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
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
	var oe *onenote.Error
	if kind == onenote.KindAuth && errors.As(err, &oe) && oe.Err != nil && needsPerson(oe.Err) {
		// The token store cannot give a token until a person acts: no
		// request left, and retrying cannot help.
		return temporal.NewNonRetryableApplicationError(oe.Err.Error(), ErrTypeNotSignedIn, nil, o)
	}
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
	case onenote.KindProtected:
		typ = ErrTypeGraphProtected
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
