package graph

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// EditKind names one kind of edit a person makes in OneNote.
type EditKind string

// The edits Server.Apply performs, each through the Server method named.
const (
	EditTouch         EditKind = "touch"          // TouchPage(Page)
	EditShift         EditKind = "shift"          // ShiftTimestamp(Page, Shift)
	EditRenamePage    EditKind = "rename-page"    // RenamePage(Page, Name)
	EditDeletePage    EditKind = "delete-page"    // DeletePage(Page)
	EditAddPage       EditKind = "add-page"       // AddPageAt(Section, Name, "", Place)
	EditSetLevel      EditKind = "set-level"      // SetPageLevel(Page, Place.Level)
	EditMovePage      EditKind = "move-page"      // MovePage(Page, Section)
	EditMovePageGUID  EditKind = "move-page-guid" // MovePageNewGUID(Page, Section)
	EditMoveGroup     EditKind = "move-group"     // MovePageGroup(Page, Section, Place)
	EditRenameSection EditKind = "rename-section" // RenameSection(Section, Name)
	EditRenameGroup   EditKind = "rename-group"   // RenameSectionGroup(Group, Name)
	EditMoveSection   EditKind = "move-section"   // MoveSection(Section, To)
)

// EditKinds lists every EditKind.
func EditKinds() []EditKind {
	return []EditKind{EditTouch, EditShift, EditRenamePage, EditDeletePage, EditAddPage, EditSetLevel,
		EditMovePage, EditMovePageGUID, EditMoveGroup, EditRenameSection, EditRenameGroup, EditMoveSection}
}

// Edit is one edit a person makes in OneNote, as a value, so that a test
// can generate, print and replay sequences of them (RandomEdit, Apply).
// Which fields count depends on Kind (see the EditKind constants).
type Edit struct {
	Kind EditKind
	// Page is the page edited or moved (the first page of a page group).
	Page string
	// Section is the section edited or moved, the section a page is added
	// to, or the section a page or page group moves to.
	Section string
	// Group is the section group renamed.
	Group string
	// To is the notebook or section group a section moves to.
	To string
	// Name is the new title or display name.
	Name string
	// Place is where an added page or a moved page group goes, and the
	// level a page is set to.
	Place Place
	// Shift is how far a timestamp wobble moves lastModifiedDateTime.
	Shift time.Duration
}

// String shows e as one line for test logs.
func (e Edit) String() string {
	s := string(e.Kind)
	for _, f := range []struct{ name, v string }{{"page", e.Page}, {"section", e.Section}, {"group", e.Group},
		{"to", e.To}, {"name", e.Name}, {"after", e.Place.After}} {
		if f.v != "" {
			s += fmt.Sprintf(" %s=%q", f.name, f.v)
		}
	}
	if e.Place.First {
		s += " first"
	}
	switch e.Kind {
	case EditAddPage, EditSetLevel, EditMoveGroup:
		s += fmt.Sprintf(" level=%d", e.Place.Level)
	case EditShift:
		s += " by=" + e.Shift.String()
	}
	return s
}

// Apply performs e through the Server method its Kind names. It returns
// the ids the edit gave: the new page's for EditAddPage, the moved pages'
// for a page or page-group move, the section's for EditMoveSection (its
// pages' new ids are in the listings), none for the others.
func (s *Server) Apply(e Edit) ([]string, error) {
	one := func(id string, err error) ([]string, error) {
		if err != nil {
			return nil, err
		}
		return []string{id}, nil
	}
	switch e.Kind {
	case EditTouch:
		return nil, s.TouchPage(e.Page)
	case EditShift:
		return nil, s.ShiftTimestamp(e.Page, e.Shift)
	case EditRenamePage:
		return nil, s.RenamePage(e.Page, e.Name)
	case EditDeletePage:
		return nil, s.DeletePage(e.Page)
	case EditAddPage:
		return one(s.AddPageAt(e.Section, e.Name, "", e.Place))
	case EditSetLevel:
		return nil, s.SetPageLevel(e.Page, e.Place.Level)
	case EditMovePage:
		return one(s.MovePage(e.Page, e.Section))
	case EditMovePageGUID:
		return one(s.MovePageNewGUID(e.Page, e.Section))
	case EditMoveGroup:
		return s.MovePageGroup(e.Page, e.Section, e.Place)
	case EditRenameSection:
		return nil, s.RenameSection(e.Section, e.Name)
	case EditRenameGroup:
		return nil, s.RenameSectionGroup(e.Group, e.Name)
	case EditMoveSection:
		m, err := s.MoveSection(e.Section, e.To)
		return one(m.ID, err)
	}
	return nil, fmt.Errorf("graph emulator: apply an edit of unknown kind %q", e.Kind)
}

// RandomEdit draws one edit of user's notebooks from rng, of a kind drawn
// from kinds (every kind when empty), that Apply will perform: levels and
// places are drawn among those OneNote allows. ok is false when user has
// nothing the drawn kind can edit (no page, a single section, no section
// group); draw again.
func (s *Server) RandomEdit(user string, rng *rand.Rand, kinds ...EditKind) (e Edit, ok bool) {
	if len(kinds) == 0 {
		kinds = EditKinds()
	}
	s.dataMu.RLock()
	defer s.dataMu.RUnlock()
	ud := s.users[user]
	if ud == nil || len(ud.sectionOrder) == 0 {
		return Edit{}, false
	}
	e.Kind = kinds[rng.IntN(len(kinds))]
	e.Name = fmt.Sprintf("%s %d", e.Kind, rng.IntN(1_000_000))
	sec := ud.sectionOrder[rng.IntN(len(ud.sectionOrder))].section
	e.Section = sec.ID
	var page *Page
	var pages []*Page
	for _, sr := range ud.sectionOrder {
		pages = append(pages, livePages(sr.section)...)
	}
	if len(pages) > 0 {
		page = pages[rng.IntN(len(pages))]
		e.Page = page.ID
	}
	needsPage := e.Kind != EditAddPage && e.Kind != EditRenameSection && e.Kind != EditRenameGroup && e.Kind != EditMoveSection
	if needsPage && page == nil {
		return Edit{}, false
	}
	switch e.Kind {
	case EditShift:
		e.Shift = time.Duration(1+rng.IntN(2)) * time.Second
	case EditAddPage:
		e.Place = randomPlace(rng, livePages(sec), nil)
	case EditSetLevel:
		live := livePages(ud.pages[page.ID].section.section)
		i := slices.Index(live, page)
		lo, hi := 0, 0
		if i > 0 {
			hi = min(live[i-1].Level+1, MaxPageLevel)
		}
		if i+1 < len(live) {
			lo = max(live[i+1].Level-1, 0)
		}
		e.Place.Level = lo + rng.IntN(hi-lo+1)
	case EditMovePage, EditMovePageGUID:
		if len(ud.sectionOrder) < 2 {
			return Edit{}, false
		}
		for e.Section == ud.pages[page.ID].section.section.ID {
			e.Section = ud.sectionOrder[rng.IntN(len(ud.sectionOrder))].section.ID
		}
	case EditMoveGroup:
		from := ud.pages[page.ID].section.section
		group := pageGroup(from, page)
		target := livePages(sec)
		if sec == from {
			target = slices.DeleteFunc(target, func(p *Page) bool { return slices.Contains(group, p) })
		}
		e.Place = randomPlace(rng, target, group)
	case EditRenameGroup:
		if len(ud.groupOrder) == 0 {
			return Edit{}, false
		}
		e.Group = ud.groupOrder[rng.IntN(len(ud.groupOrder))].group.ID
	case EditMoveSection:
		containers := make([]string, 0, len(ud.notebooks)+len(ud.groupOrder))
		for _, nb := range ud.notebooks {
			containers = append(containers, nb.ID)
		}
		for _, g := range ud.groupOrder {
			containers = append(containers, g.group.ID)
		}
		e.To = containers[rng.IntN(len(containers))]
	}
	return e, true
}

// randomPlace draws a place among the live pages target for a page group
// (a single new page when group is nil) that keeps the outline: first,
// after a random page or at the end, at a level between the one the next
// page needs and one deeper than the page before, with the group's
// deepest page at MaxPageLevel at most. Where no level fits, the group
// goes to the end at level 0.
func randomPlace(rng *rand.Rand, target, group []*Page) Place {
	depth, last := 0, 0 // the group's deepest and last page, below its first
	for _, p := range group {
		depth, last = max(depth, p.Level-group[0].Level), p.Level-group[0].Level
	}
	pos := rng.IntN(len(target) + 1) // the group goes before target[pos]
	var at Place
	switch {
	case pos == 0 && len(target) > 0:
		at.First = true
	case pos > 0 && pos < len(target):
		at.After = target[pos-1].ID
	}
	lo, hi := 0, 0
	if pos > 0 {
		hi = min(target[pos-1].Level+1, MaxPageLevel-depth)
	}
	if pos < len(target) {
		lo = max(target[pos].Level-1-last, 0)
	}
	if lo > hi {
		return Place{}
	}
	at.Level = lo + rng.IntN(hi-lo+1)
	return at
}
