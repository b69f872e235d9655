package activities

import (
	"errors"
	"fmt"
	"strings"

	"go.temporal.io/sdk/temporal"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
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
	return temporal.NewNonRetryableApplicationError(msg, failure.NotSignedIn, nil)
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
		return temporal.NewNonRetryableApplicationError(oe.Err.Error(), failure.NotSignedIn, nil, o)
	}
	var typ string
	switch kind {
	case onenote.KindThrottled, onenote.KindConcurrency:
		typ = failure.GraphThrottled
	case onenote.KindTransient, onenote.KindCanceled:
		typ = failure.GraphTransient
	case onenote.KindAuth:
		typ = failure.GraphAuth
	case onenote.KindPermission:
		typ = failure.GraphPermission
	case onenote.KindProtected:
		typ = failure.GraphProtected
	case onenote.KindConfiguration:
		typ = failure.GraphConfig
		if obs.Code == CodeLibraryLimit {
			typ = failure.GraphLibraryLimit
		}
	case onenote.KindNotFound:
		typ = failure.GraphNotFound
	default:
		typ = failure.GraphOther
	}
	return entity.OutcomeError(err, typ, o, !failure.Retryable(typ))
}

// notionError types a Notion writer error.
func notionError(err error) error {
	var typ string
	var adopt *notion.AdoptError
	switch {
	case errors.As(err, &adopt):
		// The operator named a page that cannot be adopted: trying
		// again changes nothing.
		typ = failure.Config
	case errors.Is(err, notion.ErrNotFound):
		typ = failure.NotionNotShared
	case errors.Is(err, notion.ErrUnauthorized):
		typ = failure.NotionAuth
	case errors.Is(err, notion.ErrWorkspaceBlockLimit):
		typ = failure.NotionBlockLimit
	case errors.Is(err, notion.ErrValidation):
		typ = failure.NotionInvalid
	default:
		typ = failure.NotionRetryable
	}
	if !failure.Retryable(typ) {
		return temporal.NewNonRetryableApplicationError(err.Error(), typ, err)
	}
	return temporal.NewApplicationErrorWithCause(err.Error(), typ, err)
}

func asApp(err error, target **temporal.ApplicationError) bool { return errors.As(err, target) }
