package notion

import "slices"

// POST /v1/pages/{id}/move. Handlers run with s.mu held.

// movePage moves a page to a new parent, as the "Move a page" endpoint
// does: the page keeps its ID and its content, so mentions of it and links
// to it still lead to it. The documented parents are page_id and
// data_source_id; the emulator speaks 2022-06-28, where a database has one
// data source, and takes the database's ID as its data source's, and
// database_id too (both assumptions: see the README). A row moved into a
// database keeps the values of the properties the target's schema has by
// the same name and type; its relations are emptied (they named rows of
// the old database), and the rest take their defaults. A page moved under
// a page keeps only its title.
func (s *Server) movePage(c *call) (any, error) {
	n, err := s.findPage(c.pathID())
	if err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "parent"); err != nil {
		return nil, err
	}
	if n.archived || s.inTrash(n) {
		return nil, archivedError()
	}
	m, ok := asObject(c.body["parent"])
	if !ok {
		return nil, undefined("body.parent")
	}
	typ, _ := asString(m["type"])
	if typ == "" {
		for _, k := range []string{parentPage, parentDataSource, parentDatabase} {
			if _, ok := m[k]; ok {
				typ = k
			}
		}
	}
	raw := map[string]any{"type": typ}
	switch typ {
	case parentPage, parentDatabase, parentDataSource:
		raw[typ] = m[typ]
	default:
		return nil, bodyError("body.parent.type", "should be `page_id` or `data_source_id`, instead was `%s`", brief(m["type"]))
	}
	// The endpoint documents data_source_id; on 2022-06-28 it is taken as
	// a database's one data source's ID too (see the README).
	ver := c.version()
	if typ == parentDataSource && !dataSources(ver) {
		ver = Version20250903
		if id, ok := normalizeID(asStringOr(m[typ])); ok && s.nodes[id] != nil && s.nodes[id].kind == kindDatabase {
			raw = map[string]any{"type": parentDatabase, parentDatabase: id}
		}
	}
	parent, ptype, err := s.parentOf(raw, true, ver)
	if err != nil {
		return nil, err
	}
	if parent.id == n.id {
		return nil, validationError("body failed validation: a page cannot be moved under itself.")
	}
	props := map[string]any{}
	if ptype == parentDataSource {
		for _, p := range parent.schema.props {
			old, ok := n.properties[p.name].(map[string]any)
			if !ok || old["type"] != p.typ || readOnlyProperties[p.typ] {
				continue
			}
			val := map[string]any{}
			for k, v := range old {
				val[k] = v
			}
			val["id"] = p.id
			if p.typ == "relation" {
				val["relation"], val["has_more"] = []any{}, false
			}
			props[p.name] = val
		}
		fillDefaults(props, parent.schema)
	} else {
		props = titleProperties(titleText(n.properties))
	}
	s.unlink(n)
	n.parent = parentRef{typ: ptype, id: parent.id}
	n.properties = props
	n.edited = s.stamp()
	s.link(n)
	return s.renderPage(c.base, n), nil
}

// unlink takes n out of its parent's children (or rows).
func (s *Server) unlink(n *node) {
	p := s.nodes[n.parent.id]
	if p == nil {
		return
	}
	drop := func(ids []string) []string { return slices.DeleteFunc(ids, func(id string) bool { return id == n.id }) }
	if n.parent.typ == parentDataSource {
		p.rows = drop(p.rows)
		return
	}
	p.children = drop(p.children)
}

// titleText is the plain text of a page's title property, whatever its
// name.
func titleText(props map[string]any) string {
	for _, v := range props {
		p, ok := v.(map[string]any)
		if !ok || p["type"] != "title" {
			continue
		}
		items, _ := p["title"].([]any)
		out := ""
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				if s, ok := m["plain_text"].(string); ok {
					out += s
				}
			}
		}
		return out
	}
	return ""
}
