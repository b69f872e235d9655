package notion

import (
	"net/http"
	"strings"
	"testing"
)

func linked(content, url string) map[string]any {
	return map[string]any{"type": "text", "text": map[string]any{"content": content, "link": map[string]any{"url": url}}}
}

const oneBadLink = "Content creation Failed. Fix the following: \nInvalid URL for link."

// TestLinkSchemes checks which link URLs Notion takes in rich text: http
// and https only ([N1]); every other scheme fails the request with the
// message of [N2].
func TestLinkSchemes(t *testing.T) {
	cases := []struct {
		url string
		ok  bool
	}{
		{"https://example.com/a?b=c", true},
		{"http://example.com", true},
		{"HTTPS://EXAMPLE.COM/x", true},
		{"onenote:https://d.docs.live.net/abc/Notebook/Section.one#Page&page-id={1}", false},
		{"onenote:///C:/Notes/Section.one", false},
		{"file:///C:/Users/me/report.docx", false},
		{"ms-word:ofe|u|https://contoso.sharepoint.com/a.docx", false},
		{"teams://l/message/1", false},
		{"zotero://select/items/ABC", false},
		{"mailto:someone@example.com", false},
		{"/relative/path", false},
		{"https://", false},
		{"", false},
	}
	for _, c := range cases {
		t.Run(c.url, func(t *testing.T) {
			e := newEnv(t, Config{})
			root := e.srv.RootPageID()
			r := e.do("PATCH", "/v1/blocks/"+root+"/children", map[string]any{"children": []any{
				block("paragraph", map[string]any{"rich_text": rt(linked("x", c.url))})}})
			if c.ok {
				if r.status != http.StatusOK {
					t.Fatalf("status %d, want 200: %s", r.status, r.raw)
				}
				got := r.body["results"].([]any)[0].(map[string]any)["paragraph"].(map[string]any)["rich_text"].([]any)[0].(map[string]any)
				if got["href"] != c.url {
					t.Errorf("href = %v, want %q", got["href"], c.url)
				}
				return
			}
			if r.status != http.StatusBadRequest || r.code() != codeValidation || r.message() != oneBadLink {
				t.Fatalf("got %d %s %q, want 400 validation_error %q", r.status, r.code(), r.message(), oneBadLink)
			}
			if r.body["object"] != "error" || r.body["status"] != float64(400) || r.str("request_id") == "" {
				t.Errorf("error body shape: %s", r.raw)
			}
		})
	}
}

// TestBadLinksEverywhere puts bad links in every kind of rich text on
// create, append and update: each request fails as a whole, with one
// "Invalid URL for link." line per bad link, and stores nothing.
func TestBadLinksEverywhere(t *testing.T) {
	bad := func(s string) map[string]any { return linked(s, "onenote:#"+s) }
	good := func(s string) map[string]any { return linked(s, "https://example.com/"+s) }
	type fixture struct {
		root, page, db, row, para, table, row0, image string
	}
	setup := func(e *env) fixture {
		root := e.srv.RootPageID()
		f := fixture{root: root, page: e.createPage(root, "Page")}
		f.db = e.ok("POST", "/v1/databases", map[string]any{
			"parent": map[string]any{"page_id": root},
			"title":  rt(text("DB")),
			"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}},
				"Notes": map[string]any{"rich_text": map[string]any{}},
				"Tags":  map[string]any{"multi_select": map[string]any{}}},
		})["id"].(string)
		f.row = e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": f.db},
			"properties": map[string]any{"Name": map[string]any{"title": rt(text("r"))}}})["id"].(string)
		made := e.append(f.page, para("p"), tableBlock(2, []int{2}),
			block("image", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/i.png"}}))
		f.para = made[0].(map[string]any)["id"].(string)
		f.table = made[1].(map[string]any)["id"].(string)
		f.image = made[2].(map[string]any)["id"].(string)
		f.row0 = e.listAll(f.table, 100)[0]["id"].(string)
		return f
	}
	cases := []struct {
		name   string
		method string
		path   func(f fixture) string
		body   func(f fixture) any
		nBad   int
	}{
		{"page title on create", "POST", func(fixture) string { return "/v1/pages" }, func(f fixture) any {
			return map[string]any{"parent": map[string]any{"page_id": f.root},
				"properties": map[string]any{"title": map[string]any{"title": rt(text("ok "), bad("t"))}}}
		}, 1},
		{"children on page create, nested and in a caption", "POST", func(fixture) string { return "/v1/pages" }, func(f fixture) any {
			return map[string]any{"parent": map[string]any{"page_id": f.root},
				"properties": map[string]any{"title": map[string]any{"title": rt(text("t"))}},
				"children": []any{
					withChildren("toggle", map[string]any{"rich_text": rt(good("g"))},
						block("paragraph", map[string]any{"rich_text": rt(bad("a"), bad("b"))})),
					block("image", map[string]any{"type": "external", "external": map[string]any{"url": "https://example.com/i.png"},
						"caption": rt(bad("c"))}),
				}}
		}, 3},
		{"row properties on create", "POST", func(fixture) string { return "/v1/pages" }, func(f fixture) any {
			return map[string]any{"parent": map[string]any{"database_id": f.db},
				"properties": map[string]any{"Name": map[string]any{"title": rt(text("n"))},
					"Notes": map[string]any{"rich_text": rt(bad("n"))},
					"Tags":  map[string]any{"multi_select": []any{map[string]any{"name": "fresh"}}}}}
		}, 1},
		{"table cells on append", "PATCH", func(f fixture) string { return "/v1/blocks/" + f.page + "/children" }, func(f fixture) any {
			row := block("table_row", map[string]any{"cells": []any{rt(bad("x")), rt(bad("y"), good("z"))}})
			return map[string]any{"children": []any{withChildren("table", map[string]any{"table_width": 2}, row)}}
		}, 2},
		{"callout and code caption on append", "PATCH", func(f fixture) string { return "/v1/blocks/" + f.page + "/children" }, func(f fixture) any {
			return map[string]any{"children": []any{
				block("callout", map[string]any{"rich_text": rt(bad("c"))}),
				block("code", map[string]any{"rich_text": rt(text("x")), "language": "go", "caption": rt(bad("d"))}),
			}}
		}, 2},
		{"block update", "PATCH", func(f fixture) string { return "/v1/blocks/" + f.para }, func(f fixture) any {
			return map[string]any{"paragraph": map[string]any{"rich_text": rt(bad("u"))}}
		}, 1},
		{"table row update", "PATCH", func(f fixture) string { return "/v1/blocks/" + f.row0 }, func(f fixture) any {
			return map[string]any{"table_row": map[string]any{"cells": []any{rt(text("a")), rt(bad("b"))}}}
		}, 1},
		{"media caption update", "PATCH", func(f fixture) string { return "/v1/blocks/" + f.image }, func(f fixture) any {
			return map[string]any{"image": map[string]any{"caption": rt(bad("c"))}}
		}, 1},
		{"page title update", "PATCH", func(f fixture) string { return "/v1/pages/" + f.page }, func(f fixture) any {
			return map[string]any{"properties": map[string]any{"title": map[string]any{"title": rt(bad("t"))}}}
		}, 1},
		{"row property update", "PATCH", func(f fixture) string { return "/v1/pages/" + f.row }, func(f fixture) any {
			return map[string]any{"properties": map[string]any{"Notes": rt(bad("n")),
				"Tags": map[string]any{"multi_select": []any{map[string]any{"name": "fresh"}}}}}
		}, 1},
		{"database create title and description", "POST", func(fixture) string { return "/v1/databases" }, func(f fixture) any {
			return map[string]any{"parent": map[string]any{"page_id": f.root}, "title": rt(bad("t")),
				"description": rt(bad("d")), "properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}}}
		}, 2},
		{"database update title", "PATCH", func(f fixture) string { return "/v1/databases/" + f.db }, func(f fixture) any {
			return map[string]any{"title": rt(bad("t")), "properties": map[string]any{"Extra": map[string]any{"rich_text": map[string]any{}}}}
		}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Config{})
			f := setup(e)
			before := e.srv.Export()
			r := e.do(c.method, c.path(f), c.body(f))
			want := "Content creation Failed. Fix the following: " + strings.Repeat("\nInvalid URL for link.", c.nBad)
			if r.status != http.StatusBadRequest || r.code() != codeValidation || r.message() != want {
				t.Fatalf("got %d %s %q, want 400 validation_error %q", r.status, r.code(), r.message(), want)
			}
			after := e.srv.Export()
			before.Stats, after.Stats = Stats{}, Stats{}
			if d := diffJSON(before, after); d != "" {
				t.Errorf("a refused request changed the workspace: %s", d)
			}
		})
	}
}

// TestBodyErrorsComeBeforeLinks: a body that also breaks a schema rule
// answers with that rule, as Notion validates the body first.
func TestBodyErrorsComeBeforeLinks(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.do("PATCH", "/v1/blocks/"+e.srv.RootPageID()+"/children", map[string]any{"children": []any{
		block("paragraph", map[string]any{"rich_text": rt(linked("x", "onenote:x"))}),
		block("paragraph", map[string]any{"rich_text": rt(text(strings.Repeat("a", 2001)))}),
	}})
	if r.status != http.StatusBadRequest || !strings.Contains(r.message(), "text.content.length should be ≤ `2000`") {
		t.Fatalf("got %d %q, want the length error", r.status, r.message())
	}
}
