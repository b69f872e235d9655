package graph

import (
	"errors"
	"fmt"
	"html"
	"slices"
	"time"
)

// MaxPageLevel is the deepest page level OneNote offers: a page, a
// subpage and a sub-subpage (levels 0, 1 and 2).
const MaxPageLevel = 2

// ErrBreaksOutline is wrapped by the errors of the edits OneNote itself
// would not allow: a page level outside 0..MaxPageLevel, a level more than
// one deeper than the page before (the first page of a section is level
// 0), a page whose next page would then be more than one level deeper
// than it, or a page group placed after one of its own pages. Nothing is
// changed when an edit is refused.
var ErrBreaksOutline = errors.New("the edit breaks OneNote's page outline")

// Place says where a page or page group goes in a section: first in the
// section when First is set, else right after page After, else at the end;
// with its first page at level Level.
type Place struct {
	First bool
	After string
	Level int
}

// AddPageAt creates a page titled title in section sectionID at place at,
// created and modified now, as someone writing a new page or subpage in
// OneNote: the pages after it keep their order behind it. Its HTML is a
// small page with body as its one paragraph. The section's
// lastModifiedDateTime moves to now (reference fact 23, [M1]). It returns
// the new page's id; a level that breaks the outline is refused with
// ErrBreaksOutline.
func (s *Server) AddPageAt(sectionID, title, body string, at Place) (string, error) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	ud, sr, err := s.sectionLocked(sectionID, "add a page to")
	if err != nil {
		return "", err
	}
	sec := sr.section
	now := s.nowSecond()
	ud.seq++
	p := &Page{Title: title, CreatedDateTime: now, LastModifiedDateTime: now, Level: at.Level,
		ID: pageID(hexID(32, "added", sectionID, itoa(ud.seq), title), len(sec.Pages)+1, ownerHex(ud.name), sec.GUID),
		HTML: fmt.Sprintf("<html><head><title>%s</title><meta name=\"created\" content=\"%s\" /></head>"+
			"<body><div><p>%s</p></div></body></html>", html.EscapeString(title), now.Format(time.RFC3339), html.EscapeString(body))}
	p.GUID, p.live = guidOf("page", p.ID), true
	pages, err := placeGroupIn(sec.Pages, []*Page{p}, at)
	if err != nil {
		return "", fmt.Errorf("graph emulator: add page %q to section %q: %w", title, sectionID, err)
	}
	sec.Pages = pages
	settle(sec)
	pr := &pageRef{page: p, section: sr}
	ud.pages[p.ID] = pr
	s.registerResources(ud, pr)
	rollUp(sec, now)
	return p.ID, nil
}

// SetPageLevel makes page id a page (0), a subpage (1) or a sub-subpage
// (2) where it stands, as "Make Subpage" and "Promote Subpage" do in
// OneNote; the pages under it keep their levels. A level that breaks the
// outline is refused with ErrBreaksOutline. No lastModifiedDateTime moves:
// nothing is published on whether a level change counts as an edit, and a
// client that must notice the change without a timestamp is the harder
// case (assumption).
func (s *Server) SetPageLevel(id string, level int) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.livePageLocked(id, "change the level of")
	if err != nil {
		return err
	}
	live := livePages(ref.section.section)
	i := slices.Index(live, ref.page)
	levels := pageLevels(live)
	levels[i] = level
	if err := checkOutline(live, levels, i, i+1); err != nil {
		return fmt.Errorf("graph emulator: set the level of page %q to %d: %w", id, level, err)
	}
	ref.page.Level = level
	return nil
}

// MovePageGroup moves page id together with its subpages (the pages after
// it of a deeper level, up to the next page of its level or shallower), as
// OneNote moves a collapsed page group. With toSectionID empty or the
// page's own section, the group moves to place at in that section and
// every page keeps its id and timestamps (assumption: nothing is
// published on a reorder). To another section of the same user each page
// gets a completely new id, keeps its lastModifiedDateTime (reference fact
// 20, [M1]) and its onenote: page-id GUID, and both sections'
// lastModifiedDateTime move to now, as with MovePage. The group keeps its
// shape: each page's level moves by the same amount as the first page's,
// which becomes at.Level. It returns the group's ids after the move, first
// page first. A place inside the group, or levels that break the outline,
// are refused with ErrBreaksOutline.
func (s *Server) MovePageGroup(id, toSectionID string, at Place) ([]string, error) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	ud, ref, err := s.livePageLocked(id, "move the page group of")
	if err != nil {
		return nil, err
	}
	from := ref.section
	to := from
	if toSectionID != "" {
		if to = ud.sections[toSectionID]; to == nil {
			return nil, fmt.Errorf("graph emulator: move the page group of %q to section %q of %s: %w", id, toSectionID, ud.name, errNotFound)
		}
	}
	group := pageGroup(from.section, ref.page)
	shift := at.Level - ref.page.Level
	oldLevels := pageLevels(group)
	for _, p := range group {
		p.Level += shift
	}
	source := slices.DeleteFunc(slices.Clone(from.section.Pages), func(p *Page) bool { return slices.Contains(group, p) })
	target := to.section.Pages
	if to == from {
		target = source
	}
	placed, err := placeGroupIn(target, group, at)
	if err != nil {
		for i, p := range group {
			p.Level = oldLevels[i]
		}
		return nil, fmt.Errorf("graph emulator: move the page group of %q: %w", id, err)
	}
	ids := make([]string, len(group))
	if to == from {
		from.section.Pages = placed
		settle(from.section)
		for i, p := range group {
			ids[i] = p.ID
		}
		return ids, nil
	}
	from.section.Pages, to.section.Pages = source, placed
	for i, p := range group {
		ids[i] = s.rehomePageLocked(ud, p, to, hexID(32, "moved", p.ID, to.section.ID, itoa(ud.seq)))
	}
	settle(from.section)
	settle(to.section)
	now := s.nowSecond()
	rollUp(from.section, now)
	rollUp(to.section, now)
	return ids, nil
}

// rehomePageLocked gives page p, now in section to, the id made of pageHex
// and to's GUID, and re-keys its canonical ref. It returns the new id.
func (s *Server) rehomePageLocked(ud *userData, p *Page, to *sectionRef, pageHex string) string {
	ref := ud.pages[p.ID]
	delete(ud.pages, p.ID)
	ud.seq++
	p.ID = pageID(pageHex, len(to.section.Pages), ownerHex(ud.name), to.section.GUID)
	ud.pages[p.ID] = ref
	ref.section = to
	return p.ID
}

// placeGroupIn returns a new slice of pages with group (whose levels are
// already set) inserted at place at. It checks the outline around the inserted pages and
// changes nothing on error.
func placeGroupIn(pages, group []*Page, at Place) ([]*Page, error) {
	pos := len(pages)
	switch {
	case at.First:
		pos = 0
	case at.After != "":
		pos = slices.IndexFunc(pages, func(p *Page) bool { return p.ID == at.After && !p.deleted })
		if pos < 0 {
			if slices.ContainsFunc(group, func(p *Page) bool { return p.ID == at.After }) {
				return nil, fmt.Errorf("%w: a page group cannot go after one of its own pages (%q)", ErrBreaksOutline, at.After)
			}
			return nil, fmt.Errorf("place after page %q: not in the target section: %w", at.After, errNotFound)
		}
		pos++
	}
	out := slices.Concat(pages[:pos], group, pages[pos:])
	live := livePages(&Section{Pages: out})
	first := slices.Index(live, group[0])
	if err := checkOutline(live, pageLevels(live), first, first+len(group)); err != nil {
		return nil, err
	}
	return out, nil
}

// checkOutline checks levels (of the live pages live) at indexes lo..hi
// (hi may be len(live)): each within 0..MaxPageLevel and at most one
// deeper than the one before, the first page at level 0.
func checkOutline(live []*Page, levels []int, lo, hi int) error {
	for i := lo; i <= hi && i < len(live); i++ {
		prev := -1
		if i > 0 {
			prev = levels[i-1]
		}
		switch l := levels[i]; {
		case l < 0 || l > MaxPageLevel:
			return fmt.Errorf("%w: level %d of page %q is outside 0..%d", ErrBreaksOutline, l, live[i].Title, MaxPageLevel)
		case l > prev+1 && i == 0:
			return fmt.Errorf("%w: page %q would be first in its section at level %d; the first page is level 0", ErrBreaksOutline, live[i].Title, l)
		case l > prev+1:
			return fmt.Errorf("%w: page %q would be at level %d after %q at level %d; a page is at most one level deeper than the page before it",
				ErrBreaksOutline, live[i].Title, l, live[i-1].Title, prev)
		}
	}
	return nil
}

// livePages returns sec's pages that are not deleted, in order.
func livePages(sec *Section) []*Page {
	out := make([]*Page, 0, len(sec.Pages))
	for _, p := range sec.Pages {
		if !p.deleted {
			out = append(out, p)
		}
	}
	return out
}

func pageLevels(pages []*Page) []int {
	out := make([]int, len(pages))
	for i, p := range pages {
		out[i] = p.Level
	}
	return out
}

// pageGroup returns head and the live pages after it in sec of a deeper
// level, up to the next page of head's level or shallower.
func pageGroup(sec *Section, head *Page) []*Page {
	live := livePages(sec)
	i := slices.Index(live, head)
	j := i + 1
	for j < len(live) && live[j].Level > head.Level {
		j++
	}
	return slices.Clone(live[i:j])
}

// settle keeps sec's outline after any edit: its live pages are ordered
// 0..n-1 as they stand, the first is level 0 and none is more than one
// level deeper than the page before it. A page left too deep (a subpage
// whose parent was deleted or moved away alone) rises to one below the
// page now before it: the emulator's choice, nothing is published on it.
func settle(sec *Section) {
	order, prev := 0, -1
	for _, p := range sec.Pages {
		if p.deleted {
			continue
		}
		p.Level = min(max(p.Level, 0), prev+1, MaxPageLevel)
		p.Order = order
		order++
		prev = p.Level
	}
}

// sectionLocked finds section id of any user; the error (errNotFound)
// names what was being done to it.
func (s *Server) sectionLocked(id, doing string) (*userData, *sectionRef, error) {
	for _, ud := range s.users {
		if r := ud.sections[id]; r != nil {
			return ud, r, nil
		}
	}
	return nil, nil, fmt.Errorf("graph emulator: %s section %q: %w", doing, id, errNotFound)
}
