package notion

import "fmt"

// What a person does in Notion's own app that the API cannot do. Tests
// use these to act out a person's edits between two runs.

// PersonMove moves page or database id under page parentID, as dragging it
// in Notion's sidebar does: it keeps its ID, its title and its content
// (rows and children). The API's move endpoint moves pages only; a person
// can move a database too.
func (s *Server) PersonMove(id, parentID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[id]
	if n == nil || n.kind == kindBlock {
		return fmt.Errorf("notion emulator: no page or database %q to move", id)
	}
	p := s.nodes[parentID]
	if p == nil || p.kind != kindPage {
		return fmt.Errorf("notion emulator: no page %q to move %q under", parentID, id)
	}
	for a := p; a != nil; a = s.nodes[a.parent.id] {
		if a.id == n.id {
			return fmt.Errorf("notion emulator: %q cannot move under its own descendant %q", id, parentID)
		}
		if a.parent.id == "" {
			break
		}
	}
	s.unlink(n)
	n.parent = parentRef{typ: parentPage, id: p.id}
	n.edited = s.stamp()
	s.link(n)
	return nil
}

// PersonRename sets the title of page or database id, as typing a new one
// in Notion's app does.
func (s *Server) PersonRename(id, title string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[id]
	if n == nil || n.kind == kindBlock {
		return fmt.Errorf("notion emulator: no page or database %q to rename", id)
	}
	if n.kind == kindDatabase {
		n.title = []any{textItem(title)}
	} else {
		for name, v := range n.properties {
			if p, ok := v.(map[string]any); ok && p["type"] == "title" {
				p["title"] = []any{textItem(title)}
				n.properties[name] = p
			}
		}
	}
	n.edited = s.stamp()
	return nil
}

// PersonID is the user a person's edits (PersonEditText) are made by.
const PersonID = "5e7a0b1c-0000-4000-8000-00000000fe11"

// PersonEditText replaces the text of block id (a block with rich text)
// by text, as typing in Notion's app does: the block and the page it is
// on are then last edited by PersonID, now.
func (s *Server) PersonEditText(id, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.nodes[id]
	if n == nil || n.kind != kindBlock || n.archived {
		return fmt.Errorf("notion emulator: no live block %q to edit", id)
	}
	if _, ok := n.content["rich_text"]; !ok {
		return fmt.Errorf("notion emulator: block %q (%s) has no text to edit", id, n.typ)
	}
	n.content["rich_text"] = []any{textItem(text)}
	now := s.stamp()
	n.edited, n.editedBy = now, PersonID
	if p := s.pageOf(n); p != nil {
		p.edited, p.editedBy = now, PersonID
	}
	return nil
}
