package workerapp

import (
	"context"
	"errors"
	"time"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/onenote"
)

// storeTokens hands activities the Graph token sources of the encrypted
// token store (auth.Store): each refreshes its access token before expiry
// and after a 401 (it implements onenote.TokenInvalidator).
type storeTokens struct {
	store *auth.Store
	// timeout bounds the check TokenSource makes (a file read, or a
	// refresh when the cached token is about to expire).
	timeout time.Duration
}

// TokenSource implements activities.Tokens. It gets a token once before
// returning the source, so that a user a person must sign in (again) fails
// here, with the auth package's error naming the command that fixes it
// ("starter login --user X"), and the activity fails at once instead of
// retrying. Other failures (the identity platform unreachable during a
// refresh) are left to the Graph call, which retries under a new permit.
func (t storeTokens) TokenSource(user string) (onenote.TokenSource, error) {
	ts := t.store.TokenSource(user)
	ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
	defer cancel()
	if _, err := ts.Token(ctx); err != nil && needsPerson(err) {
		return nil, err
	}
	return ts, nil
}

// needsPerson reports whether a token error can only be fixed by a person:
// signing in (again), the right key, or file permissions.
func needsPerson(err error) bool {
	for _, target := range []error{auth.ErrNotSignedIn, auth.ErrSignInExpired, auth.ErrInvalidUser, auth.ErrWrongKey,
		auth.ErrTokenFileInvalid, auth.ErrInsecurePermissions, auth.ErrNoKey} {
		if errors.Is(err, target) {
			return true
		}
	}
	return false
}
