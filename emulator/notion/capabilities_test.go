package notion

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCapabilities checks each endpoint against each missing capability:
// an endpoint that needs what the token lacks answers 403
// restricted_resource and changes nothing; the others still work.
func TestCapabilities(t *testing.T) {
	type endpoint struct {
		name   string
		method string
		path   func(ids map[string]string) string
		body   func(ids map[string]string) any
		needs  string // "read_content", "insert_content", "update_content" or ""
	}
	endpoints := []endpoint{
		{"create page", "POST", fixed("/v1/pages"), func(ids map[string]string) any {
			return map[string]any{"parent": map[string]any{"page_id": ids["root"]}, "properties": map[string]any{"title": rt(text("n"))}}
		}, "insert_content"},
		{"append children", "PATCH", func(ids map[string]string) string { return "/v1/blocks/" + ids["page"] + "/children" },
			func(map[string]string) any { return map[string]any{"children": []any{para("x")}} }, "insert_content"},
		{"create database", "POST", fixed("/v1/databases"), func(ids map[string]string) any {
			return map[string]any{"parent": map[string]any{"page_id": ids["root"]}, "properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}}
		}, "insert_content"},
		{"create file upload", "POST", fixed("/v1/file_uploads"), func(map[string]string) any {
			return map[string]any{"filename": "a.png"}
		}, "insert_content"},
		{"update page", "PATCH", func(ids map[string]string) string { return "/v1/pages/" + ids["page"] },
			func(map[string]string) any {
				return map[string]any{"properties": map[string]any{"title": rt(text("new"))}}
			}, "update_content"},
		{"update block", "PATCH", func(ids map[string]string) string { return "/v1/blocks/" + ids["para"] },
			func(map[string]string) any {
				return map[string]any{"paragraph": map[string]any{"rich_text": rt(text("new"))}}
			}, "update_content"},
		{"delete block", "DELETE", func(ids map[string]string) string { return "/v1/blocks/" + ids["para"] }, nil, "update_content"},
		{"update database", "PATCH", func(ids map[string]string) string { return "/v1/databases/" + ids["db"] },
			func(map[string]string) any { return map[string]any{"title": rt(text("new"))} }, "update_content"},
		{"retrieve page", "GET", func(ids map[string]string) string { return "/v1/pages/" + ids["page"] }, nil, "read_content"},
		{"retrieve block", "GET", func(ids map[string]string) string { return "/v1/blocks/" + ids["para"] }, nil, "read_content"},
		{"list children", "GET", func(ids map[string]string) string { return "/v1/blocks/" + ids["page"] + "/children" }, nil, "read_content"},
		{"retrieve database", "GET", func(ids map[string]string) string { return "/v1/databases/" + ids["db"] }, nil, "read_content"},
		{"query database", "POST", func(ids map[string]string) string { return "/v1/databases/" + ids["db"] + "/query" },
			func(map[string]string) any { return map[string]any{} }, "read_content"},
		{"search", "POST", fixed("/v1/search"), func(map[string]string) any { return map[string]any{"query": "P"} }, "read_content"},
		{"users/me", "GET", fixed("/v1/users/me"), nil, ""},
	}
	for _, missing := range []string{"read_content", "insert_content", "update_content"} {
		for _, ep := range endpoints {
			t.Run(missing+"/"+ep.name, func(t *testing.T) {
				e := newEnv(t, Config{})
				ids := map[string]string{"root": e.srv.RootPageID()}
				ids["page"] = e.createPage(ids["root"], "Page")
				ids["para"] = e.append(ids["page"], para("p"))[0].(map[string]any)["id"].(string)
				ids["db"] = newSectionDB(e)
				caps := AllCapabilities()
				switch missing {
				case "read_content":
					caps.ReadContent = false
				case "insert_content":
					caps.InsertContent = false
				case "update_content":
					caps.UpdateContent = false
				}
				if err := e.srv.SetCapabilities(e.token, caps); err != nil {
					t.Fatal(err)
				}
				before := e.srv.Export()
				var body any
				if ep.body != nil {
					body = ep.body(ids)
				}
				r := e.do(ep.method, ep.path(ids), body)
				if ep.needs == missing {
					if r.status != http.StatusForbidden || r.code() != codeRestricted || r.str("request_id") == "" {
						t.Fatalf("got %d %s, want 403 restricted_resource: %s", r.status, r.code(), r.raw)
					}
					after := e.srv.Export()
					before.Stats, after.Stats = Stats{}, Stats{}
					if d := diffJSON(before, after); d != "" {
						t.Errorf("a refused request changed the workspace: %s", d)
					}
					return
				}
				if r.status != http.StatusOK {
					t.Fatalf("got %d, want 200: %s", r.status, r.raw)
				}
			})
		}
	}
}

func fixed(p string) func(map[string]string) string {
	return func(map[string]string) string { return p }
}

func TestParseCapabilities(t *testing.T) {
	cases := []struct {
		in   string
		want []string
		err  bool
	}{
		{"read_content", []string{"read_content"}, false},
		{"read_content+insert_content", []string{"read_content", "insert_content"}, false},
		{"update_content,read_comments", []string{"update_content", "read_comments"}, false},
		{"none", []string{}, false},
		{"", []string{}, false},
		{"write", nil, true},
	}
	for _, c := range cases {
		got, err := ParseCapabilities(c.in)
		if (err != nil) != c.err {
			t.Errorf("%q: err = %v", c.in, err)
			continue
		}
		if !c.err && strings.Join(got.Names(), ",") != strings.Join(c.want, ",") {
			t.Errorf("%q: %v, want %v", c.in, got.Names(), c.want)
		}
	}
}

// TestCapabilitiesControlAPI switches a token's capabilities through
// PUT /_emulator/capabilities, naming it by fingerprint.
func TestCapabilitiesControlAPI(t *testing.T) {
	e := newEnv(t, Config{})
	put := func(body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		e.srv.ServeHTTP(rec, httptest.NewRequest("PUT", "http://notion.test/_emulator/capabilities", strings.NewReader(body)))
		return rec
	}
	rec := put(`{"token":"` + TokenFingerprint(e.token) + `","capabilities":["read_content"]}`)
	if rec.Code != 200 || strings.Contains(rec.Body.String(), e.token) {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
	}
	var out struct {
		Tokens []capabilitiesJSON `json:"tokens"`
	}
	json.Unmarshal(rec.Body.Bytes(), &out)
	if len(out.Tokens) != 1 || strings.Join(out.Tokens[0].Capabilities, ",") != "read_content" {
		t.Errorf("answer = %s", rec.Body)
	}
	if r := e.do("PATCH", "/v1/blocks/"+e.srv.RootPageID()+"/children", map[string]any{"children": []any{para("x")}}); r.status != 403 {
		t.Errorf("append after PUT read_content only: %d", r.status)
	}
	if r := e.do("GET", "/v1/blocks/"+e.srv.RootPageID()+"/children", nil); r.status != 200 {
		t.Errorf("list after PUT read_content only: %d", r.status)
	}
	if rec := put(`{"token":"0000000000000000","capabilities":[]}`); rec.Code != 404 {
		t.Errorf("unknown fingerprint: %d", rec.Code)
	}
	if rec := put(`{"token":"` + TokenFingerprint(e.token) + `","capabilities":["everything"]}`); rec.Code != 400 {
		t.Errorf("unknown capability: %d", rec.Code)
	}
	if err := e.srv.SetCapabilities("secret_unknown", Capabilities{}); err == nil || strings.Contains(err.Error(), "secret_unknown") {
		t.Errorf("SetCapabilities on an unknown token: %v", err)
	}
}

// TestUnsharedObjectsAreNotFound: pages, their blocks and databases that
// are not shared with the integration answer 404 object_not_found on every
// endpoint, exactly like objects that do not exist.
func TestUnsharedObjectsAreNotFound(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	page := e.createPage(root, "Soon private")
	blockID := e.append(page, para("p"))[0].(map[string]any)["id"].(string)
	db := e.ok("POST", "/v1/databases", map[string]any{"parent": map[string]any{"page_id": page},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}})["id"].(string)
	private, err := e.srv.AddPage("", "Private", false)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.srv.SetShared(page, false); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, method, path string
		body               any
	}{
		{"retrieve page", "GET", "/v1/pages/" + page, nil},
		{"retrieve private workspace page", "GET", "/v1/pages/" + private, nil},
		{"update page", "PATCH", "/v1/pages/" + page, map[string]any{"archived": true}},
		{"retrieve block of unshared page", "GET", "/v1/blocks/" + blockID, nil},
		{"update block of unshared page", "PATCH", "/v1/blocks/" + blockID, map[string]any{"paragraph": map[string]any{"rich_text": rt(text("x"))}}},
		{"delete block of unshared page", "DELETE", "/v1/blocks/" + blockID, nil},
		{"list children", "GET", "/v1/blocks/" + page + "/children", nil},
		{"append children", "PATCH", "/v1/blocks/" + page + "/children", map[string]any{"children": []any{para("x")}}},
		{"create page under it", "POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": page}, "properties": map[string]any{"title": rt(text("x"))}}},
		{"retrieve database in it", "GET", "/v1/databases/" + db, nil},
		{"query database in it", "POST", "/v1/databases/" + db + "/query", map[string]any{}},
		{"create row in its database", "POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db}, "properties": map[string]any{}}},
		{"page that never existed", "GET", "/v1/pages/0123456789abcdef0123456789abcdef", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do(c.method, c.path, c.body)
			if r.status != http.StatusNotFound || r.code() != codeNotFound || !strings.Contains(r.message(), "shared with your integration") {
				t.Errorf("got %d %s %q, want 404 object_not_found", r.status, r.code(), r.message())
			}
		})
	}
	res := e.ok("POST", "/v1/search", map[string]any{"query": "private"})
	if n := len(res["results"].([]any)); n != 0 {
		t.Errorf("search finds %d unshared objects", n)
	}
	if err := e.srv.SetShared(page, true); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", "/v1/blocks/"+blockID, nil); r.status != 200 {
		t.Errorf("after sharing again: %d", r.status)
	}
}
