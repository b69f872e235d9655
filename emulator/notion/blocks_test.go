package notion

import (
	"fmt"
	"strings"
	"testing"
)

func TestAppendAfterAndPaginate(t *testing.T) {
	e := newEnv(t, Config{})
	page := e.createPage(e.srv.RootPageID(), "Long page")
	for batch := range 2 {
		var kids []any
		for i := range 75 {
			kids = append(kids, para(fmt.Sprintf("p%03d", batch*75+i)))
		}
		if got := e.append(page, kids...); len(got) != 75 {
			t.Fatalf("append returned %d blocks", len(got))
		}
	}
	first := e.listAll(page, 100)
	if len(first) != 150 {
		t.Fatalf("listed %d children, want 150", len(first))
	}
	// One page of 100 says there is more.
	res := e.ok("GET", "/v1/blocks/"+page+"/children", nil)
	if len(res["results"].([]any)) != 100 || res["has_more"] != true || res["next_cursor"] == nil {
		t.Fatalf("first page: %d results, has_more=%v", len(res["results"].([]any)), res["has_more"])
	}
	if r := e.do("GET", "/v1/blocks/"+page+"/children?page_size=101", nil); r.status != 400 || r.code() != "validation_error" {
		t.Errorf("page_size 101: %d", r.status)
	}

	// Insert two blocks after p001.
	after := first[1]["id"].(string)
	e.ok("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"after": after, "children": []any{para("inserted 1"), para("inserted 2")}})
	got := e.listAll(page, 7)
	var texts []string
	for _, b := range got[:5] {
		texts = append(texts, blockText(b))
	}
	if strings.Join(texts, ",") != "p000,p001,inserted 1,inserted 2,p002" || len(got) != 152 {
		t.Errorf("order after insert: %v (%d blocks)", texts, len(got))
	}
	// after must name a child of the parent.
	other := e.createPage(e.srv.RootPageID(), "Other", para("x"))
	foreign := e.listAll(other, 100)[0]["id"].(string)
	if r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"after": foreign, "children": []any{para("x")}}); r.status != 400 {
		t.Errorf("after a foreign block: %d %s", r.status, r.raw)
	}
}

func TestBlockRetrieveUpdateDelete(t *testing.T) {
	e := newEnv(t, Config{})
	page := e.createPage(e.srv.RootPageID(), "Blocks",
		withChildren("toggle", map[string]any{"rich_text": rt(text("toggle"))}, para("inside")),
		block("heading_1", map[string]any{"rich_text": rt(text("heading"))}),
		block("image", map[string]any{"type": "external", "external": map[string]any{"url": "https://e.com/a.png"}}),
		tableBlock(2, []int{2}),
		block("to_do", map[string]any{"rich_text": rt(text("task"))}),
	)
	kids := e.listAll(page, 100)
	toggle, heading, image, table, todo := kids[0]["id"].(string), kids[1]["id"].(string), kids[2]["id"].(string), kids[3]["id"].(string), kids[4]["id"].(string)
	if kids[0]["has_children"] != true || kids[1]["has_children"] != false {
		t.Errorf("has_children: %v %v", kids[0]["has_children"], kids[1]["has_children"])
	}
	got := e.ok("GET", "/v1/blocks/"+toggle, nil)
	if got["type"] != "toggle" || got["parent"].(map[string]any)["page_id"] != page {
		t.Errorf("retrieve toggle: %v", got)
	}
	inner := e.listAll(toggle, 100)
	if len(inner) != 1 || blockText(inner[0]) != "inside" || inner[0]["parent"].(map[string]any)["block_id"] != toggle {
		t.Errorf("toggle children: %v", inner)
	}

	// Update: text and checked; other fields keep their values.
	upd := e.ok("PATCH", "/v1/blocks/"+todo, map[string]any{"to_do": map[string]any{"checked": true}})
	if upd["to_do"].(map[string]any)["checked"] != true || blockText(upd) != "task" {
		t.Errorf("update to_do: %v", upd["to_do"])
	}
	upd = e.ok("PATCH", "/v1/blocks/"+heading, map[string]any{"heading_1": map[string]any{"rich_text": rt(text("renamed"))}})
	if blockText(upd) != "renamed" {
		t.Errorf("update heading: %v", upd)
	}
	if r := e.do("PATCH", "/v1/blocks/"+heading, map[string]any{"paragraph": map[string]any{"rich_text": rt()}}); r.status != 400 {
		t.Errorf("type change accepted: %d", r.status)
	}

	// Children rules on append to existing blocks.
	for _, c := range []struct {
		id, what string
		child    any
	}{
		{image, "leaf", para("x")},
		{heading, "non-toggleable heading", para("x")},
		{table, "table with a paragraph", para("x")},
		{table, "table row of the wrong width", block("table_row", map[string]any{"cells": []any{rt(text("a"))}})},
	} {
		if r := e.do("PATCH", "/v1/blocks/"+c.id+"/children", map[string]any{"children": []any{c.child}}); r.status != 400 || r.code() != "validation_error" {
			t.Errorf("append to %s: %d %s", c.what, r.status, r.raw)
		}
	}
	e.append(table, block("table_row", map[string]any{"cells": []any{rt(text("a")), rt(text("b"))}}))
	if n := len(e.listAll(table, 100)); n != 2 {
		t.Errorf("table rows = %d, want 2", n)
	}

	// Delete archives.
	del := e.ok("DELETE", "/v1/blocks/"+toggle, nil)
	if del["archived"] != true {
		t.Errorf("delete: %v", del["archived"])
	}
	if n := len(e.listAll(page, 100)); n != 4 {
		t.Errorf("after delete %d children, want 4", n)
	}
	if got := e.ok("GET", "/v1/blocks/"+toggle, nil); got["archived"] != true {
		t.Errorf("archived block retrieve: %v", got["archived"])
	}
	if r := e.do("PATCH", "/v1/blocks/"+toggle, map[string]any{"toggle": map[string]any{"rich_text": rt()}}); r.status != 400 || !strings.Contains(r.message(), "archived") {
		t.Errorf("edit archived block: %d %s", r.status, r.raw)
	}
	if got := e.ok("PATCH", "/v1/blocks/"+toggle, map[string]any{"archived": false}); got["archived"] != false {
		t.Errorf("restore: %v", got["archived"])
	}
}
