package notion

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
)

// propSchema is one database property (a column).
type propSchema struct {
	id   string
	name string
	typ  string
	// description is the property's description (nil: none), a string in
	// responses or null ([N4]).
	description any
	// config is the type's configuration in response shape, e.g.
	// {"options":[…]} for select.
	config map[string]any
}

// schema is a database's ordered property list.
type schema struct {
	props []*propSchema
}

// propertyTypes are the property types the emulator models; readOnly
// ones are computed by the server and cannot be written in pages.
var propertyTypes = setOf("title", "rich_text", "number", "select", "multi_select", "date", "url",
	"email", "phone_number", "checkbox", "relation", "files", "people", "created_time", "last_edited_time")

var readOnlyProperties = setOf("created_time", "last_edited_time")

func (sc *schema) byKey(key string) *propSchema {
	for _, p := range sc.props {
		if p.name == key {
			return p
		}
	}
	for _, p := range sc.props {
		if p.id == key {
			return p
		}
	}
	return nil
}

func (sc *schema) render() map[string]any {
	out := map[string]any{}
	if sc == nil {
		return out
	}
	for _, p := range sc.props {
		out[p.name] = map[string]any{"id": p.id, "name": p.name, "type": p.typ, p.typ: clone(p.config),
			"description": p.description}
	}
	return out
}

// propertyTypeOf reads the type of a schema property or value object
// given either as {"type": t, t: …} or as {t: …}.
func propertyTypeOf(m map[string]any) string {
	if t, ok := asString(m["type"]); ok {
		return t
	}
	for k := range m {
		if propertyTypes[k] {
			return k
		}
	}
	return ""
}

// schemaProperty validates one property definition of a database create
// or update and returns it (with a fresh ID unless it replaces one).
func (s *Server) schemaProperty(path, name string, raw any) (*propSchema, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	typ := propertyTypeOf(m)
	if !propertyTypes[typ] {
		return nil, bodyError(path+".type", "should be a supported property type, instead was `%s`", brief(typ))
	}
	cfgRaw := m[typ]
	cfg, ok := asObject(cfgRaw)
	if cfgRaw != nil && !ok {
		return nil, wrongType(path+"."+typ, "an object", cfgRaw)
	}
	p := &propSchema{name: name, typ: typ, config: map[string]any{}}
	if n, ok := asString(m["name"]); ok && n != "" {
		p.name = n
	}
	if strings.TrimSpace(p.name) == "" {
		return nil, bodyError(path, "should have a non-empty property name")
	}
	if d, ok := m["description"]; ok && d != nil {
		str, ok := asString(d)
		if !ok {
			return nil, wrongType(path+".description", "a string or `null`", d)
		}
		if str != "" {
			p.description = str
		}
	}
	switch typ {
	case "number":
		format := "number"
		if f, ok := asString(cfg["format"]); ok {
			format = f
		}
		p.config["format"] = format
	case "select", "multi_select":
		opts := []any{}
		if raw, ok := cfg["options"]; ok {
			arr, ok := asArray(raw)
			if !ok {
				return nil, wrongType(path+"."+typ+".options", "an array", raw)
			}
			for i, o := range arr {
				om, _ := asObject(o)
				oname, ok := asString(om["name"])
				if !ok || oname == "" {
					return nil, undefined(fmt.Sprintf("%s.%s.options[%d].name", path, typ, i))
				}
				color, err := checkSelectColor(fmt.Sprintf("%s.%s.options[%d].color", path, typ, i), om["color"])
				if err != nil {
					return nil, err
				}
				opt := newOption(s.rng, oname, color)
				if d, ok := asString(om["description"]); ok && d != "" {
					opt["description"] = d
				}
				opts = append(opts, opt)
			}
		}
		p.config["options"] = opts
	case "relation":
		// 2025-09-03 on, a relation names its target's data source; before,
		// its database, refused once that has several data sources
		// (upgrade guide 2025-09-03). The schema keeps the database.
		key := "database_id"
		if dataSources(s.speaks()) {
			key = "data_source_id"
		}
		raw, _ := asString(cfg[key])
		id, ok := normalizeID(raw)
		if !ok {
			return nil, bodyError(path+".relation."+key, "should be a valid uuid, instead was `%s`", brief(cfg[key]))
		}
		if key == "data_source_id" {
			ds := s.nodes[id]
			if ds == nil || ds.kind != kindDataSource {
				return nil, notFound("data_source", id)
			}
			id = ds.parent.id
		} else if db := s.nodes[id]; db != nil && db.kind == kindDatabase && len(s.liveSources(db)) > 1 {
			return nil, errMultiSource(db)
		}
		rt, _ := asString(cfg["type"])
		if rt == "" {
			rt = "single_property"
		}
		p.config = map[string]any{"database_id": id, "type": rt, rt: map[string]any{}}
	}
	if typ == "title" {
		p.id = "title"
	} else {
		p.id = shortID(s.rng)
	}
	return p, nil
}

// newSchema validates the properties of a database create.
func (s *Server) newSchema(raw any) (*schema, error) {
	m, ok := asObject(raw)
	if !ok {
		if raw == nil {
			return nil, undefined("body.properties")
		}
		return nil, wrongType("body.properties", "an object", raw)
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	sc := &schema{}
	titles := 0
	for _, name := range names {
		p, err := s.schemaProperty("body.properties."+name, name, m[name])
		if err != nil {
			return nil, err
		}
		if p.typ == "title" {
			titles++
		}
		sc.props = append(sc.props, p)
	}
	if titles != 1 {
		return nil, validationError("body failed validation: body.properties should have exactly one `title` property, instead had `%d`.", titles)
	}
	return sc, nil
}

// emptyValue is a property's value when a page does not set it.
func emptyValue(typ string) any {
	switch typ {
	case "title", "rich_text", "multi_select", "relation", "files", "people":
		return []any{}
	case "checkbox":
		return false
	}
	return nil
}

// newOption is a schema select option in response shape; description is
// null unless one was given ([N4]).
func newOption(rng *rand.Rand, name, color string) map[string]any {
	return map[string]any{"id": shortID(rng), "name": name, "color": color, "description": nil}
}

// checkSelectColor validates the colour of a select option: the ten plain
// colours only (the SDK's SelectColor), no "_background" forms.
func checkSelectColor(path string, v any) (string, error) {
	if v == nil {
		return "default", nil
	}
	c, ok := asString(v)
	if !ok || !slices.Contains(colorNames, c) {
		return "", bodyError(path, "should be one of `%s`, instead was `%s`", strings.Join(colorNames, "`, `"), brief(v))
	}
	return c, nil
}
