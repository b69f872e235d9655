package notion

import (
	"fmt"
	"slices"
	"time"
)

// The Views API (2025-09-03 and later; docs: create-view, update-view,
// guides/data-apis/working-with-views): a database's views, each showing
// one data source with a filter, sorts and, for tables, which properties
// are visible in which order. The emulator keeps what a view decides
// (filter, sorts, table properties) and shows a database's first view in
// its HTML view. Handlers run with s.mu held.

// viewTypes are the documented view types (SDK ViewTypeRequest).
var viewTypes = setOf("table", "board", "list", "calendar", "timeline", "gallery", "form", "chart", "map", "dashboard")

// dbView is one view of a database.
type dbView struct {
	id, db, ds, name, typ string
	created, edited       time.Time
	filter                any
	// sorts hold {property: <property ID>, direction} or {timestamp,
	// direction}; they are rendered with the property's current name.
	sorts []map[string]any
	// config is a table view's configuration: nil shows every property.
	config *tableConfig
}

// tableConfig is a table view's configuration.
type tableConfig struct {
	props []viewProp // in column order
}

// viewProp is one property's place in a table view.
type viewProp struct {
	id      string
	visible bool
	width   any // number or nil
}

// defaultView gives a new database the table view Notion shows for it
// ("Default view", every property, no sort). Notion's app always shows a
// database through a view; that a database made by the API has one is an
// assumption (not documented).
func (s *Server) defaultView(db, ds *node) {
	s.addView(&dbView{db: db.id, ds: ds.id, name: "Default view", typ: "table"}, db, "end", "")
}

func (s *Server) addView(v *dbView, db *node, where, after string) {
	if s.views == nil {
		s.views = map[string]*dbView{}
	}
	v.id = derivedUUID("view", db.id, len(s.views))
	v.created = s.stamp()
	v.edited = v.created
	s.views[v.id] = v
	switch where {
	case "start":
		db.views = slices.Insert(db.views, 0, v.id)
	case "after_view":
		db.views = slices.Insert(db.views, slices.Index(db.views, after)+1, v.id)
	default:
		db.views = append(db.views, v.id)
	}
}

func (s *Server) findView(raw string) (*dbView, *node, error) {
	id, err := pathID("view_id", raw)
	if err != nil {
		return nil, nil, err
	}
	v := s.views[id]
	if v == nil {
		return nil, nil, notFound("view", id)
	}
	db := s.nodes[v.db]
	if db == nil || !s.visible(db) {
		return nil, nil, notFound("view", id)
	}
	return v, db, nil
}

func (s *Server) renderView(v *dbView) map[string]any {
	out := map[string]any{
		"object":           "view",
		"id":               v.id,
		"parent":           map[string]any{"type": parentDatabase, parentDatabase: v.db},
		"name":             v.name,
		"type":             v.typ,
		"created_time":     timestamp(v.created),
		"last_edited_time": timestamp(v.edited),
		"url":              "https://www.notion.so/" + compactID(v.db) + "?v=" + compactID(v.id),
		"data_source_id":   v.ds,
		"filter":           clone(v.filter),
		"sorts":            nil,
		"configuration":    nil,
	}
	sc := s.viewSchema(v)
	if v.sorts != nil {
		sorts := []any{}
		for _, so := range v.sorts {
			r := map[string]any{"direction": so["direction"]}
			if id, ok := so["property"].(string); ok {
				r["property"] = id
				if p := sc.byKey(id); p != nil {
					r["property"] = p.name
				}
			} else {
				r["timestamp"] = so["timestamp"]
			}
			sorts = append(sorts, r)
		}
		out["sorts"] = sorts
	}
	if v.config != nil {
		props := []any{}
		for _, vp := range v.config.props {
			r := map[string]any{"property_id": vp.id, "visible": vp.visible}
			if p := sc.byKey(vp.id); p != nil {
				r["property_name"] = p.name
			}
			if vp.width != nil {
				r["width"] = vp.width
			}
			props = append(props, r)
		}
		out["configuration"] = map[string]any{"type": "table", "properties": props}
	}
	return out
}

// viewSchema is the schema of the data source view v shows.
func (s *Server) viewSchema(v *dbView) *schema {
	if ds := s.nodes[v.ds]; ds != nil && ds.schema != nil {
		return ds.schema
	}
	return &schema{}
}

// viewSorts validates a view's sorts against sc (property names or IDs,
// as in a query) and keeps property IDs.
func (s *Server) viewSorts(raw any, sc *schema) ([]map[string]any, error) {
	if raw == nil {
		return nil, nil
	}
	if _, err := s.compileSorts(raw, sc); err != nil {
		return nil, err
	}
	arr, _ := asArray(raw)
	out := []map[string]any{}
	for _, item := range arr {
		m, _ := asObject(item)
		so := map[string]any{"direction": m["direction"]}
		if ts, ok := asString(m["timestamp"]); ok {
			so["timestamp"] = ts
		} else {
			so["property"] = sc.byKey(asStringOr(m["property"])).id
		}
		out = append(out, so)
	}
	return out, nil
}

// viewConfig validates a view's configuration. Only table configurations
// are modelled: another type's is refused (choice).
func viewConfig(raw any, typ string, sc *schema) (*tableConfig, error) {
	if raw == nil {
		return nil, nil
	}
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType("body.configuration", "an object", raw)
	}
	if t, _ := asString(m["type"]); t != typ {
		return nil, bodyError("body.configuration.type", "should be `%s` (the view's type), instead was `%s`", typ, brief(m["type"]))
	}
	if typ != "table" {
		return nil, bodyError("body.configuration.type", "should be `table` (the emulator models table configurations only), instead was `%s`", brief(typ))
	}
	if err := allowKeys("body.configuration", m, "type", "properties", "wrap_cells", "frozen_column_index", "show_vertical_lines"); err != nil {
		return nil, err
	}
	cfg := &tableConfig{}
	arr, ok := asArray(m["properties"])
	if m["properties"] != nil && !ok {
		return nil, wrongType("body.configuration.properties", "an array", m["properties"])
	}
	seen := map[string]bool{}
	for i, item := range arr {
		path := fmt.Sprintf("body.configuration.properties[%d]", i)
		pm, ok := asObject(item)
		if !ok {
			return nil, wrongType(path, "an object", item)
		}
		if err := allowKeys(path, pm, "property_id", "visible", "width", "wrap", "date_format", "time_format", "status_show_as", "card_property_width_mode"); err != nil {
			return nil, err
		}
		id, ok := asString(pm["property_id"])
		if !ok {
			return nil, undefined(path + ".property_id")
		}
		p := sc.byKey(id)
		if p == nil || p.id != id {
			return nil, validationError("Could not find property with id: %s", id)
		}
		if seen[id] {
			return nil, bodyError(path+".property_id", "should name each property once, instead `%s` came twice", id)
		}
		seen[id] = true
		visible := true
		if raw, ok := pm["visible"]; ok {
			if visible, ok = asBool(raw); !ok {
				return nil, wrongType(path+".visible", "a boolean", raw)
			}
		}
		cfg.props = append(cfg.props, viewProp{id: id, visible: visible, width: pm["width"]})
	}
	return cfg, nil
}

// GET /v1/views?database_id=…|data_source_id=…
func (s *Server) listViews(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	q := c.r.URL.Query()
	var db *node
	ds := ""
	var err error
	switch {
	case q.Get("database_id") != "":
		db, err = s.findDatabase(q.Get("database_id"))
	case q.Get("data_source_id") != "":
		var src *node
		if src, err = s.findDataSource(q.Get("data_source_id")); err == nil {
			db, ds = s.nodes[src.parent.id], src.id
		}
	default:
		return nil, validationError("query failed validation: one of database_id or data_source_id should be defined.")
	}
	if err != nil {
		return nil, err
	}
	var size int
	if raw := q.Get("page_size"); raw != "" {
		var n int
		if _, err := fmt.Sscan(raw, &n); err != nil {
			return nil, validationError("query failed validation: query.page_size should be a number, instead was `%s`.", raw)
		}
		if size, err = pageSize(float64(n), "query"); err != nil {
			return nil, err
		}
	} else if size, err = pageSize(nil, "query"); err != nil {
		return nil, err
	}
	ids := []string{}
	for _, id := range db.views {
		if ds == "" || s.views[id].ds == ds {
			ids = append(ids, id)
		}
	}
	page, next, err := paginate(ids, q.Get("start_cursor"), size, "query")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		results[i] = map[string]any{"object": "view", "id": id}
	}
	out := list(results, next, "view")
	return out, nil
}

// POST /v1/views
func (s *Server) createView(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "data_source_id", "database_id", "name", "type", "filter", "sorts", "configuration", "position"); err != nil {
		return nil, err
	}
	ds, err := s.findDataSource(asStringOr(c.body["data_source_id"]))
	if err != nil {
		if c.body["data_source_id"] == nil {
			return nil, undefined("body.data_source_id")
		}
		return nil, err
	}
	db := s.nodes[ds.parent.id]
	if raw, ok := c.body["database_id"]; ok {
		if id, _ := normalizeID(asStringOr(raw)); id != db.id {
			return nil, bodyError("body.database_id", "should be the database of data source %s (%s), instead was `%s`", ds.id, db.id, brief(raw))
		}
	}
	name, ok := asString(c.body["name"])
	if !ok {
		return nil, undefined("body.name")
	}
	typ, _ := asString(c.body["type"])
	if !viewTypes[typ] {
		return nil, bodyError("body.type", "should be one of `table`, `board`, `list`, `calendar`, `timeline`, `gallery`, `form`, `chart`, `map`, `dashboard`, instead was `%s`", brief(c.body["type"]))
	}
	v := &dbView{db: db.id, ds: ds.id, name: name, typ: typ}
	if err := s.setViewFields(v, c.body, ds.schema); err != nil {
		return nil, err
	}
	where, after := "end", ""
	if raw, ok := c.body["position"]; ok && raw != nil {
		pm, _ := asObject(raw)
		switch t, _ := asString(pm["type"]); t {
		case "start", "end":
			where = t
		case "after_view":
			id, _ := normalizeID(asStringOr(pm["view_id"]))
			if !slices.Contains(db.views, id) {
				return nil, bodyError("body.position.view_id", "should be a view of database %s, instead was `%s`", db.id, brief(pm["view_id"]))
			}
			where, after = t, id
		default:
			return nil, bodyError("body.position.type", "should be `start`, `end` or `after_view`, instead was `%s`", brief(pm["type"]))
		}
	}
	s.addView(v, db, where, after)
	return s.renderView(v), nil
}

// setViewFields sets a view's filter, sorts and configuration from a
// create or update body (null clears filter and sorts).
func (s *Server) setViewFields(v *dbView, body map[string]any, sc *schema) error {
	if raw, ok := body["filter"]; ok {
		if raw != nil {
			if _, err := s.compileFilter("body.filter", raw, sc, 0); err != nil {
				return err
			}
		}
		v.filter = clone(raw)
	}
	if raw, ok := body["sorts"]; ok {
		sorts, err := s.viewSorts(raw, sc)
		if err != nil {
			return err
		}
		v.sorts = sorts
	}
	if raw, ok := body["configuration"]; ok {
		cfg, err := viewConfig(raw, v.typ, sc)
		if err != nil {
			return err
		}
		v.config = cfg
	}
	return nil
}

func (s *Server) retrieveView(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	v, _, err := s.findView(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderView(v), nil
}

func (s *Server) updateView(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	v, _, err := s.findView(c.pathID())
	if err != nil {
		return nil, err
	}
	if err := allowKeys("body", c.body, "name", "filter", "sorts", "configuration"); err != nil {
		return nil, err
	}
	next := *v
	if raw, ok := c.body["name"]; ok {
		name, ok := asString(raw)
		if !ok {
			return nil, wrongType("body.name", "a string", raw)
		}
		next.name = name
	}
	if err := s.setViewFields(&next, c.body, s.viewSchema(v)); err != nil {
		return nil, err
	}
	next.edited = s.stamp()
	*v = next
	return s.renderView(v), nil
}

func (s *Server) deleteView(c *call) (any, error) {
	if err := newerOnly(c); err != nil {
		return nil, err
	}
	v, db, err := s.findView(c.pathID())
	if err != nil {
		return nil, err
	}
	delete(s.views, v.id)
	db.views = slices.DeleteFunc(db.views, func(id string) bool { return id == v.id })
	return map[string]any{"object": "view", "id": v.id, "parent": map[string]any{"type": parentDatabase, parentDatabase: v.db}, "type": v.typ}, nil
}
