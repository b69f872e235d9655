package graph

import "time"

// AddPage creates a page titled title at the end of section sectionID at
// level 0, created and modified now, as someone writing a new page in
// OneNote (AddPageAt with a zero Place). Its HTML is a small page with
// body as its one paragraph. It returns the new page's id. The section's
// lastModifiedDateTime moves to now (reference fact 23, [M1]).
func (s *Server) AddPage(sectionID, title, body string) (string, error) {
	return s.AddPageAt(sectionID, title, body, Place{})
}

// ShiftTimestamp moves page id's lastModifiedDateTime by d (whole
// seconds) and changes nothing else: its content, title and id stay, as
// the +1 s wobble seen once on every page of a real section with no edit
// (reference fact 24, [M1]).
func (s *Server) ShiftTimestamp(id string, d time.Duration) error {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	_, ref, err := s.livePageLocked(id, "shift the timestamp of")
	if err != nil {
		return err
	}
	p := ref.page
	p.LastModifiedDateTime = p.LastModifiedDateTime.Add(d.Truncate(time.Second))
	rollUp(ref.section.section, p.LastModifiedDateTime)
	return nil
}
