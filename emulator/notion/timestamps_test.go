package notion

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestTimestampsRoundedToMinute: created_time and last_edited_time of
// pages, blocks, databases, rows (and their created_time properties) and
// file uploads are rounded down to the minute ([N5]).
func TestTimestampsRoundedToMinute(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	e.clock.Advance(5*time.Second + 123*time.Millisecond) // 12:00:05.123
	page := e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": root},
		"properties": map[string]any{"title": rt(text("P"))}, "children": []any{para("a")}})
	db := newSectionDB(e)
	e.clock.Advance(40 * time.Second) // 12:00:45.123
	row := e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"properties": rowProps("r", "s", false, "", 1)})
	up := e.ok("POST", "/v1/file_uploads", map[string]any{"filename": "a.png"})
	e.clock.Advance(90 * time.Second) // 12:02:15.123
	edited := e.ok("PATCH", "/v1/pages/"+page["id"].(string), map[string]any{"properties": map[string]any{"title": rt(text("Q"))}})
	blocks := e.listAll(page["id"].(string), 100)

	const created, later = "2026-11-01T12:00:00.000Z", "2026-11-01T12:02:00.000Z"
	checks := []struct {
		name    string
		obj     map[string]any
		c, edit string
	}{
		{"page on create", page, created, created},
		{"page after update", edited, created, later},
		{"block", blocks[0], created, created},
		{"database", e.ok("GET", "/v1/databases/"+db, nil), created, created},
		{"row", row, created, created},
		{"file upload", up, created, created},
	}
	for _, c := range checks {
		if c.obj["created_time"] != c.c || c.obj["last_edited_time"] != c.edit {
			t.Errorf("%s: created_time %v, last_edited_time %v; want %s, %s", c.name, c.obj["created_time"], c.obj["last_edited_time"], c.c, c.edit)
		}
	}
	prop := row["properties"].(map[string]any)["Created"].(map[string]any)["created_time"]
	if prop != created {
		t.Errorf("created_time property = %v, want %s", prop, created)
	}
	if exp := up["expiry_time"]; exp != "2026-11-01T13:00:45.123Z" {
		t.Errorf("expiry_time = %v: expiry stays exact (created + 1 h)", exp)
	}
}

// TestTimestampTies: rows made in the same minute tie on created_time.
// Sorted on it, tied rows come in ascending page-ID order (stable, not by
// the hidden sub-minute time), in both directions; filters compare the
// rounded value.
func TestTimestampTies(t *testing.T) {
	e := newEnv(t, Config{})
	db := newSectionDB(e)
	var sameMinute []string
	for i := range 6 {
		e.clock.Advance(7 * time.Second) // 12:00:07 … 12:00:42
		sameMinute = append(sameMinute, addRow(e, db, rowProps("r", "s", false, "", float64(i))))
	}
	e.clock.Advance(time.Minute) // 12:01:42
	last := addRow(e, db, rowProps("r", "s", false, "", 9))
	byID := slices.Clone(sameMinute)
	slices.Sort(byID)
	if slices.Equal(byID, sameMinute) {
		t.Fatal("fixture: IDs happen to be in creation order; the tie-break would not be visible")
	}
	query := func(body map[string]any) []string {
		res := e.ok("POST", "/v1/databases/"+db+"/query", body)
		var ids []string
		for _, r := range res["results"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		return ids
	}
	asc := map[string]any{"sorts": []any{map[string]any{"timestamp": "created_time", "direction": "ascending"}}}
	desc := map[string]any{"sorts": []any{map[string]any{"timestamp": "created_time", "direction": "descending"}}}
	byProp := map[string]any{"sorts": []any{map[string]any{"property": "Created", "direction": "ascending"}}}
	cases := []struct {
		name string
		body map[string]any
		want []string
	}{
		{"ascending: ties by ID, then the later minute", asc, append(slices.Clone(byID), last)},
		{"descending: later minute first, ties still by ID", desc, append([]string{last}, byID...)},
		{"sort on the created_time property", byProp, append(slices.Clone(byID), last)},
		{"no sort: creation order", map[string]any{}, append(slices.Clone(sameMinute), last)},
		{"on_or_after a time inside the minute excludes the whole minute",
			map[string]any{"filter": map[string]any{"timestamp": "created_time", "created_time": map[string]any{"on_or_after": "2026-11-01T12:00:30Z"}}},
			[]string{last}},
		{"equals the minute matches every row of it",
			map[string]any{"filter": map[string]any{"timestamp": "created_time", "created_time": map[string]any{"equals": "2026-11-01T12:00:00Z"}}},
			sameMinute},
		{"before the next minute",
			map[string]any{"filter": map[string]any{"property": "Created", "date": map[string]any{"before": "2026-11-01T12:01:00.000Z"}}},
			sameMinute},
		{"a date matches its whole day",
			map[string]any{"filter": map[string]any{"timestamp": "created_time", "created_time": map[string]any{"equals": "2026-11-01"}}},
			append(slices.Clone(sameMinute), last)},
		{"after a date excludes that day",
			map[string]any{"filter": map[string]any{"timestamp": "created_time", "created_time": map[string]any{"after": "2026-11-01"}}},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			first := query(c.body)
			if !slices.Equal(first, c.want) {
				t.Errorf("got  %s\nwant %s", strings.Join(first, " "), strings.Join(c.want, " "))
			}
			if again := query(c.body); !slices.Equal(again, first) {
				t.Errorf("order not stable between queries")
			}
		})
	}
}

// TestSearchSortByMinute: search sorts on last_edited_time as kept (to
// the minute); pages edited in the same minute come by ID.
func TestSearchSortByMinute(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	e.clock.Advance(time.Minute)
	a := e.createPage(root, "memo a")
	e.clock.Advance(20 * time.Second)
	b := e.createPage(root, "memo b")
	e.clock.Advance(time.Minute)
	c := e.createPage(root, "memo c")
	first, second := a, b
	if b < a {
		first, second = b, a
	}
	ids := func(body map[string]any) []string {
		var out []string
		for _, r := range e.ok("POST", "/v1/search", body)["results"].([]any) {
			out = append(out, r.(map[string]any)["id"].(string))
		}
		return out
	}
	q := map[string]any{"query": "memo"}
	if got, want := ids(q), []string{c, first, second}; !slices.Equal(got, want) {
		t.Errorf("default order %v, want %v", got, want)
	}
	q["sort"] = map[string]any{"timestamp": "last_edited_time", "direction": "ascending"}
	if got, want := ids(q), []string{first, second, c}; !slices.Equal(got, want) {
		t.Errorf("ascending %v, want %v", got, want)
	}
	q["sort"] = map[string]any{"timestamp": "created_time", "direction": "ascending"}
	if r := e.do("POST", "/v1/search", q); r.status != 400 {
		t.Errorf("sort on created_time: %d, want 400", r.status)
	}
}
