package graph

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
)

// passwordProtected is the answer for a page listing or page read in a
// password-protected section. OneNote documents 10004 for creating a page
// in such a section; reading one answering 403 with the same code is an
// inference (shared/reference: "password-protected sections can't be
// read").
func (s *Server) passwordProtected(ar *apiRequest) response {
	return graphError(http.StatusForbidden, "10004", "", ar.requestID, s.now())
}

// SetSectionProtected protects section id with a password (or removes
// it): while protected, its page listing and its pages answer 403 with
// code 10004.
func (s *Server) SetSectionProtected(id string, protected bool) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	for _, ud := range s.users {
		if ref := ud.sections[id]; ref != nil {
			ref.section.PasswordProtected = protected
			return nil
		}
	}
	return fmt.Errorf("graph emulator: protect section %q: %w", id, errNotFound)
}

// listedIDs returns the ids of listed page items.
func listedIDs(items []map[string]any) []string {
	ids := make([]string, 0, len(items))
	for _, m := range items {
		if id, ok := m["id"].(string); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// afterListing applies the after-listing faults to the pages a listing
// returned: each page named in DeleteAfterListing or TouchAfterListing is
// deleted or edited once.
func (s *Server) afterListing(listed []string) {
	s.faultMu.Lock()
	var del, touch []string
	take := func(list *[]string) []string {
		var hit []string
		*list = slices.DeleteFunc(*list, func(id string) bool {
			if slices.Contains(listed, id) {
				hit = append(hit, id)
				return true
			}
			return false
		})
		return hit
	}
	del = take(&s.faults.DeleteAfterListing)
	touch = take(&s.faults.TouchAfterListing)
	s.faultMu.Unlock()
	for _, id := range touch {
		_ = s.TouchPage(id)
	}
	for _, id := range del {
		_ = s.DeletePage(id)
	}
}

// RemoveResource makes resource id answer 404 from now on, as a resource
// gone from OneNote while its page still refers to it.
func (s *Server) RemoveResource(id string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	if _, ok := s.resources[id]; !ok {
		return fmt.Errorf("graph emulator: remove resource %q: %w", id, errNotFound)
	}
	delete(s.resources, id)
	return nil
}

// PageResources lists the resources a generated page refers to, in the
// order of its content (nil for hand-written HTML pages).
func (s *Server) PageResources(pageID string) []Resource {
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	for _, ud := range s.users {
		if ref := ud.pages[pageID]; ref != nil && ref.page.gen != nil {
			return slices.Clone(ref.page.gen.resources)
		}
	}
	return nil
}

// IssuedSecrets returns every access and refresh token the server has
// issued, sorted, so tests can search logs and histories for any of them.
func (s *Server) IssuedSecrets() []string {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	out := slices.Clone(s.issued)
	sort.Strings(out)
	return out
}
