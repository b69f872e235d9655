package graph

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// response is a complete answer built before anything is written, so the
// same handler can serve a plain request, a $batch sub-request, or a
// truncated body.
type response struct {
	status int
	header http.Header
	body   []byte
	// code is the Graph error code of an error response.
	code string
}

// Messages of the OneNote error codes the emulator produces.
var errorMessages = map[string]string{
	"20166":                      "The app has issued too many requests on behalf of this user in a short time period.",
	"10003":                      "The current user has exceeded the maximum number of active requests for this app.",
	"10001":                      "An unexpected error occurred and the request failed.",
	"10002":                      "The service is not currently available.",
	"10007":                      "The server is too busy to handle the incoming request at this moment. Please try again later.",
	"10004":                      "The section is protected by a password: it cannot be read until it is unlocked.",
	"10008":                      "One or more of the document libraries on the user or group's OneDrive contains more than 5,000 OneNote items (notebooks, sections, section groups), and cannot be queried using the API.",
	"20129":                      "The OData query parameter $top is out of range. The maximum value is 100.",
	"20266":                      "The number of maximum sections is exceeded for this request. To retrieve pages for accounts with many sections, use the sections/{id}/pages endpoint.",
	"20104":                      "The pagelevel parameter is only supported on sections/{id}/pages or pages/{id}.",
	"20102":                      "The requested resource does not exist.",
	"20112":                      "The requested entity does not exist.",
	"40004":                      "The OAuth token provided does not have the necessary scopes to complete the request. Please make sure you are including one of the following scopes: Notes.ReadWrite.All,Notes.Read.All,Notes.Read,Notes.ReadWrite,Notes.Create.",
	"InvalidAuthenticationToken": "Access token has expired or is not yet valid.",
	"BadRequest":                 "Invalid request.",
}

// graphError builds a Graph error response:
// {"error":{"code","message","innerError":{...}}}.
func graphError(status int, code, message, requestID string, now time.Time) response {
	if message == "" {
		message = errorMessages[code]
	}
	body := map[string]any{
		"error": map[string]any{
			"code":    code,
			"message": message,
			"innerError": map[string]any{
				"date":              now.UTC().Format("2006-01-02T15:04:05"),
				"request-id":        requestID,
				"client-request-id": requestID,
			},
		},
	}
	if code != "" && code[0] >= '0' && code[0] <= '9' {
		body["error"].(map[string]any)["@api.url"] = "https://aka.ms/onenote-errors#C" + code
	}
	r := jsonResponse(status, body)
	r.code = code
	return r
}

// jsonResponse encodes v as an application/json response.
func jsonResponse(status int, v any) response {
	b, err := json.Marshal(v)
	if err != nil {
		return response{status: http.StatusInternalServerError, header: http.Header{"Content-Type": {"text/plain"}}, body: []byte(err.Error())}
	}
	return response{status: status, header: http.Header{"Content-Type": {"application/json; odata.metadata=minimal; odata.streaming=true; IEEE754Compatible=false; charset=utf-8"}}, body: b}
}

// write sends r to w.
func (r response) write(w http.ResponseWriter) {
	for k, v := range r.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(r.body)))
	w.WriteHeader(r.status)
	_, _ = w.Write(r.body)
}
