package auth

import (
	"errors"
	"fmt"
)

// Errors a caller can test for with errors.Is. The errors the package
// returns wrap one of these and say, in their text, what the person at
// the keyboard should do next.
var (
	// ErrNotSignedIn means no Microsoft sign-in is stored for the user.
	ErrNotSignedIn = errors.New("no Microsoft sign-in stored")
	// ErrSignInExpired means Microsoft rejected the stored refresh token
	// (expired, revoked, or the password changed): the user must log in
	// again.
	ErrSignInExpired = errors.New("Microsoft sign-in expired or revoked")
	// ErrLoginDeclined means the person declined the sign-in request.
	ErrLoginDeclined = errors.New("Microsoft sign-in was declined")
	// ErrLoginExpired means the device code expired before anyone entered it.
	ErrLoginExpired = errors.New("Microsoft sign-in code expired")
	// ErrPublicClientDisabled means the app registration does not allow
	// public client flows (AADSTS7000218), which the device-code flow needs.
	ErrPublicClientDisabled = errors.New("public client flows are not allowed for this app registration")
	// ErrInsecurePermissions means a token, key or secret file (or the
	// token directory) is accessible to other users.
	ErrInsecurePermissions = errors.New("insecure file permissions")
	// ErrWrongKey means a token file was encrypted with another key.
	ErrWrongKey = errors.New("token file was encrypted with a different key")
	// ErrTokenFileInvalid means a token file could not be authenticated:
	// it was written for another user, modified, or truncated.
	ErrTokenFileInvalid = errors.New("token file is invalid")
	// ErrNoKey means no token encryption key is configured.
	ErrNoKey = errors.New("no token encryption key")
	// ErrNoNotionToken means no Notion token is configured.
	ErrNoNotionToken = errors.New("no Notion token")
	// ErrInvalidUser means a user ID cannot name a token file.
	ErrInvalidUser = errors.New("invalid user ID")
)

// loginCommand is what a user runs to (re)create a stored sign-in.
func loginCommand(user string) string { return fmt.Sprintf("starter login --user %s", user) }

// actionError is an error with a complete, human-written message that
// matches a sentinel (kind) and, optionally, wraps the error that caused it.
type actionError struct {
	msg   string
	kind  error
	cause error
}

// Error returns the message.
func (e *actionError) Error() string { return e.msg }

// Unwrap returns the sentinel and the cause, so errors.Is and errors.As
// find either.
func (e *actionError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func notSignedIn(user string) error {
	return &actionError{
		msg:  fmt.Sprintf("no Microsoft sign-in stored for user %q: run %q", user, loginCommand(user)),
		kind: ErrNotSignedIn,
	}
}

func signInExpired(user string, cause error) error {
	return &actionError{
		msg: fmt.Sprintf("Microsoft sign-in for user %q has expired or was revoked (%v): run %q to sign in again",
			user, cause, loginCommand(user)),
		kind:  ErrSignInExpired,
		cause: cause,
	}
}
