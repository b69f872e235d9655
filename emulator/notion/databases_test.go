package notion

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// newSectionDB creates a database like the one the writer keeps per
// OneNote section and returns its ID.
func newSectionDB(e *env) string {
	e.t.Helper()
	db := e.ok("POST", "/v1/databases", map[string]any{
		"parent": map[string]any{"type": "page_id", "page_id": e.srv.RootPageID()},
		"title":  []any{text("Section")},
		"properties": map[string]any{
			"Name":      map[string]any{"title": map[string]any{}},
			"Source ID": map[string]any{"rich_text": map[string]any{}},
			"Done":      map[string]any{"checkbox": map[string]any{}},
			"Kind":      map[string]any{"select": map[string]any{"options": []any{map[string]any{"name": "page", "color": "blue"}}}},
			"Count":     map[string]any{"number": map[string]any{"format": "number"}},
			"Modified":  map[string]any{"date": map[string]any{}},
			"Link":      map[string]any{"url": map[string]any{}},
			"Created":   map[string]any{"created_time": map[string]any{}},
		},
	})
	return db["id"].(string)
}

func addRow(e *env, db string, props map[string]any) string {
	e.t.Helper()
	return e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db}, "properties": props})["id"].(string)
}

func rowProps(name, source string, done bool, kind string, count float64) map[string]any {
	p := map[string]any{
		"Name":      map[string]any{"title": []any{text(name)}},
		"Source ID": map[string]any{"rich_text": []any{text(source)}},
		"Done":      map[string]any{"checkbox": done},
		"Count":     map[string]any{"number": count},
	}
	if kind != "" {
		p["Kind"] = map[string]any{"select": map[string]any{"name": kind}}
	}
	return p
}

func TestDatabaseCreateAndRows(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	got := e.ok("GET", "/v1/databases/"+db, nil)
	props := got["properties"].(map[string]any)
	if props["Name"].(map[string]any)["type"] != "title" || props["Source ID"].(map[string]any)["type"] != "rich_text" {
		t.Fatalf("schema = %v", props)
	}
	row := e.ok("POST", "/v1/pages", map[string]any{
		"parent": map[string]any{"database_id": db},
		"properties": map[string]any{
			"Name":      map[string]any{"title": []any{text("Page 1")}},
			"Source ID": map[string]any{"rich_text": []any{text("0-abc")}},
			"Modified":  map[string]any{"date": map[string]any{"start": "2026-10-01T10:00:00Z"}},
			"Link":      map[string]any{"url": "https://example.com"},
			"Kind":      map[string]any{"select": map[string]any{"name": "new option"}},
		},
		"children": []any{para("body")},
	})
	rp := row["properties"].(map[string]any)
	if rp["Done"].(map[string]any)["checkbox"] != false || rp["Count"].(map[string]any)["number"] != nil {
		t.Errorf("defaults not filled: %v", rp)
	}
	if rp["Created"].(map[string]any)["created_time"] == "" {
		t.Errorf("created_time not computed: %v", rp["Created"])
	}
	if rp["Kind"].(map[string]any)["select"].(map[string]any)["name"] != "new option" {
		t.Errorf("select option not created: %v", rp["Kind"])
	}

	errs := []struct {
		props   map[string]any
		message string
	}{
		{map[string]any{"Nope": map[string]any{"rich_text": []any{}}}, "Nope is not a property that exists."},
		{map[string]any{"Source ID": map[string]any{"title": []any{}}}, "Source ID is expected to be rich_text."},
		{map[string]any{"Done": map[string]any{"checkbox": "yes"}}, "body.properties.Done.checkbox should be a boolean"},
		{map[string]any{"Count": map[string]any{"number": "7"}}, "body.properties.Count.number should be a number"},
		{map[string]any{"Modified": map[string]any{"date": map[string]any{"start": "yesterday"}}}, "valid ISO 8601"},
		{map[string]any{"Created": map[string]any{"created_time": "2026-01-01"}}, "read-only"},
		{map[string]any{"Source ID": map[string]any{"rich_text": []any{text(strings.Repeat("x", 2001))}}}, "text.content.length should be ≤ `2000`"},
	}
	for _, c := range errs {
		r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db}, "properties": c.props})
		if r.status != 400 || r.code() != "validation_error" || !strings.Contains(r.message(), c.message) {
			t.Errorf("props %v: %d %s, want message containing %q", c.props, r.status, r.raw, c.message)
		}
	}
	// A database without exactly one title property is rejected.
	r := e.do("POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"A": map[string]any{"rich_text": map[string]any{}}}})
	if r.status != 400 || r.code() != "validation_error" {
		t.Errorf("db without title: %d %s", r.status, r.raw)
	}
	// Adding a property later.
	upd := e.ok("PATCH", "/v1/databases/"+db, map[string]any{"properties": map[string]any{"Extra": map[string]any{"rich_text": map[string]any{}}}})
	if _, ok := upd["properties"].(map[string]any)["Extra"]; !ok {
		t.Errorf("property not added: %v", upd["properties"])
	}
}

// queryNames runs a query (following cursors with pageSize) and returns
// the row titles in order.
func queryNames(e *env, db string, body map[string]any, pageSize int) []string {
	e.t.Helper()
	var names []string
	cursor := ""
	for {
		b := map[string]any{"page_size": pageSize}
		for k, v := range body {
			b[k] = v
		}
		if cursor != "" {
			b["start_cursor"] = cursor
		}
		res := e.ok("POST", "/v1/databases/"+db+"/query", b)
		for _, r := range res["results"].([]any) {
			props := r.(map[string]any)["properties"].(map[string]any)
			names = append(names, plainText(props["Name"].(map[string]any)["title"].([]any)))
		}
		if res["has_more"] != true {
			return names
		}
		cursor = res["next_cursor"].(string)
	}
}

func TestDatabaseQuery(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	for i := range 120 {
		kind := ""
		if i%3 == 0 {
			kind = "page"
		}
		e.clock.Advance(time.Second)
		addRow(e, db, rowProps(fmt.Sprintf("Row %03d", i), fmt.Sprintf("src-%d", i), i%2 == 0, kind, float64(i%10)))
	}
	archived := addRow(e, db, rowProps("Archived row", "src-archived", true, "page", 1))
	e.ok("PATCH", "/v1/pages/"+archived, map[string]any{"archived": true})
	e.clock.Advance(time.Second)
	empty := addRow(e, db, map[string]any{"Name": map[string]any{"title": []any{text("No source")}}})
	_ = empty

	all := queryNames(e, db, nil, 50)
	if len(all) != 121 || all[0] != "Row 000" || all[119] != "Row 119" || all[120] != "No source" {
		t.Fatalf("all rows: %d %v…", len(all), all[:3])
	}
	// Pagination: 100 is the largest page.
	res := e.ok("POST", "/v1/databases/"+db+"/query", map[string]any{})
	if n := len(res["results"].([]any)); n != 100 || res["has_more"] != true {
		t.Errorf("default page: %d results, has_more %v", n, res["has_more"])
	}
	if r := e.do("POST", "/v1/databases/"+db+"/query", map[string]any{"page_size": 101}); r.status != 400 || r.code() != "validation_error" {
		t.Errorf("page_size 101: %d %s", r.status, r.raw)
	}
	if r := e.do("POST", "/v1/databases/"+db+"/query", map[string]any{"start_cursor": "bogus"}); r.status != 400 {
		t.Errorf("bad cursor: %d", r.status)
	}

	prop := func(name, typ string, cond map[string]any) map[string]any {
		return map[string]any{"filter": map[string]any{"property": name, typ: cond}}
	}
	cases := []struct {
		name  string
		body  map[string]any
		count int
		first string
	}{
		{"rich_text equals (idempotency lookup)", prop("Source ID", "rich_text", map[string]any{"equals": "src-42"}), 1, "Row 042"},
		{"title equals", prop("Name", "title", map[string]any{"equals": "Row 007"}), 1, "Row 007"},
		{"title contains", prop("Name", "title", map[string]any{"contains": "row 11"}), 10, "Row 110"},
		{"rich_text starts_with", prop("Source ID", "rich_text", map[string]any{"starts_with": "src-11"}), 11, "Row 011"},
		{"rich_text is_empty", prop("Source ID", "rich_text", map[string]any{"is_empty": true}), 1, "No source"},
		{"archived rows are excluded", prop("Source ID", "rich_text", map[string]any{"equals": "src-archived"}), 0, ""},
		{"checkbox equals", prop("Done", "checkbox", map[string]any{"equals": true}), 60, "Row 000"},
		{"select equals", prop("Kind", "select", map[string]any{"equals": "page"}), 40, "Row 000"},
		{"number equals", prop("Count", "number", map[string]any{"equals": 7}), 12, "Row 007"},
		{"and", map[string]any{"filter": map[string]any{"and": []any{
			map[string]any{"property": "Done", "checkbox": map[string]any{"equals": true}},
			map[string]any{"property": "Kind", "select": map[string]any{"equals": "page"}},
		}}}, 20, "Row 000"},
		{"or", map[string]any{"filter": map[string]any{"or": []any{
			map[string]any{"property": "Source ID", "rich_text": map[string]any{"equals": "src-5"}},
			map[string]any{"property": "Source ID", "rich_text": map[string]any{"equals": "src-6"}},
		}}}, 2, "Row 005"},
		{"sort by number descending", map[string]any{"sorts": []any{
			map[string]any{"property": "Count", "direction": "descending"},
			map[string]any{"property": "Name", "direction": "ascending"},
		}}, 121, "Row 009"},
		{"sort by created_time descending", map[string]any{"sorts": []any{
			map[string]any{"timestamp": "created_time", "direction": "descending"},
		}}, 121, "No source"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := queryNames(e, db, c.body, 100)
			if len(got) != c.count {
				t.Fatalf("%d rows, want %d: %v", len(got), c.count, got)
			}
			if c.count > 0 && got[0] != c.first {
				t.Errorf("first = %q, want %q", got[0], c.first)
			}
		})
	}
	bad := []map[string]any{
		prop("Nope", "rich_text", map[string]any{"equals": "x"}),
		prop("Done", "rich_text", map[string]any{"equals": "x"}),
		prop("Source ID", "rich_text", map[string]any{"equals": 3}),
		{"sorts": []any{map[string]any{"property": "Name", "direction": "sideways"}}},
	}
	for _, b := range bad {
		if r := e.do("POST", "/v1/databases/"+db+"/query", b); r.status != 400 || r.code() != "validation_error" {
			t.Errorf("query %v: %d %s", b, r.status, r.raw)
		}
	}
}
