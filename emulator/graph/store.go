package graph

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// userData is one user's notebooks with indexes by id.
type userData struct {
	name      string
	guid      string
	notebooks []*Notebook
	groups    map[string]*groupRef
	sections  map[string]*sectionRef
	pages     map[string]*pageRef
	// groupOrder and sectionOrder list every group and section, nested
	// ones included, in tree order (for the flat lists).
	groupOrder   []*groupRef
	sectionOrder []*sectionRef
	books        map[string]*Notebook
}

type groupRef struct {
	group    *SectionGroup
	notebook *Notebook
	parent   *SectionGroup // nil when the notebook is the parent
}

type sectionRef struct {
	section  *Section
	notebook *Notebook
	parent   *SectionGroup
}

type pageRef struct {
	page    *Page
	section *sectionRef
}

func newUserData(name string) *userData {
	return &userData{
		name:     name,
		guid:     guidOf("user", name),
		groups:   make(map[string]*groupRef),
		sections: make(map[string]*sectionRef),
		pages:    make(map[string]*pageRef),
		books:    make(map[string]*Notebook),
	}
}

// AddNotebooks gives user the notebooks nbs (appended to any they have).
// Missing ids, GUIDs and times are filled in deterministically, and the
// resources the pages reference are registered. Adding a notebook whose id
// the user already has replaces nothing; the duplicate is ignored.
func (s *Server) AddNotebooks(user string, nbs ...*Notebook) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	ud := s.userLocked(user)
	for i, nb := range nbs {
		if nb.ID == "" {
			nb.ID = fmt.Sprintf("1-%s!%s", ownerHex(user), hexID(8, "notebook", nb.DisplayName, fmt.Sprint(len(ud.notebooks)+i)))
		}
		if _, dup := ud.books[nb.ID]; dup {
			continue
		}
		fillTimes(&nb.CreatedDateTime, &nb.LastModifiedDateTime)
		ud.books[nb.ID] = nb
		ud.notebooks = append(ud.notebooks, nb)
		s.indexContainer(ud, nb, nil, nb.Sections, nb.SectionGroups)
	}
}

func (s *Server) userLocked(user string) *userData {
	ud := s.users[user]
	if ud == nil {
		ud = newUserData(user)
		s.users[user] = ud
	}
	return ud
}

func (s *Server) indexContainer(ud *userData, nb *Notebook, parent *SectionGroup, sections []*Section, groups []*SectionGroup) {
	for _, sec := range sections {
		if sec.ID == "" {
			sec.ID = fmt.Sprintf("1-%s!%s", ownerHex(ud.name), hexID(8, "section", nb.ID, sec.DisplayName, fmt.Sprint(len(ud.sectionOrder))))
		}
		if sec.GUID == "" {
			sec.GUID = guidOf("section", sec.ID)
		}
		fillTimes(&sec.CreatedDateTime, &sec.LastModifiedDateTime)
		ref := &sectionRef{section: sec, notebook: nb, parent: parent}
		ud.sections[sec.ID] = ref
		ud.sectionOrder = append(ud.sectionOrder, ref)
		for i, p := range sec.Pages {
			if p.ID == "" {
				p.ID = fmt.Sprintf("1-%s!%d-%s!%d", hexID(32, "page", sec.ID, fmt.Sprint(i)), 1+i%97, ownerHex(ud.name), 1000+i)
			}
			if p.GUID == "" {
				p.GUID = guidOf("page", p.ID)
			}
			fillTimes(&p.CreatedDateTime, &p.LastModifiedDateTime)
			ud.pages[p.ID] = &pageRef{page: p, section: ref}
			s.registerResources(p)
		}
	}
	for _, g := range groups {
		if g.ID == "" {
			g.ID = fmt.Sprintf("1-%s!%s", ownerHex(ud.name), hexID(8, "group", nb.ID, g.DisplayName, fmt.Sprint(len(ud.groupOrder))))
		}
		fillTimes(&g.CreatedDateTime, &g.LastModifiedDateTime)
		ref := &groupRef{group: g, notebook: nb, parent: parent}
		ud.groups[g.ID] = ref
		ud.groupOrder = append(ud.groupOrder, ref)
		s.indexContainer(ud, nb, g, g.Sections, g.SectionGroups)
	}
}

func fillTimes(created, modified *time.Time) {
	if created.IsZero() {
		*created = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if modified.IsZero() {
		*modified = *created
	}
}

// resourceURLPattern finds resource references in hand-written HTML.
var resourceURLPattern = regexp.MustCompile(`/resources/([^/"'\s]+)/(?:\$value|content)"(?:[^>]*?(?:data-fullres-src-type|data-src-type|type)="([^"]+)")?`)

// registerResources records the resources page p references.
func (s *Server) registerResources(p *Page) {
	if p.gen != nil {
		for _, r := range p.gen.resources {
			s.resources[r.ID] = r
		}
		return
	}
	for _, m := range resourceURLPattern.FindAllStringSubmatch(p.HTML, -1) {
		id, ctype := m[1], m[2]
		if _, ok := s.resources[id]; ok {
			continue
		}
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		size := 4096
		if strings.HasPrefix(ctype, "image/") {
			size = 2048
		}
		s.resources[id] = Resource{ID: id, ContentType: ctype, Size: size}
	}
}

// AddResource registers (or replaces) a resource served under
// /resources/{id}/$value and /resources/{id}/content.
func (s *Server) AddResource(r Resource) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	s.resources[r.ID] = r
}

// DeletePage makes page id answer 404 from now on and drops it from its
// section's listing, as if someone deleted it between listing and fetch.
func (s *Server) DeletePage(id string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	for _, ud := range s.users {
		if ref := ud.pages[id]; ref != nil {
			ref.page.deleted = true
			return nil
		}
	}
	return fmt.Errorf("graph emulator: delete page %q: %w", id, errNotFound)
}

// TouchPage bumps page id's lastModifiedDateTime to now and changes its
// content, as if someone edited it between listing and fetch.
func (s *Server) TouchPage(id string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	for _, ud := range s.users {
		if ref := ud.pages[id]; ref != nil && !ref.page.deleted {
			p := ref.page
			p.version++
			p.LastModifiedDateTime = s.now().UTC()
			if p.gen == nil {
				p.HTML = strings.Replace(p.HTML, "</body>", fmt.Sprintf("<p>Edited (revision %d).</p></body>", p.version), 1)
			}
			return nil
		}
	}
	return fmt.Errorf("graph emulator: touch page %q: %w", id, errNotFound)
}

// PageIDs lists user's page ids section by section in tree order.
func (s *Server) PageIDs(user string) []string {
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	ud := s.users[user]
	if ud == nil {
		return nil
	}
	var ids []string
	for _, sr := range ud.sectionOrder {
		for _, p := range sr.section.Pages {
			if !p.deleted {
				ids = append(ids, p.ID)
			}
		}
	}
	return ids
}

// lookupUserLocked finds a user by name, GUID or user principal name
// (name@domain).
func (s *Server) lookupUserLocked(id string) *userData {
	if ud := s.users[id]; ud != nil {
		return ud
	}
	if local, _, ok := strings.Cut(id, "@"); ok {
		if ud := s.users[local]; ud != nil {
			return ud
		}
	}
	for _, ud := range s.users {
		if strings.EqualFold(ud.guid, id) {
			return ud
		}
	}
	return nil
}
