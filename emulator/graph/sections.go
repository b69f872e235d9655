package graph

import (
	"fmt"
	"slices"
	"strings"
)

// RenameSection changes section id's displayName, as renaming a section
// tab in OneNote does. Its pages follow at once (their parentSection and
// onenote: links carry the new name). No lastModifiedDateTime moves,
// neither the section's nor its pages': nothing is published on a section
// rename, a page-title rename leaves the page's as it is (reference fact
// 22, [M1]), and a client that must notice a rename without a timestamp is
// the harder case (assumption).
func (s *Server) RenameSection(id, name string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.sectionLocked(id, "rename")
	if err != nil {
		return err
	}
	ref.section.DisplayName = name
	return nil
}

// RenameSectionGroup changes section group id's displayName; as with
// RenameSection, no lastModifiedDateTime moves (assumption).
func (s *Server) RenameSectionGroup(id, name string) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	for _, ud := range s.users {
		if ref := ud.groups[id]; ref != nil {
			ref.group.DisplayName = name
			return nil
		}
	}
	return fmt.Errorf("graph emulator: rename section group %q: %w", id, errNotFound)
}

// SectionMove is what MoveSection did: the section's id after the move and
// the new id of each of its pages, by old id (empty when the ids stayed).
type SectionMove struct {
	ID    string            `json:"id"`
	Pages map[string]string `json:"pages,omitempty"`
}

// MoveSection moves section id to the end of container toID (a notebook
// or a section group of the same user), as dragging a section in OneNote
// does. Within its notebook (into or out of a section group) it keeps its
// id. To another notebook it gets a new id and a new section GUID, and
// each of its pages a new id that keeps the page part (what comes before
// "!s") with the new section's suffix (reference fact 21, [M1]); the
// pages keep their onenote: page-id GUID, and the old ids answer 404.
// Every listing, $expand answer and parent link follows. No
// lastModifiedDateTime moves, the section's or its pages' (assumption:
// fact 20 has a moved page keep its own, nothing is published for a
// section).
func (s *Server) MoveSection(id, toID string) (SectionMove, error) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	ud, ref, err := s.sectionLocked(id, "move")
	if err != nil {
		return SectionMove{}, err
	}
	var toBook *Notebook
	var toGroup *SectionGroup
	if nb := ud.books[toID]; nb != nil {
		toBook = nb
	} else if g := ud.groups[toID]; g != nil {
		toBook, toGroup = g.notebook, g.group
	} else {
		return SectionMove{}, fmt.Errorf("graph emulator: move section %q to %q of %s: no such notebook or section group: %w", id, toID, ud.name, errNotFound)
	}
	if toBook == ref.notebook && toGroup == ref.parent {
		return SectionMove{ID: id}, nil
	}
	sec := ref.section
	if ref.parent != nil {
		ref.parent.Sections = slices.DeleteFunc(ref.parent.Sections, func(x *Section) bool { return x == sec })
	} else {
		ref.notebook.Sections = slices.DeleteFunc(ref.notebook.Sections, func(x *Section) bool { return x == sec })
	}
	if toGroup != nil {
		toGroup.Sections = append(toGroup.Sections, sec)
	} else {
		toBook.Sections = append(toBook.Sections, sec)
	}
	move := SectionMove{ID: id}
	if toBook != ref.notebook {
		ud.seq++
		delete(ud.sections, id)
		sec.ID = fmt.Sprintf("1-%s!%s", ownerHex(ud.name), hexID(8, "section", toBook.ID, id, itoa(ud.seq)))
		sec.GUID = guidOf("section", sec.ID)
		ud.sections[sec.ID] = ref
		move.ID, move.Pages = sec.ID, make(map[string]string)
		suffix := "!s" + strings.ReplaceAll(sec.GUID, "-", "")
		for _, p := range sec.Pages {
			pr := ud.pages[p.ID]
			if pr == nil || pr.page != p {
				continue
			}
			old := p.ID
			head, _, _ := strings.Cut(old, "!s")
			delete(ud.pages, old)
			p.ID = head + suffix
			ud.pages[p.ID] = pr
			if !p.deleted {
				move.Pages[old] = p.ID
			}
		}
	}
	s.reindexTreeLocked(ud)
	return move, nil
}

// reindexTreeLocked rebuilds ud's tree-order lists and every group's and
// section's parent links from the notebooks, after a move.
func (s *Server) reindexTreeLocked(ud *userData) {
	ud.groupOrder, ud.sectionOrder = ud.groupOrder[:0], ud.sectionOrder[:0]
	var walk func(nb *Notebook, parent *SectionGroup, sections []*Section, groups []*SectionGroup)
	walk = func(nb *Notebook, parent *SectionGroup, sections []*Section, groups []*SectionGroup) {
		for _, sec := range sections {
			ref := ud.sections[sec.ID]
			ref.notebook, ref.parent = nb, parent
			ud.sectionOrder = append(ud.sectionOrder, ref)
		}
		for _, g := range groups {
			ref := ud.groups[g.ID]
			ref.notebook, ref.parent = nb, parent
			ud.groupOrder = append(ud.groupOrder, ref)
			walk(nb, g, g.Sections, g.SectionGroups)
		}
	}
	for _, nb := range ud.notebooks {
		walk(nb, nil, nb.Sections, nb.SectionGroups)
	}
}
