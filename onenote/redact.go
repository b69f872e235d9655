package onenote

import "strings"

// minScrubLen is the shortest token scrub looks for: shorter strings are
// not real bearer tokens, and replacing them would garble messages.
const minScrubLen = 8

// scrub removes the token from s.
func scrub(s, tok string) string {
	if len(tok) < minScrubLen || !strings.Contains(s, tok) {
		return s
	}
	return strings.ReplaceAll(s, tok, "[redacted]")
}

// scrubErr returns err, or, if err's text contains the token, an error
// whose text has it removed and which still unwraps to err (so errors.Is
// keeps working).
func scrubErr(err error, tok string) error {
	if err == nil || len(tok) < minScrubLen || !strings.Contains(err.Error(), tok) {
		return err
	}
	return &scrubbedError{msg: scrub(err.Error(), tok), err: err}
}

// scrubbedError hides the token in an underlying error's text.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }
