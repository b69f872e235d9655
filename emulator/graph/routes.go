package graph

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// apiRequest is one admitted Graph request being answered.
type apiRequest struct {
	method    string
	url       *url.URL
	query     url.Values
	caller    string
	base      string // scheme and host
	root      string // "/v1.0/me/onenote" or "/v1.0/users/{id}/onenote"
	owner     *userData
	requestID string
	// expand is the parsed $expand, filter the parsed $filter.
	expand []expandItem
	filter itemFilter
	// listed are the page ids a page listing returned (for the
	// after-listing faults).
	listed []string
}

func (ar *apiRequest) abs(path string) string { return ar.base + ar.root + path }

// route dispatches a Graph request below /v1.0/. The caller holds no lock.
func (s *Server) route(ar *apiRequest) response {
	path := strings.TrimPrefix(ar.url.Path, "/v1.0")
	var rest string
	switch {
	case strings.HasPrefix(path, "/me/onenote/"):
		ar.root = "/v1.0/me/onenote"
		rest = strings.TrimPrefix(path, "/me/onenote/")
	case strings.HasPrefix(path, "/users/"):
		id, after, ok := strings.Cut(strings.TrimPrefix(path, "/users/"), "/")
		if !ok || !strings.HasPrefix(after, "onenote/") {
			return s.notFound(ar)
		}
		ar.root = "/v1.0/users/" + id + "/onenote"
		rest = strings.TrimPrefix(after, "onenote/")
		s.dataMu.RLock()
		ud := s.lookupUserLocked(id)
		s.dataMu.RUnlock()
		self := id == ar.caller || strings.EqualFold(id, UserGUID(ar.caller)) || strings.HasPrefix(id, ar.caller+"@")
		switch {
		case self:
		case ud == nil:
			return s.errorFor(ar, http.StatusNotFound, "ResourceNotFound", "User not found.")
		default:
			// A token reads its own user's data only: nothing is shared
			// between the emulator's users.
			return s.errorFor(ar, http.StatusForbidden, "40003", "")
		}
	default:
		seg, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
		if seg != "me" && seg != "users" {
			// What Graph answers for a path it cannot route, e.g. a
			// $batch step whose url repeats the version ("/v1.0/me/...").
			return s.errorFor(ar, http.StatusBadRequest, "BadRequest", "Resource not found for the segment '"+seg+"'.")
		}
		return s.notFound(ar)
	}
	s.dataMu.RLock()
	ar.owner = s.users[ar.caller]
	s.dataMu.RUnlock()
	if ar.owner == nil {
		ar.owner = newUserData(ar.caller)
	}
	if ar.method != http.MethodGet {
		return s.errorFor(ar, http.StatusMethodNotAllowed, "BadRequest", "The emulator serves GET requests only.")
	}
	if s.libraryLimited(ar.owner.name, "") {
		return s.libraryLimit(ar)
	}
	segs := strings.Split(strings.Trim(rest, "/"), "/")
	if ar.query.Get("pagelevel") != "" && segs[0] != "pages" && !(segs[0] == "sections" && len(segs) == 3 && segs[2] == "pages") {
		return s.errorFor(ar, http.StatusBadRequest, "20104", "")
	}
	if kind, ok := entityKindOf(segs); ok {
		exp, err := parseExpand(ar.query.Get("$expand"), kind)
		if err != nil {
			return err.response(s, ar)
		}
		ar.expand = exp
		if ar.filter, err = parseFilter(ar.query.Get("$filter")); err != nil {
			return err.response(s, ar)
		}
	}

	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	switch segs[0] {
	case "notebooks":
		return s.routeNotebooks(ar, segs[1:])
	case "sectionGroups":
		return s.routeSectionGroups(ar, segs[1:])
	case "sections":
		return s.routeSections(ar, segs[1:])
	case "pages":
		return s.routePages(ar, segs[1:])
	case "resources":
		if len(segs) == 3 && (segs[2] == "$value" || segs[2] == "content") {
			return s.serveResource(ar, segs[1])
		}
	}
	return s.notFound(ar)
}

// entityKindOf returns the kind of entity a path below onenote/ answers
// with ("notebooks/{id}/sections" lists sections), or false for content
// and resources.
func entityKindOf(segs []string) (entityKind, bool) {
	name := segs[len(segs)-1]
	if len(segs)%2 == 0 {
		name = segs[len(segs)-2]
	}
	k, ok := collectionKinds[name]
	return k, ok
}

// libraryLimit is the 403 with code 10008 (the 5,000-item document
// library limit) for a limited user or notebook.
func (s *Server) libraryLimit(ar *apiRequest) response {
	return s.errorFor(ar, http.StatusForbidden, "10008", "")
}

// undetermined is the 500 with code 19999 real Graph gives the
// account-wide section and section-group lists, and $expand during an
// outage ([M1]).
func (s *Server) undetermined(ar *apiRequest) response {
	return s.errorFor(ar, http.StatusInternalServerError, "19999", "")
}

// children lists the sections or section groups of a notebook or section
// group, the two containers that hold both.
func (s *Server) children(ar *apiRequest, kind string, secs []*Section, groups []*SectionGroup) response {
	switch kind {
	case "sections":
		return s.collection(ar, "sections", s.sectionsJSON(ar, secs))
	case "sectionGroups":
		return s.collection(ar, "sectionGroups", s.groupsJSON(ar, groups))
	}
	return s.notFound(ar)
}

func (s *Server) notFound(ar *apiRequest) response {
	return s.errorFor(ar, http.StatusNotFound, "20102", "")
}

func (s *Server) routeNotebooks(ar *apiRequest, segs []string) response {
	ud := ar.owner
	if len(ar.expand) > 0 && len(segs) <= 1 && s.expandOutage() {
		return s.undetermined(ar)
	}
	if len(segs) == 0 {
		return s.listNotebooks(ar)
	}
	nb := ud.books[segs[0]]
	if nb == nil {
		return s.notFound(ar)
	}
	if s.libraryLimited(ud.name, nb.ID) {
		return s.libraryLimit(ar)
	}
	switch len(segs) {
	case 1:
		return s.entity(ar, "notebooks/$entity", s.notebookJSON(ar, nb))
	case 2:
		return s.children(ar, segs[1], nb.Sections, nb.SectionGroups)
	}
	return s.notFound(ar)
}

func (s *Server) routeSectionGroups(ar *apiRequest, segs []string) response {
	ud := ar.owner
	if len(segs) == 0 {
		// The account-wide list answers 500/19999, filtered or not ([M1]).
		return s.undetermined(ar)
	}
	ref := ud.groups[segs[0]]
	if ref == nil {
		return s.notFound(ar)
	}
	if s.libraryLimited(ud.name, ref.notebook.ID) {
		return s.libraryLimit(ar)
	}
	switch len(segs) {
	case 1:
		return s.entity(ar, "sectionGroups/$entity", s.groupJSON(ar, ref.group))
	case 2:
		return s.children(ar, segs[1], ref.group.Sections, ref.group.SectionGroups)
	}
	return s.notFound(ar)
}

func (s *Server) routeSections(ar *apiRequest, segs []string) response {
	ud := ar.owner
	if len(segs) == 0 {
		// The account-wide list answers 500/19999 unless it is filtered
		// ([M1]), and to tolower(field) eq '…' though contains() and
		// displayName eq answer ([M1], fact 33).
		if ar.filter == nil || (ar.filter.lowerEq() && !s.cfg.LenientToLower) {
			return s.undetermined(ar)
		}
		var items []map[string]any
		for _, ref := range ud.sectionOrder {
			if !s.libraryLimited(ud.name, ref.notebook.ID) {
				items = append(items, s.sectionJSON(ar, ref.section))
			}
		}
		return s.collection(ar, "sections", items)
	}
	ref := ud.sections[segs[0]]
	if ref == nil {
		return s.notFound(ar)
	}
	if s.libraryLimited(ud.name, ref.notebook.ID) {
		return s.libraryLimit(ar)
	}
	switch {
	case len(segs) == 1:
		return s.entity(ar, "sections/$entity", s.sectionJSON(ar, ref.section))
	case len(segs) == 2 && segs[1] == "pages":
		if ref.section.PasswordProtected {
			return s.locked(ar)
		}
		return s.listPages(ar, []*sectionRef{ref}, "sections('"+ref.section.ID+"')/pages")
	}
	return s.notFound(ar)
}

func (s *Server) routePages(ar *apiRequest, segs []string) response {
	ud := ar.owner
	if len(segs) == 0 {
		if len(ud.sectionOrder) > s.cfg.AllPagesSectionLimit {
			return s.errorFor(ar, http.StatusBadRequest, "20266", "")
		}
		var open []*sectionRef
		for _, sr := range ud.sectionOrder {
			if !sr.section.PasswordProtected {
				open = append(open, sr)
			}
		}
		return s.listPages(ar, open, "pages")
	}
	ref := ud.pages[segs[0]]
	if ref == nil || ref.page.deleted {
		return s.notFound(ar)
	}
	if s.libraryLimited(ud.name, ref.section.notebook.ID) {
		return s.libraryLimit(ar)
	}
	if ref.section.section.PasswordProtected {
		return s.locked(ar)
	}
	switch {
	case len(segs) == 1:
		if s.faultHit(faultBadRequest) {
			return s.errorFor(ar, http.StatusBadRequest, "BadRequest", "")
		}
		m := s.pageJSON(ar, ref, ar.query.Get("pagelevel") == "true")
		if s.freshTitle(ref.page) {
			// The listing has the title at once; the page itself reads
			// "" for a while ([M1], fact 25).
			m["title"] = ""
		}
		return s.entity(ar, "pages/$entity", m)
	case len(segs) == 2 && (segs[1] == "content" || segs[1] == "$value"):
		if s.faultHit(faultBadRequest) {
			return s.errorFor(ar, http.StatusBadRequest, "BadRequest", "")
		}
		return s.pageContent(ar, ref)
	}
	return s.notFound(ar)
}

// defaultFreshTitleLag is how long a new page's title reads "" on
// GET /pages/{id}: [M1] saw "" for pages created seconds before and
// published no end, so half a minute.
const defaultFreshTitleLag = 30 * time.Second

// freshTitle reports whether page p, created while the server runs, is
// still within Config.FreshTitleLag of its creation.
func (s *Server) freshTitle(p *Page) bool {
	if !p.live || s.cfg.FreshTitleLag < 0 {
		return false
	}
	return s.now().Sub(p.CreatedDateTime) < s.scaled(s.cfg.FreshTitleLag, defaultFreshTitleLag)
}
