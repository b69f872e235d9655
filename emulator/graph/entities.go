package graph

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// graphTime formats t like Graph: UTC, whole seconds, no fraction
// ("2026-08-19T14:38:36Z", reference fact 24, [M1]).
func graphTime(t time.Time) string {
	return t.UTC().Truncate(time.Second).Format("2006-01-02T15:04:05Z")
}

func (s *Server) clientBase(ud *userData, nb *Notebook) string {
	return "https://d.docs.live.net/" + strings.ToLower(ownerHex(ud.name)) + "/Documents/" + url.PathEscape(nb.DisplayName)
}

func (s *Server) webURL(ud *userData, id, name string) string {
	cid := strings.ToLower(ownerHex(ud.name))
	return "https://onedrive.live.com/redir.aspx?cid=" + cid + "&page=edit&resid=" + url.QueryEscape(id) + "&wd=" + url.QueryEscape("target("+name+")")
}

func links(client, web string) map[string]any {
	return map[string]any{
		"oneNoteClientUrl": map[string]any{"href": client},
		"oneNoteWebUrl":    map[string]any{"href": web},
	}
}

func (s *Server) identitySet(ud *userData) map[string]any {
	return map[string]any{"user": map[string]any{"id": ud.guid, "displayName": ud.name}}
}

func (s *Server) notebookJSON(ar *apiRequest, nb *Notebook) map[string]any {
	ud := ar.owner
	self := ar.abs("/notebooks/" + nb.ID)
	m := map[string]any{
		"id":                   nb.ID,
		"self":                 self,
		"displayName":          nb.DisplayName,
		"createdDateTime":      graphTime(nb.CreatedDateTime),
		"lastModifiedDateTime": graphTime(nb.LastModifiedDateTime),
		"isDefault":            false,
		"isShared":             false,
		"userRole":             "Owner",
		"sectionsUrl":          self + "/sections",
		"sectionGroupsUrl":     self + "/sectionGroups",
		"createdBy":            s.identitySet(ud),
		"lastModifiedBy":       s.identitySet(ud),
		"links":                links("onenote:"+s.clientBase(ud, nb), s.webURL(ud, nb.ID, nb.DisplayName)),
	}
	s.expandContainer(ar, m, nb.Sections, nb.SectionGroups, ar.expand)
	return m
}

func (s *Server) groupJSON(ar *apiRequest, g *SectionGroup) map[string]any {
	return s.groupJSONExpanded(ar, g, ar.expand)
}

func (s *Server) groupJSONExpanded(ar *apiRequest, g *SectionGroup, expand []expandItem) map[string]any {
	ud := ar.owner
	self := ar.abs("/sectionGroups/" + g.ID)
	m := map[string]any{
		"id":                   g.ID,
		"self":                 self,
		"displayName":          g.DisplayName,
		"createdDateTime":      graphTime(g.CreatedDateTime),
		"lastModifiedDateTime": graphTime(g.LastModifiedDateTime),
		"sectionsUrl":          self + "/sections",
		"sectionGroupsUrl":     self + "/sectionGroups",
		"createdBy":            s.identitySet(ud),
		"lastModifiedBy":       s.identitySet(ud),
	}
	if ref := ud.groups[g.ID]; ref != nil {
		m["parentNotebook"] = s.parentRef(ar, "notebooks", ref.notebook.ID, ref.notebook.DisplayName)
		m["parentSectionGroup"] = nil
		if ref.parent != nil {
			m["parentSectionGroup"] = s.parentRef(ar, "sectionGroups", ref.parent.ID, ref.parent.DisplayName)
		}
	}
	s.expandContainer(ar, m, g.Sections, g.SectionGroups, expand)
	return m
}

func (s *Server) parentRef(ar *apiRequest, kind, id, name string) map[string]any {
	return map[string]any{"id": id, "displayName": name, "self": ar.abs("/" + kind + "/" + id)}
}

func (s *Server) sectionJSON(ar *apiRequest, sec *Section) map[string]any {
	return s.sectionJSONExpanded(ar, sec, ar.expand)
}

func (s *Server) sectionJSONExpanded(ar *apiRequest, sec *Section, expand []expandItem) map[string]any {
	ud := ar.owner
	self := ar.abs("/sections/" + sec.ID)
	m := map[string]any{
		"id":                   sec.ID,
		"self":                 self,
		"displayName":          sec.DisplayName,
		"createdDateTime":      graphTime(sec.CreatedDateTime),
		"lastModifiedDateTime": graphTime(sec.LastModifiedDateTime),
		"isDefault":            false,
		"pagesUrl":             self + "/pages",
		"createdBy":            s.identitySet(ud),
		"lastModifiedBy":       s.identitySet(ud),
	}
	if ref := ud.sections[sec.ID]; ref != nil {
		m["links"] = links("onenote:"+s.clientBase(ud, ref.notebook)+"/"+url.PathEscape(sec.DisplayName)+".one#section-id={"+sec.GUID+"}&end", s.webURL(ud, sec.ID, sec.DisplayName))
		m["parentNotebook"] = s.parentRef(ar, "notebooks", ref.notebook.ID, ref.notebook.DisplayName)
		m["parentSectionGroup"] = nil
		if ref.parent != nil {
			m["parentSectionGroup"] = s.parentRef(ar, "sectionGroups", ref.parent.ID, ref.parent.DisplayName)
		}
	}
	expandParents(m, expand)
	return m
}

func (s *Server) sectionsJSON(ar *apiRequest, secs []*Section) []map[string]any {
	out := make([]map[string]any, 0, len(secs))
	for _, sec := range secs {
		out = append(out, s.sectionJSON(ar, sec))
	}
	return out
}

func (s *Server) groupsJSON(ar *apiRequest, groups []*SectionGroup) []map[string]any {
	out := make([]map[string]any, 0, len(groups))
	for _, g := range groups {
		out = append(out, s.groupJSON(ar, g))
	}
	return out
}

// pageJSON is the onenotePage metadata of ref's page; level and order only
// with pagelevel=true.
func (s *Server) pageJSON(ar *apiRequest, ref *pageRef, pageLevel bool) map[string]any {
	ud := ar.owner
	p, sec := ref.page, ref.section.section
	self := ar.abs("/pages/" + p.ID)
	m := map[string]any{
		"id":                   p.ID,
		"self":                 self,
		"title":                p.Title,
		"createdByAppId":       "",
		"createdDateTime":      graphTime(p.CreatedDateTime),
		"lastModifiedDateTime": graphTime(p.LastModifiedDateTime),
		"contentUrl":           self + "/content",
		"links":                links(s.pageClientURL(ud, ref.section, p), s.webURL(ud, p.ID, p.Title)),
		"parentSection":        s.parentRef(ar, "sections", sec.ID, sec.DisplayName),
	}
	// Pages come with parentSection; parentNotebook only when expanded.
	if slices.Contains(expandNames(ar.expand), "parentNotebook") {
		m["parentNotebook"] = s.parentRef(ar, "notebooks", ref.section.notebook.ID, ref.section.notebook.DisplayName)
	}
	expandParents(m, ar.expand)
	if pageLevel {
		m["level"] = p.Level
		m["order"] = p.Order
	}
	return m
}

// pageClientURL is the onenote: URL of page p, carrying its page-id and
// section-id GUIDs; internal links in page HTML use the same form.
func (s *Server) pageClientURL(ud *userData, sr *sectionRef, p *Page) string {
	return fmt.Sprintf("onenote:%s/%s.one#%s&section-id={%s}&page-id={%s}&end",
		s.clientBase(ud, sr.notebook), url.PathEscape(sr.section.DisplayName), url.PathEscape(p.Title), sr.section.GUID, p.GUID)
}

func (s *Server) listNotebooks(ar *apiRequest) response {
	items := make([]map[string]any, 0, len(ar.owner.notebooks))
	for _, nb := range ar.owner.notebooks {
		if s.libraryLimited(ar.owner.name, nb.ID) {
			return s.libraryLimit(ar)
		}
		items = append(items, s.notebookJSON(ar, nb))
	}
	return s.collection(ar, "notebooks", items)
}
