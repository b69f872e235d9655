package notion

import "testing"

// TestMovePageBetweenDatabases: a row moved to another database keeps its
// ID, its content and the values its new schema has; the old database's
// query no longer returns it, the new one's does.
func TestMovePageBetweenDatabases(t *testing.T) {
	e := newEnv(t, Config{})
	from, to := newSectionDB(e), newSectionDB(e)
	row := addRow(e, from, rowProps("Moved page", "src-1", true, "page", 3))
	e.append(row, para("body text"))
	query := func(db string) []any {
		t.Helper()
		return e.ok("POST", "/v1/databases/"+db+"/query", map[string]any{})["results"].([]any)
	}
	for _, tc := range []struct {
		name   string
		parent map[string]any
		code   string
	}{
		{"unknown parent type", map[string]any{"type": "block_id", "block_id": to}, "validation_error"},
		{"unknown database", map[string]any{"type": "data_source_id", "data_source_id": "00000000-0000-4000-8000-000000000000"}, "object_not_found"},
	} {
		if r := e.do("POST", "/v1/pages/"+row+"/move", map[string]any{"parent": tc.parent}); r.code() != tc.code {
			t.Errorf("%s: %d %s, want %s", tc.name, r.status, r.code(), tc.code)
		}
	}
	moved := e.ok("POST", "/v1/pages/"+row+"/move", map[string]any{"parent": map[string]any{"type": "data_source_id", "data_source_id": to}})
	if moved["id"] != row {
		t.Fatalf("moved page id %v, want %s", moved["id"], row)
	}
	if p := moved["parent"].(map[string]any); p["database_id"] != to {
		t.Errorf("parent after the move: %v", p)
	}
	if n := len(query(from)); n != 0 {
		t.Errorf("the old database still lists %d rows", n)
	}
	rows := query(to)
	if len(rows) != 1 {
		t.Fatalf("the new database lists %d rows, want 1", len(rows))
	}
	props := rows[0].(map[string]any)["properties"].(map[string]any)
	if got := props["Count"].(map[string]any)["number"]; got != 3.0 {
		t.Errorf("Count after the move = %v, want 3", got)
	}
	if got := props["Done"].(map[string]any)["checkbox"]; got != true {
		t.Errorf("Done after the move = %v", got)
	}
	kids := e.listAll(row, 100)
	if len(kids) != 1 || blockText(kids[0]) != "body text" {
		t.Errorf("content after the move: %v", kids)
	}
	// Archived pages cannot move.
	e.ok("PATCH", "/v1/pages/"+row, map[string]any{"archived": true})
	if r := e.do("POST", "/v1/pages/"+row+"/move", map[string]any{"parent": map[string]any{"database_id": from}}); r.status != 400 {
		t.Errorf("moving an archived page: %d %s", r.status, r.code())
	}
}
