package auth

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/oauth2"
)

// IdentityError is an error answer of the Microsoft identity platform,
// with only what is safe to show: the OAuth error code, the AADSTS code
// and the first line of the description.
type IdentityError struct {
	// Code is the OAuth error, e.g. "invalid_grant".
	Code string
	// AADSTS is the Microsoft error code, e.g. "AADSTS70000", if any.
	AADSTS string
	// Description is the first line of error_description.
	Description string
	// HTTPStatus is the response status.
	HTTPStatus int
}

// Error returns the code and the first line of the description.
func (e *IdentityError) Error() string {
	switch {
	case e.Description != "":
		return fmt.Sprintf("Microsoft identity platform: %s: %s", e.Code, e.Description)
	case e.Code != "":
		return fmt.Sprintf("Microsoft identity platform: %s", e.Code)
	default:
		return fmt.Sprintf("Microsoft identity platform: HTTP %d", e.HTTPStatus)
	}
}

// identityError converts an error from x/oauth2 into one that is safe to
// show: an *IdentityError for an error answer (never the raw body), and
// otherwise err with every secret scrubbed from its text.
func identityError(err error, secrets ...string) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) {
		return scrubError(err, secrets...)
	}
	ie := &IdentityError{Code: re.ErrorCode}
	if re.Response != nil {
		ie.HTTPStatus = re.Response.StatusCode
	}
	desc, _, _ := strings.Cut(strings.TrimSpace(re.ErrorDescription), "\n")
	desc = strings.TrimSpace(scrub(desc, secrets...))
	const maxDesc = 300
	if len(desc) > maxDesc {
		desc = desc[:maxDesc] + "..."
	}
	ie.Description = desc
	if code, _, ok := strings.Cut(desc, ":"); ok && strings.HasPrefix(code, "AADSTS") {
		ie.AADSTS = code
	}
	return ie
}

// isPublicClientDisabled reports AADSTS7000218: the app registration does
// not allow public client flows.
func isPublicClientDisabled(err error) bool {
	var ie *IdentityError
	return errors.As(err, &ie) && (ie.AADSTS == "AADSTS7000218" || strings.Contains(ie.Description, "AADSTS7000218"))
}

// hasCode reports whether err is an *IdentityError with one of codes.
func hasCode(err error, codes ...string) bool {
	var ie *IdentityError
	if !errors.As(err, &ie) {
		return false
	}
	for _, c := range codes {
		if ie.Code == c {
			return true
		}
	}
	return false
}
