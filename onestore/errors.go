package onestore

import (
	"errors"
	"fmt"
)

// FormatError reports a file that does not follow the specification: which
// structure was being read, at what byte offset, and what was expected
// there. File is the path when the caller opened the file by name.
type FormatError struct {
	File      string // path of the file, when known
	Structure string // the specification's name of the structure, e.g. "FileNodeListFragment"
	Offset    int64  // byte offset of the structure in the file
	Expected  string // what the reader expected to find
	Err       error  // an underlying error, if any
}

// Error says where reading stopped and why.
func (e *FormatError) Error() string {
	s := fmt.Sprintf("%s at offset %d: expected %s", e.Structure, e.Offset, e.Expected)
	if e.File != "" {
		s = e.File + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports a well-formed file in a format or with a feature
// this reader does not read, and what the user can do about it.
type UnsupportedError struct {
	File   string // path of the file, when known
	Format string // the format or feature, e.g. "OneNote 2007 section"
	Advice string // what to do, e.g. "open it in OneNote 2010 or later and save it"
}

// Error names the format and the advice.
func (e *UnsupportedError) Error() string {
	s := e.Format + " is not supported: " + e.Advice
	if e.File != "" {
		s = e.File + ": " + s
	}
	return s
}

// ErrEncrypted is wrapped by the error of a password-protected section: its
// content is encrypted and a migration names it and skips it.
var ErrEncrypted = errors.New("section is password-protected")

// formatErr builds a FormatError without a file name; callers that know
// the path add it with withFile.
func formatErr(structure string, off int64, expected string) *FormatError {
	return &FormatError{Structure: structure, Offset: off, Expected: expected}
}

// withFile records path in a FormatError or UnsupportedError inside err.
func withFile(err error, path string) error {
	// One that names its file already keeps it (a file inside a
	// package is named by the package and its path in it).
	var fe *FormatError
	if errors.As(err, &fe) {
		if fe.File == "" {
			fe.File = path
		}
		return err
	}
	var ue *UnsupportedError
	if errors.As(err, &ue) {
		if ue.File == "" {
			ue.File = path
		}
		return err
	}
	if err != nil && path != "" {
		return fmt.Errorf("%s: %w", path, err)
	}
	return err
}
