package notion

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// POST /v1/databases/{id}/query: filters, sorts and pagination. Runs with
// s.mu held.

// rowFilter says whether a database row matches.
type rowFilter func(row *node) bool

// queryDatabase is the 2022-06-28 query of a database's one data source
// (newer versions query the data source: invalid_request_url here, a
// choice).
func (s *Server) queryDatabase(c *call) (any, error) {
	if dataSources(c.version()) {
		return nil, errInvalidURL
	}
	db, err := s.findDatabase(c.pathID())
	if err != nil {
		return nil, err
	}
	ds, err := s.soleSource(db)
	if err != nil {
		return nil, err
	}
	return s.queryRows(c, ds)
}

// queryRows answers a query of data source db's rows.
func (s *Server) queryRows(c *call, db *node) (any, error) {
	var err error
	if err := allowKeys("body", c.body, "filter", "sorts", "start_cursor", "page_size", "filter_properties", "archived", "in_trash"); err != nil {
		return nil, err
	}
	size, err := pageSize(c.body["page_size"], "body")
	if err != nil {
		return nil, err
	}
	cursor := ""
	if raw := c.body["start_cursor"]; raw != nil {
		str, ok := asString(raw)
		if !ok {
			return nil, wrongType("body.start_cursor", "a string", raw)
		}
		cursor = str
	}
	match := func(*node) bool { return true }
	if raw := c.body["filter"]; raw != nil {
		if match, err = s.compileFilter("body.filter", raw, db.schema, 0); err != nil {
			return nil, err
		}
	}
	order, err := s.compileSorts(c.body["sorts"], db.schema)
	if err != nil {
		return nil, err
	}
	rows := []*node{}
	for _, id := range db.rows {
		row := s.nodes[id]
		if row != nil && !row.archived && !row.unshared && match(row) {
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, order)
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.id
	}
	page, next, err := paginate(ids, cursor, size, "body")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		results[i] = s.renderPage(c.base, s.nodes[id])
	}
	return list(results, next, s.pagesOrTables()), nil
}

// rowValue is the inner value of a row's property (computed ones too).
func (s *Server) rowValue(row *node, p *propSchema) any {
	switch p.typ {
	case "created_time":
		return timestamp(row.created)
	case "last_edited_time":
		return timestamp(row.edited)
	}
	for _, v := range row.properties {
		m, _ := asObject(v)
		if m["id"] == p.id {
			return m[p.typ]
		}
	}
	return emptyValue(p.typ)
}

// textOf turns a text-like value into a string.
func textOf(v any) string {
	switch t := v.(type) {
	case []any:
		return plainText(t)
	case string:
		return t
	case map[string]any:
		if n, ok := asString(t["name"]); ok {
			return n
		}
		if st, ok := asString(t["start"]); ok {
			return st
		}
	}
	return ""
}

// filterFamilies maps each property type to the filter keys that may
// query it.
var filterFamilies = map[string][]string{
	"title":            {"title", "rich_text"},
	"rich_text":        {"rich_text", "title"},
	"url":              {"url", "rich_text"},
	"email":            {"email", "rich_text"},
	"phone_number":     {"phone_number", "rich_text"},
	"number":           {"number"},
	"checkbox":         {"checkbox"},
	"select":           {"select"},
	"multi_select":     {"multi_select"},
	"date":             {"date"},
	"relation":         {"relation"},
	"created_time":     {"created_time", "date"},
	"last_edited_time": {"last_edited_time", "date"},
}

func (s *Server) compileFilter(path string, raw any, sc *schema, depth int) (rowFilter, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	for _, op := range []string{"and", "or"} {
		sub, ok := m[op]
		if !ok {
			continue
		}
		if depth >= 2 {
			return nil, validationError("body failed validation: %s.%s is nested too deeply; compound filters may be nested at most two levels.", path, op)
		}
		arr, ok := asArray(sub)
		if !ok {
			return nil, wrongType(path+"."+op, "an array", sub)
		}
		fs := make([]rowFilter, 0, len(arr))
		for i, f := range arr {
			cf, err := s.compileFilter(fmt.Sprintf("%s.%s[%d]", path, op, i), f, sc, depth+1)
			if err != nil {
				return nil, err
			}
			fs = append(fs, cf)
		}
		if op == "and" {
			return func(r *node) bool {
				for _, f := range fs {
					if !f(r) {
						return false
					}
				}
				return true
			}, nil
		}
		return func(r *node) bool {
			for _, f := range fs {
				if f(r) {
					return true
				}
			}
			return false
		}, nil
	}
	var p *propSchema
	if ts, ok := asString(m["timestamp"]); ok {
		if ts != "created_time" && ts != "last_edited_time" {
			return nil, bodyError(path+".timestamp", "should be `created_time` or `last_edited_time`, instead was `%s`", brief(ts))
		}
		p = &propSchema{id: ts, name: ts, typ: ts}
	} else {
		name, ok := asString(m["property"])
		if !ok {
			return nil, undefined(path + ".property")
		}
		if p = sc.byKey(name); p == nil {
			return nil, validationError("Could not find property with name or id: %s", name)
		}
	}
	for _, fam := range filterFamilies[p.typ] {
		cond, ok := m[fam]
		if !ok {
			continue
		}
		return s.condition(fmt.Sprintf("%s.%s", path, fam), p, cond)
	}
	return nil, validationError("body failed validation: %s should have a `%s` filter condition matching the type of property %s.", path, p.typ, p.name)
}

// condition compiles one filter condition object ({"equals": …}).
func (s *Server) condition(path string, p *propSchema, raw any) (rowFilter, error) {
	m, ok := asObject(raw)
	if !ok || len(m) != 1 {
		return nil, bodyError(path, "should be an object with exactly one condition, instead was `%s`", brief(raw))
	}
	var op string
	var arg any
	for k, v := range m {
		op, arg = k, v
	}
	val := func(r *node) any { return s.rowValue(r, p) }
	isEmpty := func(r *node) bool {
		switch v := val(r).(type) {
		case nil:
			return true
		case []any:
			return len(v) == 0 || (p.typ == "title" || p.typ == "rich_text") && plainText(v) == ""
		case string:
			return v == ""
		}
		return false
	}
	switch op {
	case "is_empty":
		return func(r *node) bool { return isEmpty(r) }, nil
	case "is_not_empty":
		return func(r *node) bool { return !isEmpty(r) }, nil
	}
	bad := func(want string) error {
		return bodyError(path+"."+op, "should be %s, instead was `%s`", want, brief(arg))
	}
	switch p.typ {
	case "title", "rich_text", "url", "email", "phone_number":
		str, ok := asString(arg)
		if !ok {
			return nil, bad("a string")
		}
		lower := strings.ToLower(str)
		text := func(r *node) string { return textOf(val(r)) }
		switch op {
		case "equals":
			return func(r *node) bool { return text(r) == str }, nil
		case "does_not_equal":
			return func(r *node) bool { return text(r) != str }, nil
		case "contains":
			return func(r *node) bool { return strings.Contains(strings.ToLower(text(r)), lower) }, nil
		case "does_not_contain":
			return func(r *node) bool { return !strings.Contains(strings.ToLower(text(r)), lower) }, nil
		case "starts_with":
			return func(r *node) bool { return strings.HasPrefix(strings.ToLower(text(r)), lower) }, nil
		case "ends_with":
			return func(r *node) bool { return strings.HasSuffix(strings.ToLower(text(r)), lower) }, nil
		}
	case "checkbox":
		b, ok := asBool(arg)
		if !ok {
			return nil, bad("a boolean")
		}
		switch op {
		case "equals":
			return func(r *node) bool { return val(r) == b }, nil
		case "does_not_equal":
			return func(r *node) bool { return val(r) != b }, nil
		}
	case "number":
		f, ok := asNumber(arg)
		if !ok {
			return nil, bad("a number")
		}
		num := func(r *node) (float64, bool) { x, ok := val(r).(float64); return x, ok }
		cmpOps := map[string]func(a float64) bool{
			"equals":                   func(a float64) bool { return a == f },
			"does_not_equal":           func(a float64) bool { return a != f },
			"greater_than":             func(a float64) bool { return a > f },
			"less_than":                func(a float64) bool { return a < f },
			"greater_than_or_equal_to": func(a float64) bool { return a >= f },
			"less_than_or_equal_to":    func(a float64) bool { return a <= f },
		}
		if fn, ok := cmpOps[op]; ok {
			return func(r *node) bool {
				x, ok := num(r)
				if !ok {
					return op == "does_not_equal"
				}
				return fn(x)
			}, nil
		}
	case "select":
		str, ok := asString(arg)
		if !ok {
			return nil, bad("a string")
		}
		switch op {
		case "equals":
			return func(r *node) bool { return textOf(val(r)) == str }, nil
		case "does_not_equal":
			return func(r *node) bool { return textOf(val(r)) != str }, nil
		}
	case "multi_select", "relation":
		str, ok := asString(arg)
		if !ok {
			return nil, bad("a string")
		}
		if p.typ == "relation" {
			if id, ok := normalizeID(str); ok {
				str = id
			}
		}
		has := func(r *node) bool {
			items, _ := asArray(val(r))
			for _, it := range items {
				im, _ := asObject(it)
				if im["name"] == str || im["id"] == str {
					return true
				}
			}
			return false
		}
		switch op {
		case "contains":
			return has, nil
		case "does_not_contain":
			return func(r *node) bool { return !has(r) }, nil
		}
	case "date", "created_time", "last_edited_time":
		str, ok := asString(arg)
		if !ok || !validDate(str) {
			return nil, bad("a valid ISO 8601 date string")
		}
		want, dayOnly := parseDate(str)
		// A date-only filter value compares calendar days (UTC); one with
		// a time compares instants. Timestamps are already rounded down to
		// the minute, so rows made in the same minute compare alike.
		cmpTo := func(r *node) (int, bool) {
			t, _ := parseDate(textOf(val(r)))
			if t.IsZero() {
				return 0, false
			}
			if dayOnly {
				t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
			}
			return t.Compare(want), true
		}
		ops := map[string]func(c int) bool{
			"equals":       func(c int) bool { return c == 0 },
			"before":       func(c int) bool { return c < 0 },
			"after":        func(c int) bool { return c > 0 },
			"on_or_before": func(c int) bool { return c <= 0 },
			"on_or_after":  func(c int) bool { return c >= 0 },
		}
		if fn, ok := ops[op]; ok {
			return func(r *node) bool { c, ok := cmpTo(r); return ok && fn(c) }, nil
		}
	}
	return nil, bodyError(path+"."+op, "is not a supported condition for a %s filter", p.typ)
}

// compileSorts turns body.sorts into a row comparator. Without sorts rows
// come in creation order. With sorts, rows that tie on every key come in
// ascending page-ID order: stable from one query to the next, but
// unrelated to when within the minute a row was made, since Notion keeps
// timestamps only to the minute ([N5]) and does not document its order of
// ties. A client that needs creation order within a minute cannot get it
// here either.
func (s *Server) compileSorts(raw any, sc *schema) (func(a, b *node) int, error) {
	byCreation := func(a, b *node) int { return cmp.Compare(a.seq, b.seq) }
	if raw == nil {
		return byCreation, nil
	}
	arr, ok := asArray(raw)
	if !ok {
		return nil, wrongType("body.sorts", "an array", raw)
	}
	var keys []func(a, b *node) int
	for i, item := range arr {
		path := fmt.Sprintf("body.sorts[%d]", i)
		m, ok := asObject(item)
		if !ok {
			return nil, wrongType(path, "an object", item)
		}
		dir, _ := asString(m["direction"])
		if dir != "ascending" && dir != "descending" {
			return nil, bodyError(path+".direction", "should be `ascending` or `descending`, instead was `%s`", brief(m["direction"]))
		}
		var p *propSchema
		if ts, ok := asString(m["timestamp"]); ok {
			if ts != "created_time" && ts != "last_edited_time" {
				return nil, bodyError(path+".timestamp", "should be `created_time` or `last_edited_time`, instead was `%s`", brief(ts))
			}
			p = &propSchema{id: ts, name: ts, typ: ts}
		} else {
			name, ok := asString(m["property"])
			if !ok {
				return nil, undefined(path + ".property")
			}
			if p = sc.byKey(name); p == nil {
				return nil, validationError("Could not find sort property with name or id: %s", name)
			}
		}
		sign := 1
		if dir == "descending" {
			sign = -1
		}
		switch p.typ {
		case "created_time":
			keys = append(keys, func(a, b *node) int { return sign * a.created.Compare(b.created) })
		case "last_edited_time":
			keys = append(keys, func(a, b *node) int { return sign * a.edited.Compare(b.edited) })
		default:
			keys = append(keys, func(a, b *node) int {
				return compareValues(p.typ, s.rowValue(a, p), s.rowValue(b, p), sign)
			})
		}
	}
	return func(a, b *node) int {
		for _, k := range keys {
			if c := k(a, b); c != 0 {
				return c
			}
		}
		return compareStrings(a.id, b.id)
	}, nil
}

// compareValues orders two property values; empty values sort last in
// both directions.
func compareValues(typ string, a, b any, sign int) int {
	ea, eb := isEmptyValue(a), isEmptyValue(b)
	switch {
	case ea && eb:
		return 0
	case ea:
		return 1
	case eb:
		return -1
	}
	switch typ {
	case "number":
		x, _ := a.(float64)
		y, _ := b.(float64)
		return sign * cmp.Compare(x, y)
	case "checkbox":
		x, _ := a.(bool)
		y, _ := b.(bool)
		return sign * cmp.Compare(boolInt(x), boolInt(y))
	}
	return sign * cmp.Compare(strings.ToLower(textOf(a)), strings.ToLower(textOf(b)))
}

func isEmptyValue(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case []any:
		return len(t) == 0
	case string:
		return t == ""
	}
	return false
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// parseDate reads an ISO 8601 date or date-time as Notion stores them; it
// says whether the value was a date without a time. An unreadable value is
// the zero time.
func parseDate(s string) (time.Time, bool) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, true
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), false
		}
	}
	return time.Time{}, false
}
