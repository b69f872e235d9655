package graph

import (
	"fmt"
	"html"
	"regexp"
	"slices"
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
	// resources are the user's images and attachments; page is the page
	// that refers to each (nil for one added with AddResource).
	resources map[string]*resourceRef
	// groupOrder and sectionOrder list every group and section, nested
	// ones included, in tree order (for the flat lists).
	groupOrder   []*groupRef
	sectionOrder []*sectionRef
	books        map[string]*Notebook
	// seq counts the pages and sections the edits made, so every new id
	// is new.
	seq uint64
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

// pageRef is a page and the section it is in. The refs in userData.pages
// are the canonical ones: MovePage updates them in place.
type pageRef struct {
	page    *Page
	section *sectionRef
}

type resourceRef struct {
	res  Resource
	page *pageRef
}

func newUserData(name string) *userData {
	return &userData{
		name:      name,
		guid:      guidOf("user", name),
		groups:    make(map[string]*groupRef),
		sections:  make(map[string]*sectionRef),
		pages:     make(map[string]*pageRef),
		resources: make(map[string]*resourceRef),
		books:     make(map[string]*Notebook),
	}
}

// pageID is a personal-account page id: a 32-hex page part, a sequence
// number, the owner and the 32-hex id of the section the page is in
// ("0-<hex>!<n>-<OWNER>!s<section hex>", reference fact 19, [M1]). It
// embeds the section, so a page moved to another section gets a new id.
func pageID(pageHex string, n int, owner, sectionGUID string) string {
	return fmt.Sprintf("0-%s!%d-%s!s%s", pageHex, n, owner, strings.ReplaceAll(sectionGUID, "-", ""))
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
				p.ID = pageID(hexID(32, "page", sec.ID, fmt.Sprint(i)), 1+i, ownerHex(ud.name), sec.GUID)
			}
			if p.GUID == "" {
				p.GUID = guidOf("page", p.ID)
			}
			fillTimes(&p.CreatedDateTime, &p.LastModifiedDateTime)
			// A section's lastModifiedDateTime rolls up from its pages
			// (reference fact 23, [M1]).
			rollUp(sec, p.LastModifiedDateTime)
			pr := &pageRef{page: p, section: ref}
			ud.pages[p.ID] = pr
			s.registerResources(ud, pr)
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

// fillTimes fills zero times and drops sub-second parts: Graph's
// timestamps have whole-second resolution (reference fact 24, [M1]).
func fillTimes(created, modified *time.Time) {
	if created.IsZero() {
		*created = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if modified.IsZero() {
		*modified = *created
	}
	*created = created.UTC().Truncate(time.Second)
	*modified = modified.UTC().Truncate(time.Second)
}

// rollUp moves sec's lastModifiedDateTime forward to t.
func rollUp(sec *Section, t time.Time) {
	if t.After(sec.LastModifiedDateTime) {
		sec.LastModifiedDateTime = t
	}
}

// nowSecond is the server clock at whole-second resolution.
func (s *Server) nowSecond() time.Time { return s.now().UTC().Truncate(time.Second) }

// resourceURLPattern finds resource references in hand-written HTML.
var resourceURLPattern = regexp.MustCompile(`/resources/([^/"'\s]+)/(?:\$value|content)"(?:[^>]*?(?:data-fullres-src-type|data-src-type|type)="([^"]+)")?`)

// registerResources records the resources the page of pr references.
func (s *Server) registerResources(ud *userData, pr *pageRef) {
	p := pr.page
	if p.gen != nil {
		for _, r := range p.gen.resources {
			ud.resources[r.ID] = &resourceRef{res: r, page: pr}
		}
		return
	}
	for _, m := range resourceURLPattern.FindAllStringSubmatch(p.HTML, -1) {
		id, ctype := m[1], m[2]
		if _, ok := ud.resources[id]; ok {
			continue
		}
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		size := 4096
		if strings.HasPrefix(ctype, "image/") {
			size = 2048
		}
		ud.resources[id] = &resourceRef{res: Resource{ID: id, ContentType: ctype, Size: size}, page: pr}
	}
}

// AddResource registers (or replaces) a resource of user served under
// /resources/{id}/$value and /resources/{id}/content. It belongs to no
// page, so no section lock applies to it.
func (s *Server) AddResource(user string, r Resource) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	s.userLocked(user).resources[r.ID] = &resourceRef{res: r}
}

// livePageLocked finds page id that has not been deleted; the error
// (errNotFound) names what was being done to it.
func (s *Server) livePageLocked(id, doing string) (*userData, *pageRef, error) {
	ud, ref := s.findPageLocked(id)
	if ref == nil || ref.page.deleted {
		return nil, nil, fmt.Errorf("graph emulator: %s page %q: %w", doing, id, errNotFound)
	}
	return ud, ref, nil
}

// findPageLocked finds page id of any user.
func (s *Server) findPageLocked(id string) (*userData, *pageRef) {
	for _, ud := range s.users {
		if ref := ud.pages[id]; ref != nil {
			return ud, ref
		}
	}
	return nil, nil
}

// DeletePage makes page id answer 404 from now on and drops it from its
// section's listing, as if someone deleted it between listing and fetch.
// The section's lastModifiedDateTime moves to now. Its subpages stay, each
// at most one level deeper than the page now before it (see settle).
func (s *Server) DeletePage(id string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref := s.findPageLocked(id)
	if ref == nil {
		return fmt.Errorf("graph emulator: delete page %q: %w", id, errNotFound)
	}
	ref.page.deleted = true
	settle(ref.section.section)
	rollUp(ref.section.section, s.nowSecond())
	return nil
}

// TouchPage bumps page id's lastModifiedDateTime (and its section's) to
// now and changes its content, as if someone edited it between listing
// and fetch.
func (s *Server) TouchPage(id string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.livePageLocked(id, "touch")
	if err != nil {
		return err
	}
	p := ref.page
	p.version++
	p.LastModifiedDateTime = s.nowSecond()
	rollUp(ref.section.section, p.LastModifiedDateTime)
	if p.gen == nil {
		p.HTML = strings.Replace(p.HTML, "</body>", fmt.Sprintf("<p>Edited (revision %d).</p></body>", p.version), 1)
	}
	return nil
}

// RedrawInk replaces page id's ink with inkML, an InkML document (its
// HTML stays as it is), and bumps its lastModifiedDateTime (and its
// section's) to now, as drawing on a page in OneNote does. An empty inkML
// gives a generated page its generated ink back.
func (s *Server) RedrawInk(id, inkML string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.livePageLocked(id, "redraw ink of")
	if err != nil {
		return err
	}
	p := ref.page
	p.InkML = inkML
	p.LastModifiedDateTime = s.nowSecond()
	rollUp(ref.section.section, p.LastModifiedDateTime)
	return nil
}

// RenamePage changes page id's title (in its metadata and its content)
// without moving its lastModifiedDateTime, as a title PATCH does on real
// Graph (reference fact 22, [M1]).
func (s *Server) RenamePage(id, title string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.livePageLocked(id, "rename")
	if err != nil {
		return err
	}
	p := ref.page
	p.Title = title
	if p.gen == nil {
		p.HTML = titlePattern.ReplaceAllLiteralString(p.HTML, "<title>"+html.EscapeString(title)+"</title>")
	}
	return nil
}

// MovePage moves page id to section toSectionID of the same user, as the
// OneNote client does: the page gets a completely new id (it embeds the
// section), keeps its lastModifiedDateTime (reference fact 20, [M1]) and
// its onenote: page-id GUID, and lands at the end of the target section
// at level 0. Its subpages stay behind (MovePageGroup takes them along).
// Both sections' lastModifiedDateTime move to now. The old id answers 404
// from then on. It returns the new id.
func (s *Server) MovePage(id, toSectionID string) (string, error) {
	return s.movePage(id, toSectionID, false)
}

// MovePageNewGUID is MovePage where the page's onenote: page-id GUID
// changes as well: that a move keeps it is an inference, and this is the
// case where it does not, for clients that must find a moved page by its
// content.
func (s *Server) MovePageNewGUID(id, toSectionID string) (string, error) {
	return s.movePage(id, toSectionID, true)
}

func (s *Server) movePage(id, toSectionID string, newGUID bool) (string, error) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	ud, ref, err := s.livePageLocked(id, "move")
	if err != nil {
		return "", err
	}
	to := ud.sections[toSectionID]
	if to == nil {
		return "", fmt.Errorf("graph emulator: move page %q to section %q of %s: %w", id, toSectionID, ud.name, errNotFound)
	}
	if to == ref.section {
		return id, nil
	}
	p, from := ref.page, ref.section.section
	from.Pages = slices.DeleteFunc(from.Pages, func(q *Page) bool { return q == p })
	to.section.Pages = append(to.section.Pages, p)
	p.Level = 0
	s.rehomePageLocked(ud, p, to, hexID(32, "moved", id, toSectionID, itoa(ud.seq)))
	if newGUID {
		p.GUID = guidOf("page", p.ID)
	}
	settle(from)
	settle(to.section)
	now := s.nowSecond()
	rollUp(from, now)
	rollUp(to.section, now)
	return p.ID, nil
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
