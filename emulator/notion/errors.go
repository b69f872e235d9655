package notion

import (
	"fmt"
	"net/http"
)

// apiError is an error answered in Notion's error shape:
// {"object":"error","status":…,"code":…,"message":…,"request_id":…}.
type apiError struct {
	status  int
	code    string
	message string
	// retryAfter, when positive, is sent as the Retry-After header (seconds).
	retryAfter int
	// additional is sent as additional_data when not nil.
	additional map[string]any
}

func (e *apiError) Error() string {
	return fmt.Sprintf("notion emulator: %d %s: %s", e.status, e.code, e.message)
}

// Notion's error codes (reference §2).
const (
	codeInvalidJSON        = "invalid_json"
	codeInvalidRequestURL  = "invalid_request_url"
	codeInvalidRequest     = "invalid_request"
	codeValidation         = "validation_error"
	codeMissingVersion     = "missing_version"
	codeUnauthorized       = "unauthorized"
	codeRestricted         = "restricted_resource"
	codeNotFound           = "object_not_found"
	codeConflict           = "conflict_error"
	codeRateLimited        = "rate_limited"
	codeInternal           = "internal_server_error"
	codeServiceUnavailable = "service_unavailable"
	codeGatewayTimeout     = "gateway_timeout"
	codeServiceOverload    = "service_overload"
)

func newError(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// validationError is a 400 validation_error with a free-form message.
func validationError(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, codeValidation, format, args...)
}

// bodyError is a 400 validation_error in Notion's "body failed validation"
// form: "body failed validation: body.children[0].paragraph.rich_text
// should be defined, instead was `undefined`."
func bodyError(path, format string, args ...any) *apiError {
	return validationError("body failed validation: %s %s.", path, fmt.Sprintf(format, args...))
}

// tooLong reports a string longer than max (Notion counts UTF-16 units).
func tooLong(path string, max, got int) *apiError {
	return bodyError(path+".length", "should be ≤ `%d`, instead was `%d`", max, got)
}

// tooMany reports an array with more than max items.
func tooMany(path string, max, got int) *apiError {
	return bodyError(path+".length", "should be ≤ `%d`, instead was `%d`", max, got)
}

func undefined(path string) *apiError {
	return bodyError(path, "should be defined, instead was `undefined`")
}

func notPresent(path string, got any) *apiError {
	return bodyError(path, "should be not present, instead was `%s`", brief(got))
}

func wrongType(path, want string, got any) *apiError {
	return bodyError(path, "should be %s, instead was `%s`", want, brief(got))
}

// notFound is Notion's 404 for objects that do not exist or are not shared
// with the integration; kind is "page", "block" or "database".
func notFound(kind, id string) *apiError {
	return newError(http.StatusNotFound, codeNotFound,
		"Could not find %s with ID: %s. Make sure the relevant pages and databases are shared with your integration.", kind, id)
}

func archivedError() *apiError {
	return validationError("Can't edit block that is archived. You must unarchive the block before editing.")
}

var (
	errMissingVersion = newError(http.StatusBadRequest, codeMissingVersion,
		"Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.")
	errUnauthorized = newError(http.StatusUnauthorized, codeUnauthorized, "API token is invalid.")
	errInvalidJSON  = newError(http.StatusBadRequest, codeInvalidJSON, "Error parsing JSON body.")
	errInvalidURL   = newError(http.StatusBadRequest, codeInvalidRequestURL, "Invalid request URL.")
	// errTooLarge answers a body over the request size limit: 413 [N6]
	// in Notion's error shape with code validation_error (Notion's body
	// for it is not published; this is the emulator's choice).
	errTooLarge = newError(http.StatusRequestEntityTooLarge, codeValidation,
		"Request body too large: the limit is %d bytes.", maxRequestBytes)
)
