package graph

import "fmt"

// PageContent returns page id's content as GET /pages/{id}/content with
// includeInkML=true answers its owner: the HTML, and the InkML ("" when
// the page has no ink). It is not a request: nothing is counted, limited
// or faulted. Tests use it to read the reference content while a client
// runs under the limits, without spending the user's budget.
func (s *Server) PageContent(id string) (html, inkML string, err error) {
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	ud, ref, err := s.livePageLocked(id, "read the content of")
	if err != nil {
		return "", "", err
	}
	base, _ := s.baseURL.Load().(string)
	if base == "" {
		// Links in the content are absolute, as Graph's are.
		base = "https://graph.microsoft.com"
	}
	ar := &apiRequest{base: base, root: "/v1.0/me/onenote", owner: ud}
	if ud == nil {
		return "", "", fmt.Errorf("graph emulator: page %q has no owner", id)
	}
	return s.pageHTML(ar, ref), pageInkML(ref.page), nil
}
