package notion

import (
	"net/http"
	"strings"
	"testing"
)

func TestCreateRetrieveUpdateArchivePage(t *testing.T) {
	e := newEnv(t, Config{})
	root := e.srv.RootPageID()
	created := e.ok("POST", "/v1/pages", map[string]any{
		"parent":     map[string]any{"type": "page_id", "page_id": strings.ReplaceAll(root, "-", "")},
		"icon":       map[string]any{"type": "emoji", "emoji": "📓"},
		"properties": map[string]any{"title": []any{text("Section A")}},
		"children":   []any{para("first"), para("second")},
	})
	id := created["id"].(string)
	if created["object"] != "page" || created["parent"].(map[string]any)["page_id"] != root {
		t.Fatalf("created page = %v", created)
	}
	got := e.ok("GET", "/v1/pages/"+id, nil)
	title := got["properties"].(map[string]any)["title"].(map[string]any)["title"].([]any)
	if plainText(title) != "Section A" {
		t.Errorf("title = %q", plainText(title))
	}
	if got["cover"] != nil {
		t.Errorf("cover = %v, want null", got["cover"])
	}
	if got["icon"].(map[string]any)["emoji"] != "📓" {
		t.Errorf("icon = %v", got["icon"])
	}
	kids := e.listAll(id, 100)
	if len(kids) != 2 || blockText(kids[0]) != "first" || blockText(kids[1]) != "second" {
		t.Fatalf("children = %v", kids)
	}
	// The page is a child_page block of its parent.
	rootKids := e.listAll(root, 100)
	if len(rootKids) != 1 || rootKids[0]["type"] != "child_page" || rootKids[0]["child_page"].(map[string]any)["title"] != "Section A" {
		t.Fatalf("root children = %v", rootKids)
	}

	upd := e.ok("PATCH", "/v1/pages/"+id, map[string]any{"properties": map[string]any{"title": map[string]any{"title": []any{text("Renamed")}}}})
	if plainText(upd["properties"].(map[string]any)["title"].(map[string]any)["title"].([]any)) != "Renamed" {
		t.Errorf("update did not rename: %v", upd["properties"])
	}

	arch := e.ok("PATCH", "/v1/pages/"+id, map[string]any{"archived": true})
	if arch["archived"] != true {
		t.Fatalf("archived = %v", arch["archived"])
	}
	if got := e.listAll(root, 100); len(got) != 0 {
		t.Errorf("archived page still listed under its parent: %v", got)
	}
	r := e.do("PATCH", "/v1/blocks/"+id+"/children", map[string]any{"children": []any{para("x")}})
	if r.status != http.StatusBadRequest || r.code() != "validation_error" || !strings.Contains(r.message(), "archived") {
		t.Errorf("append to archived page: %d %s", r.status, r.raw)
	}
	if r := e.do("PATCH", "/v1/pages/"+id, map[string]any{"properties": map[string]any{"title": []any{text("y")}}}); r.status != 400 {
		t.Errorf("edit of archived page: %d", r.status)
	}
	// Content of an archived page cannot be edited either.
	toggle := kids[0]["id"].(string)
	if r := e.do("PATCH", "/v1/blocks/"+toggle, map[string]any{"paragraph": map[string]any{"rich_text": []any{text("z")}}}); r.status != 400 || !strings.Contains(r.message(), "archived") {
		t.Errorf("edit block of archived page: %d %s", r.status, r.raw)
	}
	if got := e.ok("PATCH", "/v1/pages/"+id, map[string]any{"archived": false}); got["archived"] != false {
		t.Errorf("unarchive failed: %v", got["archived"])
	}
}

func TestUnsharedPagesAreNotFound(t *testing.T) {
	e := newEnv(t, Config{})
	private, err := e.srv.AddPage("", "Private notes", false)
	if err != nil {
		t.Fatal(err)
	}
	child, err := e.srv.AddPage(private, "Child of private", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/v1/pages/" + private, "/v1/pages/" + child, "/v1/blocks/" + child + "/children"} {
		r := e.do("GET", path, nil)
		if r.status != 404 || r.code() != "object_not_found" || !strings.Contains(r.message(), "shared with your integration") {
			t.Errorf("GET %s: %d %s", path, r.status, r.raw)
		}
	}
	r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": private}})
	if r.status != 404 || !strings.Contains(r.message(), "Could not find page with ID: "+private) {
		t.Errorf("create under unshared page: %d %s", r.status, r.raw)
	}
	if err := e.srv.SetShared(private, true); err != nil {
		t.Fatal(err)
	}
	e.ok("GET", "/v1/pages/"+child, nil)
}

func TestWorkspaceParentIsRejected(t *testing.T) {
	e := newEnv(t, Config{})
	r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"type": "workspace", "workspace": true}})
	if r.status != 400 || r.code() != "validation_error" {
		t.Errorf("workspace parent: %d %s", r.status, r.raw)
	}
}

func TestWorkspaceBlockLimitCountsPages(t *testing.T) {
	e := newEnv(t, Config{WorkspaceBlockLimit: 4})   // the root page is block 1
	e.createPage(e.srv.RootPageID(), "p", para("a")) // blocks 2 and 3
	e.append(e.srv.RootPageID(), para("b"))          // block 4
	r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()}})
	if r.status != 400 || r.code() != "validation_error" || !strings.Contains(r.message(), "block limit of 4") {
		t.Fatalf("over the limit: %d %s", r.status, r.raw)
	}
	if got := e.srv.Stats().Blocks; got != 4 {
		t.Errorf("blocks = %d, want 4", got)
	}
}
