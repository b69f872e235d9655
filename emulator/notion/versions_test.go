package notion

import (
	"net/http"
	"strings"
	"testing"
)

// at sends a request with Notion-Version v.
func (e *env) at(v, method, path string, body any) response {
	e.t.Helper()
	return e.request(method, path, body, map[string]string{"Notion-Version": v})
}

func (e *env) okAt(v, method, path string, body any) map[string]any {
	e.t.Helper()
	r := e.at(v, method, path, body)
	if r.status != http.StatusOK {
		e.t.Fatalf("%s %s (%s): status %d: %s", method, path, v, r.status, r.raw)
	}
	return r.body
}

// newSourceDB creates a database on version v (its schema where v puts
// it) and returns its ID and its data source's ID.
func newSourceDB(e *env, v string) (db, ds string) {
	e.t.Helper()
	props := map[string]any{"Name": map[string]any{"title": map[string]any{}},
		"Order": map[string]any{"number": map[string]any{}}, "Secret": map[string]any{"rich_text": map[string]any{}}}
	body := map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()}, "title": []any{text("Section")}}
	if dataSources(v) {
		body["initial_data_source"] = map[string]any{"properties": props}
	} else {
		body["properties"] = props
	}
	got := e.okAt(v, "POST", "/v1/databases", body)
	db = got["id"].(string)
	src := e.okAt(Version20250903, "GET", "/v1/databases/"+db, nil)["data_sources"].([]any)
	return db, src[0].(map[string]any)["id"].(string)
}

func TestVersionsRefuseWhatTheyDoNotSpeak(t *testing.T) {
	e := newEnv(t, Config{})
	db, ds := newSourceDB(e, Version20260311)
	page := e.createPage(e.srv.RootPageID(), "P", para("x"))
	schema := map[string]any{"Name": map[string]any{"title": map[string]any{}}}
	cases := []struct {
		name, version, method, path string
		body                        any
		status                      int
		message                     string
	}{
		{"archived on a page, 2026-03-11", Version20260311, "PATCH", "/v1/pages/" + page, map[string]any{"archived": true}, 400, "body.archived should be not present"},
		{"archived on a block, 2026-03-11", Version20260311, "PATCH", "/v1/blocks/" + page, map[string]any{"archived": false}, 400, "body.archived should be not present"},
		{"archived on a database, 2026-03-11", Version20260311, "PATCH", "/v1/databases/" + db, map[string]any{"archived": false}, 400, "body.archived should be not present"},
		{"after on append, 2026-03-11", Version20260311, "PATCH", "/v1/blocks/" + page + "/children", map[string]any{"children": []any{para("y")}, "after": page}, 400, "after"},
		{"position on append, 2025-09-03", Version20250903, "PATCH", "/v1/blocks/" + page + "/children", map[string]any{"children": []any{para("y")}, "position": map[string]any{"type": "start"}}, 400, "position"},
		{"in_trash in a data source query, 2026-03-11", Version20260311, "POST", "/v1/data_sources/" + ds + "/query", map[string]any{"in_trash": false}, 400, "body.in_trash should be not present"},
		{"properties on database create, 2025-09-03", Version20250903, "POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()}, "properties": schema}, 400, "properties"},
		{"initial_data_source on 2022-06-28", Version20220628, "POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()}, "initial_data_source": map[string]any{"properties": schema}}, 400, "initial_data_source"},
		{"database query on 2025-09-03", Version20250903, "POST", "/v1/databases/" + db + "/query", map[string]any{}, 400, "Invalid request URL"},
		{"data sources on 2022-06-28", Version20220628, "GET", "/v1/data_sources/" + ds, nil, 400, "Invalid request URL"},
		{"views on 2022-06-28", Version20220628, "GET", "/v1/views?database_id=" + db, nil, 400, "Invalid request URL"},
		{"data_source_id parent on 2022-06-28", Version20220628, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"data_source_id": ds}, "properties": map[string]any{}}, 400, "body.parent.type"},
		{"database schema change on 2025-09-03", Version20250903, "PATCH", "/v1/databases/" + db, map[string]any{"properties": map[string]any{"X": map[string]any{"checkbox": map[string]any{}}}}, 400, "properties"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.at(c.version, c.method, c.path, c.body)
			if r.status != c.status || !strings.Contains(r.message(), c.message) {
				t.Fatalf("status %d %q, want %d containing %q", r.status, r.message(), c.status, c.message)
			}
		})
	}
}

func TestVersionShapes(t *testing.T) {
	e := newEnv(t, Config{})
	db, ds := newSourceDB(e, Version20260311)
	row := e.okAt(Version20260311, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"type": "data_source_id", "data_source_id": ds},
		"properties": map[string]any{"Name": map[string]any{"title": []any{text("Row")}}}})
	id := row["id"].(string)
	if _, ok := row["archived"]; ok {
		t.Errorf("2026-03-11 page carries archived: %v", row)
	}
	if p := row["parent"].(map[string]any); p["type"] != "data_source_id" || p["data_source_id"] != ds || p["database_id"] != db {
		t.Errorf("2026-03-11 row parent = %v, want data source %s of %s", p, ds, db)
	}
	old := e.okAt(Version20220628, "GET", "/v1/pages/"+id, nil)
	if p := old["parent"].(map[string]any); p["type"] != "database_id" || p["database_id"] != db || old["archived"] != false {
		t.Errorf("2022-06-28 row = parent %v archived %v, want database %s", p, old["archived"], db)
	}
	d := e.okAt(Version20220628, "GET", "/v1/databases/"+db, nil)
	if _, ok := d["properties"].(map[string]any)["Order"]; !ok || d["data_sources"] != nil {
		t.Errorf("2022-06-28 database = %v, want its data source's properties", d)
	}
	d = e.okAt(Version20250903, "GET", "/v1/databases/"+db, nil)
	if _, ok := d["properties"]; ok || len(d["data_sources"].([]any)) != 1 {
		t.Errorf("2025-09-03 database = %v, want data_sources and no properties", d)
	}
	src := e.okAt(Version20260311, "GET", "/v1/data_sources/"+ds, nil)
	if src["object"] != "data_source" || src["parent"].(map[string]any)["database_id"] != db {
		t.Errorf("data source = %v", src)
	}
	q := e.okAt(Version20260311, "POST", "/v1/data_sources/"+ds+"/query", map[string]any{})
	if n := len(q["results"].([]any)); n != 1 {
		t.Errorf("data source query: %d rows, want 1", n)
	}
	trashed := e.okAt(Version20260311, "PATCH", "/v1/pages/"+id, map[string]any{"in_trash": true})
	if trashed["in_trash"] != true {
		t.Errorf("in_trash not applied: %v", trashed)
	}
	// position: start puts the new block first.
	page := e.createPage(e.srv.RootPageID(), "P", para("second"))
	e.okAt(Version20260311, "PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{para("first")},
		"position": map[string]any{"type": "start"}})
	kids := e.okAt(Version20260311, "GET", "/v1/blocks/"+page+"/children", nil)["results"].([]any)
	first := kids[0].(map[string]any)["paragraph"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)["plain_text"]
	if len(kids) != 2 || first != "first" {
		t.Errorf("position start: children %d, first %v", len(kids), first)
	}
}

// TestSecondDataSource: once a person adds a data source, the old version
// fails on the database (upgrade guide 2025-09-03) while the first data
// source keeps working by its ID.
func TestSecondDataSource(t *testing.T) {
	e := newEnv(t, Config{})
	db, ds := newSourceDB(e, Version20220628)
	e.okAt(Version20220628, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"properties": map[string]any{"Name": map[string]any{"title": []any{text("Before")}}}})
	e.okAt(Version20250903, "POST", "/v1/data_sources", map[string]any{"parent": map[string]any{"type": "database_id", "database_id": db},
		"title": []any{text("Another")}, "properties": map[string]any{"Title": map[string]any{"title": map[string]any{}}}})
	refused := []struct{ method, path string }{
		{"POST", "/v1/pages"}, {"GET", "/v1/databases/" + db}, {"POST", "/v1/databases/" + db + "/query"}, {"PATCH", "/v1/databases/" + db},
	}
	for _, r := range refused {
		body := map[string]any{}
		if r.path == "/v1/pages" {
			body = map[string]any{"parent": map[string]any{"database_id": db}, "properties": map[string]any{}}
		}
		got := e.at(Version20220628, r.method, r.path, body)
		if got.status != 400 || !strings.Contains(got.message(), "multiple data sources") {
			t.Errorf("2022-06-28 %s %s: %d %s, want 400 naming multiple data sources", r.method, r.path, got.status, got.message())
		}
	}
	rel := e.at(Version20220628, "POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}},
			"Link": map[string]any{"relation": map[string]any{"database_id": db, "single_property": map[string]any{}}}}})
	if rel.status != 400 {
		t.Errorf("2022-06-28 relation to a multi-source database: %d, want 400", rel.status)
	}
	e.okAt(Version20260311, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"data_source_id": ds},
		"properties": map[string]any{"Name": map[string]any{"title": []any{text("After")}}}})
	q := e.okAt(Version20260311, "POST", "/v1/data_sources/"+ds+"/query", map[string]any{})
	if n := len(q["results"].([]any)); n != 2 {
		t.Errorf("first data source holds %d rows, want 2", n)
	}
	if n := len(e.okAt(Version20260311, "GET", "/v1/databases/"+db, nil)["data_sources"].([]any)); n != 2 {
		t.Errorf("database lists %d data sources, want 2", n)
	}
}

func TestViews(t *testing.T) {
	e := newEnv(t, Config{})
	db, ds := newSourceDB(e, Version20260311)
	for i, name := range []string{"B", "C", "A"} {
		e.okAt(Version20260311, "POST", "/v1/pages", map[string]any{"parent": map[string]any{"data_source_id": ds},
			"properties": map[string]any{"Name": map[string]any{"title": []any{text(name)}}, "Order": map[string]any{"number": 3 - i},
				"Secret": map[string]any{"rich_text": []any{text("hidden-" + name)}}}})
	}
	views := e.okAt(Version20260311, "GET", "/v1/views?database_id="+db, nil)["results"].([]any)
	if len(views) != 1 {
		t.Fatalf("a new database has %d views, want its default one", len(views))
	}
	src := e.okAt(Version20260311, "GET", "/v1/data_sources/"+ds, nil)["properties"].(map[string]any)
	pid := func(name string) string { return src[name].(map[string]any)["id"].(string) }
	created := e.okAt(Version20260311, "POST", "/v1/views", map[string]any{"data_source_id": ds, "database_id": db, "name": "In order",
		"type": "table", "sorts": []any{map[string]any{"property": "Order", "direction": "ascending"}},
		"configuration": map[string]any{"type": "table", "properties": []any{
			map[string]any{"property_id": pid("Name"), "visible": true}, map[string]any{"property_id": pid("Order"), "visible": true},
			map[string]any{"property_id": pid("Secret"), "visible": false}}},
		"position": map[string]any{"type": "start"}})
	if s := created["sorts"].([]any)[0].(map[string]any); s["property"] != "Order" {
		t.Errorf("view sorts = %v", created["sorts"])
	}
	bad := e.at(Version20260311, "POST", "/v1/views", map[string]any{"data_source_id": ds, "name": "x", "type": "table",
		"sorts": []any{map[string]any{"property": "Nope", "direction": "ascending"}}})
	if bad.status != 400 {
		t.Errorf("sort by a missing property: %d, want 400", bad.status)
	}
	// The HTML view shows the first view: sorted, Secret hidden.
	rec := e.request("GET", "/_emulator/view/"+db, nil, nil)
	html := string(rec.raw)
	if strings.Contains(html, "hidden-A") || strings.Contains(html, ">Secret<") {
		t.Errorf("HTML view shows a hidden property")
	}
	a, b, c := strings.Index(html, ">A<"), strings.Index(html, ">B<"), strings.Index(html, ">C<")
	if !(a >= 0 && a < c && c < b) || !strings.Contains(html, "View: In order") {
		t.Errorf("HTML view rows not in Order (A, C, B): A@%d C@%d B@%d", a, c, b)
	}
	// Renaming the sort property keeps the view working.
	e.okAt(Version20260311, "PATCH", "/v1/data_sources/"+ds, map[string]any{"properties": map[string]any{"Order": map[string]any{"name": "Position"}}})
	got := e.okAt(Version20260311, "GET", "/v1/views/"+created["id"].(string), nil)
	if s := got["sorts"].([]any)[0].(map[string]any); s["property"] != "Position" {
		t.Errorf("after a rename, sorts = %v", got["sorts"])
	}
	e.okAt(Version20260311, "DELETE", "/v1/views/"+created["id"].(string), nil)
	if n := len(e.okAt(Version20260311, "GET", "/v1/views?data_source_id="+ds, nil)["results"].([]any)); n != 1 {
		t.Errorf("after delete, %d views", n)
	}
}
