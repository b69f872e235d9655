package auth

import "strings"

// minSecretLen is the shortest string scrub replaces: shorter ones are not
// real tokens, and replacing them would garble messages.
const minSecretLen = 8

// scrub replaces every secret in s with "[redacted]".
func scrub(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= minSecretLen {
			s = strings.ReplaceAll(s, sec, redacted)
		}
	}
	return s
}

// scrubError returns err, or, if its text holds a secret, an error whose
// text does not and which still unwraps to err.
func scrubError(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	if msg := scrub(err.Error(), secrets...); msg != err.Error() {
		return &scrubbedError{msg: msg, err: err}
	}
	return err
}

// scrubbedError hides secrets in an underlying error's text.
type scrubbedError struct {
	msg string
	err error
}

// Error returns the scrubbed text.
func (e *scrubbedError) Error() string { return e.msg }

// Unwrap returns the original error, so errors.Is keeps working (for
// context.Canceled, for example). Code that digs it out with errors.As
// and prints it is on its own: the package only wraps transport errors
// this way, and those hold no secret.
func (e *scrubbedError) Unwrap() error { return e.err }
