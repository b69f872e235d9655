package notion

import (
	"net/http"
	"testing"
)

// TestSuccessfulAnswersCarryRequestID: every successful API answer has a
// request_id, distinct per request ([N3]).
func TestSuccessfulAnswersCarryRequestID(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	page := e.createPage(root, "P")
	para0 := e.append(page, para("a"))[0].(map[string]any)["id"].(string)
	db := newSectionDB(e)
	up := e.createUpload(map[string]any{"filename": "a.png"})["id"].(string)
	cases := []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": root}, "properties": map[string]any{"title": rt(text("n"))}}},
		{"GET", "/v1/pages/" + page, nil},
		{"PATCH", "/v1/pages/" + page, map[string]any{"properties": map[string]any{"title": rt(text("Q"))}}},
		{"GET", "/v1/blocks/" + para0, nil},
		{"PATCH", "/v1/blocks/" + para0, map[string]any{"paragraph": map[string]any{"rich_text": rt(text("b"))}}},
		{"GET", "/v1/blocks/" + page + "/children", nil},
		{"PATCH", "/v1/blocks/" + page + "/children", map[string]any{"children": []any{para("c")}}},
		{"GET", "/v1/databases/" + db, nil},
		{"PATCH", "/v1/databases/" + db, map[string]any{"title": rt(text("D"))}},
		{"POST", "/v1/databases/" + db + "/query", map[string]any{}},
		{"POST", "/v1/search", map[string]any{}},
		{"GET", "/v1/users/me", nil},
		{"GET", "/v1/file_uploads/" + up, nil},
		{"GET", "/v1/file_uploads", nil},
		{"DELETE", "/v1/blocks/" + para0, nil},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		r := e.do(c.method, c.path, c.body)
		id := r.str("request_id")
		if r.status != http.StatusOK || id == "" || seen[id] {
			t.Errorf("%s %s: status %d, request_id %q (must be present and new)", c.method, c.path, r.status, id)
		}
		seen[id] = true
	}
}

// TestSchemaShapes: database property configurations and select options
// carry description (string or null); page select values are partial
// options without it ([N4]).
func TestSchemaShapes(t *testing.T) {
	e := newEnv(t, Config{})
	db := e.ok("POST", "/v1/databases", map[string]any{
		"parent":      map[string]any{"page_id": e.srv.RootPageID()},
		"title":       rt(text("DB")),
		"description": rt(text("about")),
		"properties": map[string]any{
			"Name": map[string]any{"title": map[string]any{}, "description": "the title"},
			"Kind": map[string]any{"select": map[string]any{"options": []any{
				map[string]any{"name": "a", "color": "blue"},
				map[string]any{"name": "b", "description": "option b"}}}},
			"Count": map[string]any{"number": map[string]any{}},
		},
	})
	if d := db["description"].([]any); len(d) != 1 || plainText(d) != "about" {
		t.Errorf("database description = %v", db["description"])
	}
	props := db["properties"].(map[string]any)
	wantDesc := map[string]any{"Name": "the title", "Kind": nil, "Count": nil}
	for name, want := range wantDesc {
		p := props[name].(map[string]any)
		got, ok := p["description"]
		if !ok || got != want {
			t.Errorf("property %s description = %v (present %v), want %v", name, got, ok, want)
		}
	}
	opts := props["Kind"].(map[string]any)["select"].(map[string]any)["options"].([]any)
	for i, want := range []any{nil, "option b"} {
		o := opts[i].(map[string]any)
		if got, ok := o["description"]; !ok || got != want {
			t.Errorf("option %d description = %v (present %v), want %v", i, got, ok, want)
		}
	}
	row := e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db["id"]},
		"properties": map[string]any{"Name": rt(text("r")), "Kind": map[string]any{"select": map[string]any{"name": "new one"}}}})
	val := row["properties"].(map[string]any)["Kind"].(map[string]any)["select"].(map[string]any)
	if _, ok := val["description"]; ok || val["name"] != "new one" || val["color"] != "default" || val["id"] == nil {
		t.Errorf("page select value = %v, want id, name, color only", val)
	}
	got := e.ok("GET", "/v1/databases/"+db["id"].(string), nil)
	opts = got["properties"].(map[string]any)["Kind"].(map[string]any)["select"].(map[string]any)["options"].([]any)
	if len(opts) != 3 || opts[2].(map[string]any)["description"] != nil {
		t.Errorf("option created by a write: %v", opts)
	}
	if r := e.do("PATCH", "/v1/databases/"+db["id"].(string), map[string]any{"properties": map[string]any{
		"Bad": map[string]any{"select": map[string]any{"options": []any{map[string]any{"name": "x", "color": "red_background"}}}}}}); r.status != 400 {
		t.Errorf("select option with a background colour: %d, want 400", r.status)
	}
}

// TestUploadURLsAbsentNotNull: upload_url and complete_url are strings
// while they can be used and absent afterwards, never null ([N4], [S]);
// file uploads have no in_trash.
func TestUploadURLsAbsentNotNull(t *testing.T) {
	e := newEnv(t, Config{})
	single := e.createUpload(map[string]any{"filename": "a.png"})
	multi := e.createUpload(map[string]any{"mode": "multi_part", "filename": "b.pdf", "number_of_parts": 2})
	done := e.ok("GET", "/v1/file_uploads/"+e.uploadFile("c.png", []byte("\x89PNG\r\n\x1a\nx")), nil)
	cases := []struct {
		name                string
		obj                 map[string]any
		hasUpload, complete bool
	}{
		{"pending single_part", single, true, false},
		{"pending multi_part", multi, true, true},
		{"uploaded", done, false, false},
	}
	for _, c := range cases {
		if _, ok := c.obj["in_trash"]; ok {
			t.Errorf("%s: a file upload has no in_trash ([N4])", c.name)
		}
		for key, want := range map[string]bool{"upload_url": c.hasUpload, "complete_url": c.complete} {
			v, present := c.obj[key]
			if present != want {
				t.Errorf("%s: %s present = %v, want %v", c.name, key, present, want)
			}
			if present {
				if _, ok := v.(string); !ok {
					t.Errorf("%s: %s = %v, want a string", c.name, key, v)
				}
			}
		}
	}
}

// TestFileBlockAlwaysNamed: a file block's name is a string in every
// answer ([N4]), from the request, the upload or the URL.
func TestFileBlockAlwaysNamed(t *testing.T) {
	e := newEnv(t, Config{})
	up := e.uploadFile("notes.pdf", []byte("%PDF-1.4 x"))
	made := e.append(e.srv.RootPageID(),
		block("file", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/docs/Report%20Q1.docx"}}),
		block("file", map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": up}}),
		block("file", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/x"}, "name": "given"}),
	)
	for i, want := range []string{"Report Q1.docx", "notes.pdf", "given"} {
		f := made[i].(map[string]any)["file"].(map[string]any)
		if f["name"] != want {
			t.Errorf("file block %d: name = %v, want %q", i, f["name"], want)
		}
	}
}

// TestMentionShapes: user mentions are partial users (with object
// "user") and date mentions always have end and time_zone ([N4]).
func TestMentionShapes(t *testing.T) {
	e := newEnv(t, Config{})
	mention := func(m map[string]any) map[string]any { return map[string]any{"type": "mention", "mention": m} }
	made := e.append(e.srv.RootPageID(), block("paragraph", map[string]any{"rich_text": rt(
		mention(map[string]any{"type": "user", "user": map[string]any{"id": e.srv.BotID()}}),
		mention(map[string]any{"type": "date", "date": map[string]any{"start": "2026-11-01"}}),
	)}))
	items := made[0].(map[string]any)["paragraph"].(map[string]any)["rich_text"].([]any)
	user := items[0].(map[string]any)["mention"].(map[string]any)["user"].(map[string]any)
	if user["object"] != "user" || user["id"] != e.srv.BotID() {
		t.Errorf("user mention = %v", user)
	}
	date := items[1].(map[string]any)["mention"].(map[string]any)["date"].(map[string]any)
	if v, ok := date["end"]; !ok || v != nil {
		t.Errorf("date mention end = %v (present %v), want null", v, ok)
	}
	if v, ok := date["time_zone"]; !ok || v != nil {
		t.Errorf("date mention time_zone = %v (present %v), want null", v, ok)
	}
}

// TestCustomEmojiIcon: a custom emoji icon answers with id, name and url
// ([N4]); its id must be a UUID.
func TestCustomEmojiIcon(t *testing.T) {
	e := newEnv(t, Config{})
	const id = "0123456789abcdef0123456789abcdef"
	page := e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"title": rt(text("P"))},
		"icon":       map[string]any{"type": "custom_emoji", "custom_emoji": map[string]any{"id": id}}})
	ce := page["icon"].(map[string]any)["custom_emoji"].(map[string]any)
	if ce["id"] != "01234567-89ab-cdef-0123-456789abcdef" || ce["name"] != "" || ce["url"] != "" {
		t.Errorf("custom emoji = %v, want id, name and url", ce)
	}
	r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"icon": map[string]any{"type": "custom_emoji", "custom_emoji": map[string]any{"id": "smile"}}})
	if r.status != 400 {
		t.Errorf("custom emoji with a bad id: %d", r.status)
	}
}
