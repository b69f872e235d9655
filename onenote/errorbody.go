package onenote

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// ErrorBody is the part of a Graph error response the client uses:
//
//	{"error":{"code":"20166","message":"The app has issued too many requests ..."}}
type ErrorBody struct {
	// Code is the error code as a string. OneNote codes are numeric
	// ("20166"); Graph codes are names ("InvalidAuthenticationToken").
	Code string
	// Message is the human-readable message.
	Message string
}

// ParseErrorBody extracts the code and message from a Graph error body.
// The code may be a JSON string or a JSON number. It reports false if body
// is not a Graph error object. It never panics.
func ParseErrorBody(body []byte) (ErrorBody, bool) {
	var env struct {
		Error *struct {
			Code    json.RawMessage `json:"code"`
			Message json.RawMessage `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(body), &env); err != nil || env.Error == nil {
		return ErrorBody{}, false
	}
	eb := ErrorBody{
		Code:    scalarString(env.Error.Code),
		Message: scalarString(env.Error.Message),
	}
	return eb, true
}

// scalarString returns a JSON string's value, or a JSON number's text, or
// "" for anything else.
func scalarString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		if json.Unmarshal(raw, &n) == nil {
			if i, err := n.Int64(); err == nil {
				return strconv.FormatInt(i, 10)
			}
			return n.String()
		}
	}
	return ""
}
