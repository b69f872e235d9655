package notion

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSearchTokensAndStatsEndpoint(t *testing.T) {
	e := newEnv(t, Config{})
	e.createPage(e.srv.RootPageID(), "Alpha notes")
	e.createPage(e.srv.RootPageID(), "Beta notes")
	newSectionDB(e)
	res := e.ok("POST", "/v1/search", map[string]any{"query": "notes", "filter": map[string]any{"property": "object", "value": "page"}})
	if n := len(res["results"].([]any)); n != 2 {
		t.Errorf("search found %d pages, want 2", n)
	}
	res = e.ok("POST", "/v1/search", map[string]any{"filter": map[string]any{"property": "object", "value": "database"}})
	if n := len(res["results"].([]any)); n != 1 {
		t.Errorf("search found %d databases, want 1", n)
	}

	e.srv.AddToken("secret_fixed")
	if r := e.request("GET", "/v1/users/me", nil, map[string]string{"Authorization": "Bearer secret_fixed"}); r.status != 200 {
		t.Errorf("added token refused: %d", r.status)
	}
	if r := e.request("GET", "/v1/users/me", nil, map[string]string{"Authorization": ""}); r.status != 401 || r.code() != "unauthorized" {
		t.Errorf("no Authorization: %d", r.status)
	}
	e.srv.SetRate(1, 1)
	e.do("GET", "/v1/users/me", nil)
	if r := e.do("GET", "/v1/users/me", nil); r.status != 429 {
		t.Errorf("after SetRate(1,1): %d", r.status)
	}

	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("GET", "http://notion.test/_emulator/stats", nil))
	var st Stats
	if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
		t.Fatal(err)
	}
	if st.RateLimited != 1 || st.ByStatus[401] != 1 || st.Tokens[TokenFingerprint("secret_fixed")].Requests != 1 {
		t.Errorf("stats = %+v", st)
	}
	if body := rec.Body.String(); strings.Contains(body, "secret_fixed") || strings.Contains(body, e.token) {
		t.Errorf("stats endpoint shows a token: %s", body)
	}
	e.srv.ResetStats()
	if st := e.srv.Stats(); st.Requests != 0 || st.Tokens[e.token].Requests != 0 || len(e.srv.Requests(e.token)) != 0 {
		t.Errorf("after ResetStats: %+v", st)
	}
}

func TestDatabaseSchemaChangesAndPropertyTypes(t *testing.T) {
	e := newEnv(t, Config{})
	target := e.createPage(e.srv.RootPageID(), "Target")
	db := e.ok("POST", "/v1/databases", map[string]any{
		"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"title":  []any{text("Typed")},
		"properties": map[string]any{
			"Name":    map[string]any{"title": map[string]any{}},
			"Tags":    map[string]any{"multi_select": map[string]any{}},
			"Mail":    map[string]any{"email": map[string]any{}},
			"Related": map[string]any{"relation": map[string]any{"database_id": "11111111-1111-4111-8111-111111111111"}},
			"When":    map[string]any{"date": map[string]any{}},
			"Old":     map[string]any{"rich_text": map[string]any{}},
		},
	})["id"].(string)
	row := addRow(e, db, map[string]any{
		"Name":    map[string]any{"title": []any{text("r")}},
		"Tags":    map[string]any{"multi_select": []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}}},
		"Mail":    map[string]any{"email": "x@example.com"},
		"Related": map[string]any{"relation": []any{map[string]any{"id": target}}},
		"When":    map[string]any{"date": map[string]any{"start": "2026-01-02", "end": "2026-01-03"}},
		"Old":     map[string]any{"rich_text": []any{text("kept")}},
	})
	q := func(filter map[string]any) int {
		return len(e.ok("POST", "/v1/databases/"+db+"/query", map[string]any{"filter": filter})["results"].([]any))
	}
	if q(map[string]any{"property": "Tags", "multi_select": map[string]any{"contains": "b"}}) != 1 ||
		q(map[string]any{"property": "Related", "relation": map[string]any{"contains": target}}) != 1 ||
		q(map[string]any{"property": "When", "date": map[string]any{"on_or_after": "2026-01-01"}}) != 1 ||
		q(map[string]any{"property": "Mail", "email": map[string]any{"ends_with": "example.com"}}) != 1 ||
		q(map[string]any{"timestamp": "created_time", "created_time": map[string]any{"before": "2000-01-01"}}) != 0 {
		t.Error("typed filters do not match")
	}
	if r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"properties": map[string]any{"Mail": map[string]any{"email": strings.Repeat("m", 201)}}}); r.status != 400 {
		t.Errorf("email over 200: %d", r.status)
	}
	if r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"properties": map[string]any{"Tags": map[string]any{"multi_select": []any{map[string]any{"name": "a,b"}}}}}); r.status != 400 {
		t.Errorf("option with a comma: %d", r.status)
	}

	// Rename one property, remove another.
	e.ok("PATCH", "/v1/databases/"+db, map[string]any{"properties": map[string]any{
		"Old": map[string]any{"name": "Renamed"}, "Mail": nil}})
	props := e.ok("GET", "/v1/pages/"+row, nil)["properties"].(map[string]any)
	if _, ok := props["Mail"]; ok {
		t.Errorf("removed property still on rows: %v", props)
	}
	if plainText(props["Renamed"].(map[string]any)["rich_text"].([]any)) != "kept" {
		t.Errorf("renamed property lost its value: %v", props["Renamed"])
	}
	if r := e.do("PATCH", "/v1/databases/"+db, map[string]any{"properties": map[string]any{"Name": nil}}); r.status != 400 {
		t.Errorf("title removal accepted: %d", r.status)
	}
	// A mention of a database reads back with its title.
	p := e.createPage(e.srv.RootPageID(), "Mentions", block("paragraph", map[string]any{"rich_text": rt(map[string]any{
		"type": "mention", "mention": map[string]any{"type": "database", "database": map[string]any{"id": db}}})}))
	if got := blockText(e.listAll(p, 100)[0]); got != "Typed" {
		t.Errorf("database mention plain_text = %q", got)
	}
}

func TestTableUpdates(t *testing.T) {
	e := newEnv(t, Config{})
	page := e.createPage(e.srv.RootPageID(), "T", tableBlock(2, []int{2}))
	table := e.listAll(page, 100)[0]["id"].(string)
	row := e.listAll(table, 100)[0]["id"].(string)
	if r := e.do("PATCH", "/v1/blocks/"+row, map[string]any{"table_row": map[string]any{"cells": []any{rt(text("x"))}}}); r.status != 400 {
		t.Errorf("row narrowed: %d", r.status)
	}
	e.ok("PATCH", "/v1/blocks/"+row, map[string]any{"table_row": map[string]any{"cells": []any{rt(text("x")), rt(text("y"))}}})
	if r := e.do("PATCH", "/v1/blocks/"+table, map[string]any{"table": map[string]any{"table_width": 3}}); r.status != 400 {
		t.Errorf("table width changed: %d", r.status)
	}
	got := e.ok("PATCH", "/v1/blocks/"+table, map[string]any{"table": map[string]any{"has_row_header": true}})
	if tb := got["table"].(map[string]any); tb["has_row_header"] != true || tb["table_width"] != float64(2) {
		t.Errorf("table update: %v", tb)
	}
}

func TestAppliedFaultOnFailingWritePassesTheError(t *testing.T) {
	e := newEnv(t, Config{})
	e.srv.InjectFault(FaultAppliedThenInternalError, 1)
	r := e.do("PATCH", "/v1/blocks/"+e.srv.RootPageID()+"/children", map[string]any{"children": []any{block("hologram", map[string]any{})}})
	if r.status != 400 || r.code() != "validation_error" {
		t.Errorf("a rejected write should keep its own error: %d %s", r.status, r.raw)
	}
}
