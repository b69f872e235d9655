package graph

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
)

// locked is the answer for a page listing, page, page content or resource
// in a password-protected section: 403 with code 20185, "Encrypted
// sections are not accessible." (reference fact 13, [M2]; the code is not
// in Microsoft's error list).
func (s *Server) locked(ar *apiRequest) response {
	return s.errorFor(ar, http.StatusForbidden, "20185", "")
}

// LockSection protects section sectionID with a password (locked true) or
// removes the password. A locked section still appears in every listing
// and $expand, but its page listing, its pages, their content and their
// resources answer 403 with code 20185.
func (s *Server) LockSection(sectionID string, locked bool) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	for _, ud := range s.users {
		if ref := ud.sections[sectionID]; ref != nil {
			ref.section.PasswordProtected = locked
			return nil
		}
	}
	return fmt.Errorf("graph emulator: lock section %q: %w", sectionID, errNotFound)
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
	for _, ud := range s.users {
		if _, ok := ud.resources[id]; ok {
			delete(ud.resources, id)
			return nil
		}
	}
	return fmt.Errorf("graph emulator: remove resource %q: %w", id, errNotFound)
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
