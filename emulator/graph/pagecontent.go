package graph

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
)

// graphResourcePrefix is the URL prefix hand-written fixture HTML uses for
// resources; it is rewritten to the emulator's host and route.
const graphResourcePrefix = "https://graph.microsoft.com/v1.0/me/onenote/"

// pageHTML renders the output HTML of ref's page for this request.
func (s *Server) pageHTML(ar *apiRequest, ref *pageRef) string {
	p := ref.page
	if p.gen == nil {
		return strings.ReplaceAll(p.HTML, graphResourcePrefix, ar.abs("/"))
	}
	key := p.ID + "\x00" + itoa(uint64(p.version)) + "\x00" + p.Title + "\x00" + ar.abs("")
	if html, ok := s.rendered.get(key); ok {
		return html
	}
	env := renderEnv{
		resourceURL: func(id string) string { return ar.abs("/resources/" + id + "/$value") },
		cid:         strings.ToLower(ownerHex(ar.owner.name)),
	}
	var b strings.Builder
	b.Grow(12 << 10)
	renderGenerated(&b, p, env)
	s.rendered.put(key, b.String())
	return b.String()
}

// pageInkML returns the ink of page p, or "" when it has none.
func pageInkML(p *Page) string {
	if p.InkML != "" {
		return p.InkML
	}
	if (p.gen != nil && p.gen.ink) || (p.gen == nil && strings.Contains(p.HTML, "InkNode is not supported")) {
		return generatedInkML(p)
	}
	return ""
}

// pageContent answers /pages/{id}/content: text/html, or with
// includeInkML=true and ink on the page, a multipart/mixed body (see
// Config.InkMultipartRelated) with a text/html part and an
// application/inkml+xml part.
func (s *Server) pageContent(ar *apiRequest, ref *pageRef) response {
	body := s.pageHTML(ar, ref)
	ink := ""
	if strings.EqualFold(ar.query.Get("includeInkML"), "true") {
		ink = pageInkML(ref.page)
	}
	if ink == "" {
		return response{status: http.StatusOK, header: http.Header{"Content-Type": {"text/html; charset=utf-8"}}, body: []byte(body)}
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.SetBoundary("InkMLBoundary" + hexID(16, "boundary", ref.page.ID))
	for _, part := range []struct{ ctype, body string }{
		{"text/html", body},
		{"application/inkml+xml", ink},
	} {
		w, err := mw.CreatePart(textproto.MIMEHeader{"Content-Type": {part.ctype}})
		if err != nil {
			return graphError(http.StatusInternalServerError, "10001", err.Error(), ar.requestID, s.now())
		}
		_, _ = w.Write([]byte(part.body))
	}
	_ = mw.Close()
	// A real account answered multipart/mixed ([M1], fact 35); the
	// documentation says multipart/related.
	subtype := "mixed"
	if s.cfg.InkMultipartRelated {
		subtype = "related"
	}
	return response{status: http.StatusOK, header: http.Header{"Content-Type": {"multipart/" + subtype + "; boundary=" + mw.Boundary()}}, body: buf.Bytes()}
}
