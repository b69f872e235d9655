package notion

import "slices"

// Data sources (Notion-Version 2025-09-03 and later): a database is a
// container of one or more data sources, each with its schema and rows.
// On 2022-06-28 a database stands for its one data source, and requests
// that need it fail once a person has added a second (upgrade guide
// 2025-09-03). Handlers run with s.mu held.

// newDataSource creates a data source of database db.
func (s *Server) newDataSource(db *node, title []any, sc *schema) *node {
	// A data source is not a block: it does not count against the block
	// limit (choice). Its ID is derived from its database's.
	now := s.stamp()
	s.seq++
	ds := &node{id: derivedUUID("data_source", db.id, len(db.sources)), kind: kindDataSource,
		parent: parentRef{typ: parentDatabase, id: db.id}, seq: s.seq, created: now, edited: now}
	s.nodes[ds.id] = ds
	ds.title, ds.schema = title, sc
	s.link(ds)
	return ds
}

// liveSources are database db's data sources not in the trash.
func (s *Server) liveSources(db *node) []*node {
	out := []*node{}
	for _, id := range db.sources {
		if ds := s.nodes[id]; ds != nil && !ds.archived {
			out = append(out, ds)
		}
	}
	return out
}

// errMultiSource answers a 2022-06-28 request that needs a database's one
// data source when it has several. Notion documents that the request
// fails, not its answer: the status and message are a choice.
func errMultiSource(db *node) *apiError {
	return validationError("Databases with multiple data sources are not supported in this API version. "+
		"Database %s has several data sources: use Notion-Version 2025-09-03 or later and address a data source.", db.id)
}

// soleSource is the data source a database ID stands for on 2022-06-28.
func (s *Server) soleSource(db *node) (*node, error) {
	src := s.liveSources(db)
	switch len(src) {
	case 1:
		return src[0], nil
	case 0:
		return nil, notFound("data_source", db.id)
	}
	return nil, errMultiSource(db)
}

// newerOnly refuses a data-source endpoint on 2022-06-28, which does not
// have it (choice: invalid_request_url, like any unknown route).
func newerOnly(c *call) error {
	if !dataSources(c.version()) {
		return errInvalidURL
	}
	return nil
}

func (s *Server) findDataSource(raw string) (*node, error) {
	return s.lookup(raw, "data_source", kindDataSource)
}

// renderSchema is a schema's properties in response shape: relations
// name their target's data source too on 2025-09-03 and later.
func (s *Server) renderSchema(sc *schema) map[string]any {
	out := sc.render()
	if sc == nil || !dataSources(s.speaks()) {
		return out
	}
	for _, p := range sc.props {
		if p.typ != "relation" {
			continue
		}
		rel := out[p.name].(map[string]any)["relation"].(map[string]any)
		if db := s.nodes[asStringOr(rel["database_id"])]; db != nil && len(db.sources) > 0 {
			rel["data_source_id"] = db.sources[0]
		}
	}
	return out
}

func asStringOr(v any) string { str, _ := asString(v); return str }

func (s *Server) renderDataSource(base string, ds *node) map[string]any {
	db := s.nodes[ds.parent.id]
	return s.trashFlags(map[string]any{
		"object":           "data_source",
		"id":               ds.id,
		"created_time":     timestamp(ds.created),
		"last_edited_time": timestamp(ds.edited),
		"created_by":       s.userRef(),
		"last_edited_by":   s.userRef(),
		"title":            clone(ds.title),
		"description":      descriptionOf(ds),
		"icon":             s.renderIcon(base, db.icon),
		"cover":            s.renderIcon(base, db.cover),
		"properties":       s.renderSchema(ds.schema),
		"parent":           map[string]any{"type": parentDatabase, parentDatabase: db.id},
		"database_parent":  parentJSON(db.parent),
		"url":              "https://www.notion.so/" + compactID(ds.id),
		"public_url":       nil,
		"is_inline":        false,
	}, ds.archived)
}

// rowParentJSON is a node's parent in response shape: a row's parent is
// its database on 2022-06-28, its data source (and database) on newer
// versions.
func (s *Server) rowParentJSON(p parentRef) map[string]any {
	if p.typ != parentDataSource {
		return parentJSON(p)
	}
	db := ""
	if ds := s.nodes[p.id]; ds != nil {
		db = ds.parent.id
	}
	if !dataSources(s.speaks()) {
		return map[string]any{"type": parentDatabase, parentDatabase: db}
	}
	return map[string]any{"type": parentDataSource, parentDataSource: p.id, parentDatabase: db}
}

// POST /v1/data_sources: a further data source in a database.
func (s *Server) createDataSource(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "parent", "properties", "title"); err != nil {
		return nil, err
	}
	m, ok := asObject(c.body["parent"])
	if !ok {
		return nil, undefined("body.parent")
	}
	if t, _ := asString(m["type"]); t != "" && t != parentDatabase {
		return nil, bodyError("body.parent.type", "should be `database_id`, instead was `%s`", brief(m["type"]))
	}
	db, err := s.findDatabase(asStringOr(m[parentDatabase]))
	if err != nil {
		return nil, err
	}
	if s.inTrash(db) {
		return nil, archivedError()
	}
	v := s.newValidator()
	title, err := v.optionalRichText("body.title", c.body["title"])
	if err != nil {
		return nil, err
	}
	sc, err := s.newSchema(c.body["properties"])
	if err != nil {
		return nil, err
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	ds := s.newDataSource(db, title, sc)
	db.edited = s.stamp()
	return s.renderDataSource(c.base, ds), nil
}

func (s *Server) retrieveDataSource(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	ds, err := s.findDataSource(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderDataSource(c.base, ds), nil
}

// updateDataSource changes a data source's title and properties, and
// trashes or restores it.
func (s *Server) updateDataSource(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	ds, err := s.findDataSource(c.pathID())
	if err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "title", "properties", "in_trash", "archived"); err != nil {
		return nil, err
	}
	trashed, hasTrashed, err := archivedFlag(c.body, c.version())
	if err != nil {
		return nil, err
	}
	if ds.archived && !(hasTrashed && !trashed) {
		return nil, archivedError()
	}
	v := s.newValidator()
	title := ds.title
	if raw := c.body["title"]; raw != nil {
		if title, err = v.richText("body.title", raw); err != nil {
			return nil, err
		}
	}
	props, err := s.patchSchema(ds.schema, c.body["properties"])
	if err != nil {
		return nil, err
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	ds.title, ds.schema = title, props
	if hasTrashed {
		ds.archived = trashed
	}
	ds.edited = s.stamp()
	s.renameRowProperties(ds)
	return s.renderDataSource(c.base, ds), nil
}

// POST /v1/data_sources/{id}/query. On 2026-03-11 in_trash (and archived)
// in the body are refused (notion-reality #17).
func (s *Server) queryDataSource(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	ds, err := s.findDataSource(c.pathID())
	if err != nil {
		return nil, err
	}
	if inTrashOnly(c.version()) {
		if err := refuseKeys("body", c.body, "in_trash", "archived"); err != nil {
			return nil, err
		}
	}
	return s.queryRows(c, ds)
}

// patchSchema applies a database or data source update's "properties":
// add, change, rename (via "name") or remove (null) properties. It returns
// the new schema and leaves sc alone.
func (s *Server) patchSchema(sc *schema, raw any) (*schema, error) {
	props := slices.Clone(sc.props)
	if raw == nil {
		return &schema{props: props}, nil
	}
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
	return &schema{props: props}, nil
}
