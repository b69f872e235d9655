package notion

// POST /v1/databases, GET and PATCH /v1/databases/{id}. Handlers run with
// s.mu held.

// createDatabase makes a database and its first data source: its schema
// comes from "properties" on 2022-06-28 and from
// "initial_data_source.properties" on newer versions, which refuse the
// former (notion-reality #9). It also gets a default table view (dbviews.go).
func (s *Server) createDatabase(c *call) (any, error) {
	newer := dataSources(c.version())
	schemaKey := "properties"
	if newer {
		schemaKey = "initial_data_source"
	}
	if err := allowKeys("body", c.body, "parent", "title", "description", schemaKey, "icon", "cover", "is_inline"); err != nil {
		return nil, err
	}
	parent, _, err := s.parentOf(c.body["parent"], false, c.version())
	if err != nil {
		return nil, err
	}
	v := s.newValidator()
	title, err := v.optionalRichText("body.title", c.body["title"])
	if err != nil {
		return nil, err
	}
	description, err := v.optionalRichText("body.description", c.body["description"])
	if err != nil {
		return nil, err
	}
	var sc *schema
	if newer {
		sc, err = s.initialSchema(c.body["initial_data_source"])
	} else {
		sc, err = s.newSchema(c.body["properties"])
	}
	if err != nil {
		return nil, err
	}
	icon, cover, err := v.pageIcons(c.body)
	if err != nil {
		return nil, err
	}
	if err := v.finish(1); err != nil {
		return nil, err
	}
	v.commit()
	db := s.newNode(kindDatabase, "child_database", parentRef{typ: parentPage, id: parent.id})
	db.title, db.description, db.icon, db.cover = title, description, icon, cover
	s.attachUploadsOf(map[string]any{"icon": icon}, "")
	s.attachUploadsOf(map[string]any{"icon": cover}, "")
	s.link(db)
	ds := s.newDataSource(db, clone(title).([]any), sc)
	s.defaultView(db, ds)
	return s.renderDatabase(c.base, db), nil
}

// initialSchema reads initial_data_source: without it (or its
// properties), the data source gets one title property "Name" (choice: a
// database always has a title property).
func (s *Server) initialSchema(raw any) (*schema, error) {
	if raw == nil {
		return s.newSchema(map[string]any{"Name": map[string]any{"title": map[string]any{}}})
	}
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType("body.initial_data_source", "an object", raw)
	}
	if err := allowKeys("body.initial_data_source", m, "properties"); err != nil {
		return nil, err
	}
	if m["properties"] == nil {
		return s.initialSchema(nil)
	}
	return s.newSchema(m["properties"])
}

func (s *Server) retrieveDatabase(c *call) (any, error) {
	db, err := s.findDatabase(c.pathID())
	if err != nil {
		return nil, err
	}
	if !dataSources(c.version()) {
		if _, err := s.soleSource(db); err != nil {
			return nil, err
		}
	}
	return s.renderDatabase(c.base, db), nil
}

// updateDatabase changes the title, description, icon and cover, trashes
// or restores; on 2022-06-28 it also adds, changes, renames (via "name")
// or removes (null) properties of the database's one data source (newer
// versions do that on the data source).
func (s *Server) updateDatabase(c *call) (any, error) {
	db, err := s.findDatabase(c.pathID())
	if err != nil {
		return nil, err
	}
	newer := dataSources(c.version())
	keys := []string{"title", "description", "archived", "in_trash", "icon", "cover"}
	var ds *node
	if !newer {
		keys = append(keys, "properties")
		if ds, err = s.soleSource(db); err != nil {
			return nil, err
		}
	}
	if err := allowKeys("body", c.body, keys...); err != nil {
		return nil, err
	}
	archived, hasArchived, err := archivedFlag(c.body, c.version())
	if err != nil {
		return nil, err
	}
	if db.archived && !(hasArchived && !archived) {
		return nil, archivedError()
	}
	v := s.newValidator()
	title := db.title
	if raw := c.body["title"]; raw != nil {
		if title, err = v.richText("body.title", raw); err != nil {
			return nil, err
		}
	}
	description := db.description
	if raw := c.body["description"]; raw != nil {
		if description, err = v.richText("body.description", raw); err != nil {
			return nil, err
		}
	}
	var sc *schema
	if ds != nil {
		if sc, err = s.patchSchema(ds.schema, c.body["properties"]); err != nil {
			return nil, err
		}
	}
	icon, cover, err := v.pageIcons(c.body)
	if err != nil {
		return nil, err
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	db.title, db.description = title, description
	if _, ok := c.body["icon"]; ok {
		db.icon = icon
		s.attachUploadsOf(map[string]any{"icon": icon}, "")
	}
	if _, ok := c.body["cover"]; ok {
		db.cover = cover
		s.attachUploadsOf(map[string]any{"icon": cover}, "")
	}
	if hasArchived {
		db.archived = archived
	}
	db.edited = s.stamp()
	if ds != nil {
		if _, ok := c.body["title"]; ok && len(db.sources) == 1 {
			// One data source shares its database's title (choice).
			ds.title = clone(title).([]any)
		}
		ds.schema = sc
		ds.edited = db.edited
		s.renameRowProperties(ds)
	}
	return s.renderDatabase(c.base, db), nil
}

// renameRowProperties re-keys row property values by the current property
// names (matching by property ID).
func (s *Server) renameRowProperties(db *node) {
	for _, id := range db.rows {
		row := s.nodes[id]
		byID := map[string]any{}
		for _, v := range row.properties {
			if m, ok := asObject(v); ok {
				pid, _ := asString(m["id"])
				byID[pid] = v
			}
		}
		props := map[string]any{}
		for _, p := range db.schema.props {
			if v, ok := byID[p.id]; ok {
				if m, _ := asObject(v); m["type"] == p.typ {
					props[p.name] = v
					continue
				}
			}
			if !readOnlyProperties[p.typ] {
				val := map[string]any{"id": p.id, "type": p.typ, p.typ: emptyValue(p.typ)}
				if p.typ == "relation" {
					val["has_more"] = false
				}
				props[p.name] = val
			}
		}
		row.properties = props
	}
}
