package notion

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Page property values. Callers hold s.mu.

func validDate(s string) bool {
	for _, layout := range []string{"2006-01-02", time.RFC3339, time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04:05.000", "2006-01-02T15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// pageProperties validates the properties of a page create or update and
// returns them in response shape keyed by property name. For a database
// row, sc is its schema; for other pages sc is nil and only the title may
// be set.
func (v *blockValidator) pageProperties(raw any, sc *schema) (map[string]any, error) {
	if raw == nil {
		return map[string]any{}, nil
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
	out := map[string]any{}
	for _, k := range keys {
		path := "body.properties." + k
		if sc == nil {
			if k != "title" {
				return nil, validationError("body failed validation: %s should be not present (a page whose parent is a page can only have the `title` property), instead was `%s`.", path, brief(m[k]))
			}
			val, err := v.propertyValue(path, &propSchema{id: "title", name: "title", typ: "title"}, m[k])
			if err != nil {
				return nil, err
			}
			out["title"] = map[string]any{"id": "title", "type": "title", "title": val}
			continue
		}
		p := sc.byKey(k)
		if p == nil {
			return nil, validationError("%s is not a property that exists.", k)
		}
		if readOnlyProperties[p.typ] {
			return nil, validationError("%s is a read-only property (%s) and cannot be set.", p.name, p.typ)
		}
		inner, err := v.propertyValue(path, p, m[k])
		if err != nil {
			return nil, err
		}
		val := map[string]any{"id": p.id, "type": p.typ, p.typ: inner}
		if p.typ == "relation" {
			val["has_more"] = false
		}
		out[p.name] = val
	}
	return out, nil
}

// fillDefaults adds empty values for the schema properties a new row does
// not set.
func fillDefaults(props map[string]any, sc *schema) {
	for _, p := range sc.props {
		if _, ok := props[p.name]; ok || readOnlyProperties[p.typ] {
			continue
		}
		val := map[string]any{"id": p.id, "type": p.typ, p.typ: emptyValue(p.typ)}
		if p.typ == "relation" {
			val["has_more"] = false
		}
		props[p.name] = val
	}
}

// fillComputedProperties sets the values the server computes
// (created_time, last_edited_time) and drops properties no longer in the
// schema.
func (s *Server) fillComputedProperties(n *node, props map[string]any) {
	db := s.nodes[n.parent.id]
	if db == nil || db.schema == nil {
		return
	}
	for k := range props {
		if db.schema.byKey(k) == nil {
			delete(props, k)
		}
	}
	for _, p := range db.schema.props {
		switch p.typ {
		case "created_time":
			props[p.name] = map[string]any{"id": p.id, "type": p.typ, p.typ: timestamp(n.created)}
		case "last_edited_time":
			props[p.name] = map[string]any{"id": p.id, "type": p.typ, p.typ: timestamp(n.edited)}
		}
	}
}

// propertyValue validates one property value against its schema property
// and returns the inner value in response shape.
func (v *blockValidator) propertyValue(path string, p *propSchema, raw any) (any, error) {
	var val any
	switch t := raw.(type) {
	case []any:
		if p.typ != "title" && p.typ != "rich_text" {
			return nil, validationError("%s is expected to be %s.", p.name, p.typ)
		}
		val = t
	case map[string]any:
		inner, ok := t[p.typ]
		if !ok {
			return nil, validationError("%s is expected to be %s.", p.name, p.typ)
		}
		if typ, ok := asString(t["type"]); ok && typ != p.typ {
			return nil, validationError("%s is expected to be %s.", p.name, p.typ)
		}
		val = inner
		path += "." + p.typ
	default:
		return nil, wrongType(path, "an object", raw)
	}
	switch p.typ {
	case "title", "rich_text":
		return v.richText(path, val)
	case "number":
		if val == nil {
			return nil, nil
		}
		f, ok := asNumber(val)
		if !ok {
			return nil, wrongType(path, "a number or `null`", val)
		}
		return f, nil
	case "checkbox":
		b, ok := asBool(val)
		if !ok {
			return nil, wrongType(path, "a boolean", val)
		}
		return b, nil
	case "url", "email", "phone_number":
		if val == nil {
			return nil, nil
		}
		str, ok := asString(val)
		if !ok {
			return nil, wrongType(path, "a string or `null`", val)
		}
		limit := maxURLLen
		if p.typ != "url" {
			limit = maxEmailLen
		}
		if n := utf16Len(str); n > limit {
			return nil, tooLong(path, limit, n)
		}
		return str, nil
	case "date":
		if val == nil {
			return nil, nil
		}
		d, ok := asObject(val)
		if !ok {
			return nil, wrongType(path, "an object or `null`", val)
		}
		start, _ := asString(d["start"])
		if !validDate(start) {
			return nil, bodyError(path+".start", "should be a valid ISO 8601 date string, instead was `%s`", brief(d["start"]))
		}
		out := map[string]any{"start": start, "end": nil, "time_zone": nil}
		if e, ok := asString(d["end"]); ok {
			if !validDate(e) {
				return nil, bodyError(path+".end", "should be a valid ISO 8601 date string, instead was `%s`", brief(d["end"]))
			}
			out["end"] = e
		}
		if tz, ok := asString(d["time_zone"]); ok {
			out["time_zone"] = tz
		}
		return out, nil
	case "select":
		if val == nil {
			return nil, nil
		}
		return v.selectOption(path, p, val)
	case "multi_select":
		arr, ok := asArray(val)
		if !ok {
			return nil, wrongType(path, "an array", val)
		}
		if len(arr) > maxMultiSelect {
			return nil, tooMany(path, maxMultiSelect, len(arr))
		}
		out := []any{}
		for i, o := range arr {
			opt, err := v.selectOption(fmt.Sprintf("%s[%d]", path, i), p, o)
			if err != nil {
				return nil, err
			}
			out = append(out, opt)
		}
		return out, nil
	case "relation", "people":
		arr, ok := asArray(val)
		if !ok {
			return nil, wrongType(path, "an array", val)
		}
		if len(arr) > maxRelations {
			return nil, tooMany(path, maxRelations, len(arr))
		}
		out := []any{}
		for i, r := range arr {
			rm, _ := asObject(r)
			rawID, _ := asString(rm["id"])
			id, ok := normalizeID(rawID)
			if !ok {
				return nil, bodyError(fmt.Sprintf("%s[%d].id", path, i), "should be a valid uuid, instead was `%s`", brief(rm["id"]))
			}
			if p.typ == "people" {
				out = append(out, map[string]any{"object": "user", "id": id})
			} else {
				out = append(out, map[string]any{"id": id})
			}
		}
		return out, nil
	case "files":
		return v.filesValue(path, val)
	}
	return nil, validationError("%s is expected to be %s.", p.name, p.typ)
}

// selectOption resolves a select option by name or ID, creating it (as
// Notion does) when a new name is written; a new option joins the schema
// when the request is committed. The value is a page's partial option
// (id, name, color), without the schema's description.
func (v *blockValidator) selectOption(path string, p *propSchema, raw any) (any, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	opts, _ := asArray(p.config["options"])
	opts = append(slices.Clone(opts), v.newOptions[p]...)
	if rawID, ok := asString(m["id"]); ok {
		for _, o := range opts {
			if om, _ := asObject(o); om["id"] == rawID {
				return partialOption(om), nil
			}
		}
		return nil, validationError("Select option with id %q does not exist for property %s.", rawID, p.name)
	}
	name, ok := asString(m["name"])
	if !ok {
		return nil, undefined(path + ".name")
	}
	if strings.Contains(name, ",") {
		return nil, validationError("Select option names cannot contain commas: %q.", name)
	}
	if n := utf16Len(name); n > 100 {
		return nil, tooLong(path+".name", 100, n)
	}
	for _, o := range opts {
		if om, _ := asObject(o); om["name"] == name {
			return partialOption(om), nil
		}
	}
	color, err := checkSelectColor(path+".color", m["color"])
	if err != nil {
		return nil, err
	}
	opt := newOption(v.s.rng, name, color)
	if v.newOptions == nil {
		v.newOptions = map[*propSchema][]any{}
	}
	v.newOptions[p] = append(v.newOptions[p], opt)
	return partialOption(opt), nil
}

// partialOption is a select option as a page value shows it.
func partialOption(opt map[string]any) map[string]any {
	return map[string]any{"id": opt["id"], "name": opt["name"], "color": opt["color"]}
}

func (v *blockValidator) filesValue(path string, raw any) (any, error) {
	arr, ok := asArray(raw)
	if !ok {
		return nil, wrongType(path, "an array", raw)
	}
	out := []any{}
	for i, f := range arr {
		fp := fmt.Sprintf("%s[%d]", path, i)
		fm, ok := asObject(f)
		if !ok {
			return nil, wrongType(fp, "an object", f)
		}
		name, _ := asString(fm["name"])
		icon, err := v.icon(fp, withoutKey(fm, "name"))
		if err != nil {
			return nil, err
		}
		if icon["type"] == "emoji" || icon["type"] == "custom_emoji" {
			return nil, bodyError(fp+".type", "should be `external` or `file_upload`, instead was `%s`", brief(icon["type"]))
		}
		icon["name"] = name
		out = append(out, icon)
	}
	return out, nil
}

func withoutKey(m map[string]any, key string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

// attachPropertyFiles marks the uploads named in files properties as
// attached, once the write that names them is accepted.
func (s *Server) attachPropertyFiles(props map[string]any) {
	for _, v := range props {
		m, _ := asObject(v)
		if m["type"] != "files" {
			continue
		}
		files, _ := asArray(m["files"])
		for _, f := range files {
			if fm, ok := asObject(f); ok {
				if id := iconUploadID(fm); id != "" {
					s.attach(id)
				}
			}
		}
	}
}

// renderFiles turns the file_upload entries of a files property into
// Notion-hosted files, as a read returns them.
func (s *Server) renderFiles(base string, props map[string]any) {
	for _, v := range props {
		m, _ := asObject(v)
		if m["type"] != "files" {
			continue
		}
		files, _ := asArray(m["files"])
		for i, f := range files {
			fm, ok := asObject(f)
			if !ok {
				continue
			}
			if id := iconUploadID(fm); id != "" {
				files[i] = map[string]any{"type": "file", "name": fm["name"], "file": s.hostedFile(base, id)}
			}
		}
	}
}
