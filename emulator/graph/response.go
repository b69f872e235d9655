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
	// code is the Graph error code of an error response, message its
	// non-standard message (empty: the code's own) and date its time.
	code    string
	message string
	date    time.Time
}

// Messages of the OneNote error codes the emulator produces, in English.
// 20166 is the wording of real 429 bodies ([M3]); 19999 the wording [M1]
// recorded; 20185 the wording [M2] captured; 20129 the wording [M1]
// recorded; the rest follow the documented error-code list.
var errorMessages = map[string]string{
	"20166":                      "The app has issued too many requests on behalf of this user in a short time period.",
	"10003":                      "The current user has exceeded the maximum number of active requests for this app.",
	"10001":                      "An unexpected error occurred and the request failed.",
	"10002":                      "The service is not currently available.",
	"10007":                      "The server is too busy to handle the incoming request at this moment. Please try again later.",
	"10008":                      "One or more of the document libraries on the user or group's OneDrive contains more than 5,000 OneNote items (notebooks, sections, section groups), and cannot be queried using the API.",
	"19999":                      "Something failed, the API cannot share any more information at the time of the request.",
	"20129":                      "The limit of '100' for the $top query has been exceeded. Please specify a value less than or equal to 100.",
	"20185":                      "Encrypted sections are not accessible.",
	"20266":                      "The number of maximum sections is exceeded for this request. To retrieve pages for accounts with many sections, use the sections/{id}/pages endpoint.",
	"20104":                      "The pagelevel parameter is only supported on sections/{id}/pages or pages/{id}.",
	"20102":                      "The requested resource does not exist.",
	"20112":                      "The requested entity does not exist.",
	"20143":                      "The OData query is invalid.",
	"40003":                      "The user does not have permission to access the requested resource.",
	"40004":                      "The OAuth token provided does not have the necessary scopes to complete the request. Please make sure you are including one of the following scopes: Notes.ReadWrite.All,Notes.Read.All,Notes.Read,Notes.ReadWrite,Notes.Create.",
	"InvalidAuthenticationToken": "Access token has expired or is not yet valid.",
	"BadRequest":                 "Invalid request.",
}

// dutchMessages replace the English messages when Faults.MessageLocale is
// "nl": real Graph localises error messages ([M4] saw Dutch), so a client
// must classify by status and code, never by text.
var dutchMessages = map[string]string{
	"20166":      "De app heeft namens deze gebruiker in korte tijd te veel aanvragen verzonden.",
	"10003":      "De huidige gebruiker heeft het maximale aantal actieve aanvragen voor deze app overschreden.",
	"10001":      "Er is een onverwachte fout opgetreden en de aanvraag is mislukt.",
	"10002":      "De service is momenteel niet beschikbaar.",
	"10007":      "De server is op dit moment te druk om de aanvraag te verwerken. Probeer het later opnieuw.",
	"10008":      "Een of meer documentbibliotheken in de OneDrive van de gebruiker of groep bevatten meer dan 5000 OneNote-items en kunnen niet via de API worden opgevraagd.",
	"19999":      "Er is iets misgegaan; de API kan op dit moment geen verdere informatie geven.",
	"20129":      "De limiet van 100 voor de $top-query is overschreden.",
	"20185":      "Versleutelde secties zijn niet toegankelijk.",
	"20266":      "Het maximale aantal secties voor deze aanvraag is overschreden.",
	"20102":      "De aangevraagde resource bestaat niet.",
	"20143":      "De OData-query is ongeldig.",
	"40003":      "De gebruiker heeft geen toestemming voor toegang tot de aangevraagde resource.",
	"BadRequest": "Ongeldige aanvraag.",
}

// tooManyConnections is the message a real 20166 on a resource download
// carried, misspelling included ([M3] #257).
const tooManyConnections = "Too may connections"

// graphError builds a Graph error response:
// {"error":{"code","message","innerError":{"date","request-id","client-request-id"}}}.
// An empty message means the code's standard message.
func graphError(status int, code, message, requestID string, now time.Time) response {
	r := response{status: status, code: code, message: message, date: now}
	return r.withErrorBody(requestID, requestID, "")
}

// withErrorBody (re)renders the body of error response r with the given
// request ids, in locale ("" or "en": English, "nl": Dutch). 20166 bodies
// carry no @api.url, as real ones do not ([M3]); other OneNote codes link
// to the documented error list.
func (r response) withErrorBody(requestID, clientRequestID, locale string) response {
	message := r.message
	if message == "" {
		message = errorMessages[r.code]
	}
	if locale == "nl" {
		if nl, ok := dutchMessages[r.code]; ok && r.message != tooManyConnections {
			message = nl
		}
	}
	e := map[string]any{
		"code":    r.code,
		"message": message,
		"innerError": map[string]any{
			"date":              r.date.UTC().Format("2006-01-02T15:04:05"),
			"request-id":        requestID,
			"client-request-id": clientRequestID,
		},
	}
	if r.code != "" && r.code[0] >= '0' && r.code[0] <= '9' && r.code != "20166" {
		e["@api.url"] = "https://aka.ms/onenote-errors#C" + r.code
	}
	out := jsonResponse(r.status, map[string]any{"error": e})
	for k, v := range r.header {
		if k != "Content-Type" {
			out.header[k] = v
		}
	}
	out.code, out.message, out.date = r.code, r.message, r.date
	return out
}

// errorFor is graphError for the request being answered.
func (s *Server) errorFor(ar *apiRequest, status int, code, message string) response {
	return graphError(status, code, message, ar.requestID, s.now())
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
