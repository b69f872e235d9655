package notion

import "slices"

// POST /v1/databases, GET and PATCH /v1/databases/{id}. Handlers run with
// s.mu held.

func (s *Server) createDatabase(c *call) (any, error) {
	if err := allowKeys("body", c.body, "parent", "title", "description", "properties", "icon", "cover", "is_inline"); err != nil {
		return nil, err
	}
	parent, _, err := s.parentOf(c.body["parent"], false)
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
	sc, err := s.newSchema(c.body["properties"])
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
	db.title, db.description, db.schema, db.icon, db.cover = title, description, sc, icon, cover
	s.attachUploadsOf(map[string]any{"icon": icon}, "")
	s.attachUploadsOf(map[string]any{"icon": cover}, "")
	s.link(db)
	return s.renderDatabase(c.base, db), nil
}

func (s *Server) retrieveDatabase(c *call) (any, error) {
	db, err := s.findDatabase(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderDatabase(c.base, db), nil
}

// updateDatabase changes the title, adds, changes, renames (via "name")
// or removes (null) properties, and archives.
func (s *Server) updateDatabase(c *call) (any, error) {
	db, err := s.findDatabase(c.pathID())
	if err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "title", "description", "properties", "archived", "in_trash", "icon", "cover"); err != nil {
		return nil, err
	}
	archived, hasArchived, err := archivedFlag(c.body)
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
	props := slices.Clone(db.schema.props)
	if raw, ok := c.body["properties"]; ok && raw != nil {
		m, ok := asObject(raw)
		if !ok {
			return nil, wrongType("body.properties", "an object", raw)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			old := (&schema{props: props}).byKey(k)
			if m[k] == nil {
				if old == nil {
					return nil, validationError("%s is not a property that exists.", k)
				}
				if old.typ == "title" {
					return nil, validationError("Cannot delete the title property.")
				}
				props = slices.DeleteFunc(props, func(p *propSchema) bool { return p == old })
				continue
			}
			pm, _ := asObject(m[k])
			if old != nil && propertyTypeOf(pm) == "" {
				// A rename only: {"name": "New name"}.
				if n, ok := asString(pm["name"]); ok && n != "" {
					renamed := *old
					renamed.name = n
					props[slices.Index(props, old)] = &renamed
					continue
				}
			}
			p, err := s.schemaProperty("body.properties."+k, k, m[k])
			if err != nil {
				return nil, err
			}
			if old != nil {
				p.id = old.id
				if old.typ == "title" && p.typ != "title" {
					return nil, validationError("Cannot change the type of the title property.")
				}
				props[slices.Index(props, old)] = p
				continue
			}
			if p.typ == "title" {
				return nil, validationError("A database can only have one title property.")
			}
			props = append(props, p)
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
	db.schema = &schema{props: props}
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
	s.renameRowProperties(db)
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
