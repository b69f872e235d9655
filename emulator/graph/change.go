package graph

import (
	"fmt"
	"html"
	"time"
)

// AddPage creates a page titled title at the end of section sectionID,
// created and modified now, as someone writing a new page in OneNote.
// Its HTML is a small page with body as its one paragraph. It returns the
// new page's id. The section's lastModifiedDateTime moves to now
// (reference fact 23, [M1]).
func (s *Server) AddPage(sectionID, title, body string) (string, error) {
	s.dataMu.Lock()
	defer s.dataMu.Unlock()
	var ud *userData
	var sr *sectionRef
	for _, u := range s.users {
		if r := u.sections[sectionID]; r != nil {
			ud, sr = u, r
			break
		}
	}
	if sr == nil {
		return "", fmt.Errorf("graph emulator: add a page to section %q: %w", sectionID, errNotFound)
	}
	sec := sr.section
	n := len(sec.Pages)
	now := s.nowSecond()
	p := &Page{Title: title, CreatedDateTime: now, LastModifiedDateTime: now, Order: n,
		ID: pageID(hexID(32, "added", sectionID, fmt.Sprint(n), title), 1+n, ownerHex(ud.name), sec.GUID),
		HTML: fmt.Sprintf("<html><head><title>%s</title><meta name=\"created\" content=\"%s\" /></head>"+
			"<body><div><p>%s</p></div></body></html>", html.EscapeString(title), now.Format(time.RFC3339), html.EscapeString(body))}
	p.GUID = guidOf("page", p.ID)
	sec.Pages = append(sec.Pages, p)
	pr := &pageRef{page: p, section: sr}
	ud.pages[p.ID] = pr
	s.registerResources(ud, pr)
	rollUp(sec, now)
	return p.ID, nil
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
