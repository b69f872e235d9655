package notion

// POST /v1/pages, GET and PATCH /v1/pages/{id}. Handlers run with s.mu held.

// parentOf validates body.parent and returns the parent node. With
// allowDatabase, a row's parent is accepted: data_source_id (2025-09-03
// on) or database_id, which names the database's one data source (refused
// once it has several); the node returned is then the data source and the
// type parentDataSource.
func (s *Server) parentOf(raw any, allowDatabase bool, ver string) (*node, string, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, "", undefined("body.parent")
	}
	typ, _ := asString(m["type"])
	if typ == "" {
		for _, k := range []string{parentPage, parentDatabase, parentDataSource, parentWorkspace} {
			if _, ok := m[k]; ok {
				typ = k
			}
		}
	}
	switch {
	case typ == parentPage || (typ == parentDatabase && allowDatabase):
	case typ == parentDataSource && allowDatabase && dataSources(ver):
	case typ == parentWorkspace:
		return nil, "", validationError("body failed validation: body.parent.workspace is only allowed for public integrations; internal integrations create pages under a page or database shared with them.")
	default:
		want := "`page_id`"
		switch {
		case allowDatabase && dataSources(ver):
			want = "`page_id`, `data_source_id` or `database_id`"
		case allowDatabase:
			want = "`page_id` or `database_id`"
		}
		return nil, "", bodyError("body.parent.type", "should be %s, instead was `%s`", want, brief(m["type"]))
	}
	rawID, _ := asString(m[typ])
	id, ok := normalizeID(rawID)
	if !ok {
		return nil, "", bodyError("body.parent."+typ, "should be a valid uuid, instead was `%s`", brief(m[typ]))
	}
	kind, name := kindPage, "page"
	switch typ {
	case parentDatabase:
		kind, name = kindDatabase, "database"
	case parentDataSource:
		kind, name = kindDataSource, "data_source"
	}
	n := s.nodes[id]
	if n == nil || n.kind != kind || !s.visible(n) {
		return nil, "", notFound(name, id)
	}
	if s.inTrash(n) {
		return nil, "", archivedError()
	}
	if typ == parentDatabase {
		ds, err := s.soleSource(n)
		if err != nil {
			return nil, "", err
		}
		return ds, parentDataSource, nil
	}
	return n, typ, nil
}

func (s *Server) createPage(c *call) (any, error) {
	if err := allowKeys("body", c.body, "parent", "properties", "children", "icon", "cover"); err != nil {
		return nil, err
	}
	parent, ptype, err := s.parentOf(c.body["parent"], true, c.version())
	if err != nil {
		return nil, err
	}
	var sc *schema
	if ptype == parentDataSource {
		sc = parent.schema
	}
	v := s.newValidator()
	props, err := v.pageProperties(c.body["properties"], sc)
	if err != nil {
		return nil, err
	}
	if sc != nil {
		fillDefaults(props, sc)
	} else if _, ok := props["title"]; !ok {
		props = titleProperties("")
	}
	icon, cover, err := v.pageIcons(c.body)
	if err != nil {
		return nil, err
	}
	var kids []*newBlock
	if raw, ok := c.body["children"]; ok && raw != nil {
		if kids, err = v.children("body.children", raw, 0, ""); err != nil {
			return nil, err
		}
	}
	if err := v.finish(1); err != nil {
		return nil, err
	}
	v.commit()
	page := s.newPage(parentRef{typ: ptype, id: parent.id}, props)
	s.attachPropertyFiles(props)
	page.icon, page.cover = icon, cover
	s.attachUploadsOf(map[string]any{"icon": icon}, "")
	s.attachUploadsOf(map[string]any{"icon": cover}, "")
	if pc, ok := s.planPartial(c, page, kids); ok {
		s.recordPartial(pc, page, s.insertBlocks(page, kids[:pc.keep], ""))
	} else {
		s.insertBlocks(page, kids, "")
	}
	return s.renderPage(c.base, page), nil
}

// pageIcons validates the optional icon and cover of a page or database.
func (v *blockValidator) pageIcons(body map[string]any) (icon, cover map[string]any, err error) {
	if raw := body["icon"]; raw != nil {
		if icon, err = v.icon("body.icon", raw); err != nil {
			return nil, nil, err
		}
	}
	if raw := body["cover"]; raw != nil {
		if cover, err = v.icon("body.cover", raw); err != nil {
			return nil, nil, err
		}
		if t := cover["type"]; t != "external" && t != "file_upload" {
			return nil, nil, bodyError("body.cover.type", "should be `external` or `file_upload`, instead was `%s`", brief(t))
		}
	}
	return icon, cover, nil
}

func (s *Server) retrievePage(c *call) (any, error) {
	n, err := s.findPage(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderPage(c.base, n), nil
}

func (s *Server) updatePage(c *call) (any, error) {
	n, err := s.findPage(c.pathID())
	if err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "properties", "archived", "in_trash", "icon", "cover"); err != nil {
		return nil, err
	}
	archived, hasArchived, err := archivedFlag(c.body, c.version())
	if err != nil {
		return nil, err
	}
	if n.archived && !(hasArchived && !archived) {
		return nil, archivedError()
	}
	var sc *schema
	if n.parent.typ == parentDataSource {
		sc = s.nodes[n.parent.id].schema
	}
	v := s.newValidator()
	props, err := v.pageProperties(c.body["properties"], sc)
	if err != nil {
		return nil, err
	}
	icon, cover, err := v.pageIcons(c.body)
	if err != nil {
		return nil, err
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	for k, p := range props {
		n.properties[k] = p
	}
	s.attachPropertyFiles(props)
	if _, ok := c.body["icon"]; ok {
		n.icon = icon
		s.attachUploadsOf(map[string]any{"icon": icon}, "")
	}
	if _, ok := c.body["cover"]; ok {
		n.cover = cover
		s.attachUploadsOf(map[string]any{"icon": cover}, "")
	}
	if hasArchived {
		n.archived = archived
	}
	n.edited, n.editedBy = s.stamp(), ""
	return s.renderPage(c.base, n), nil
}

// archivedFlag reads "archived" or "in_trash"; version 2026-03-11 knows
// only in_trash and refuses archived.
func archivedFlag(body map[string]any, ver string) (value, present bool, err error) {
	if inTrashOnly(ver) {
		if err := refuseKeys("body", body, "archived"); err != nil {
			return false, false, err
		}
	}
	for _, k := range []string{"archived", "in_trash"} {
		if x, ok := body[k]; ok {
			b, ok := asBool(x)
			if !ok {
				return false, false, wrongType("body."+k, "a boolean", x)
			}
			return b, true, nil
		}
	}
	return false, false, nil
}
