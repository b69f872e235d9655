package notion

import (
	"net/http"
	"strings"
	"testing"
)

func repeatChildren(n int, mk func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = mk(i)
	}
	return out
}

func tableBlock(width int, rows ...[]int) map[string]any {
	var children []any
	for _, r := range rows {
		cells := []any{}
		for range r[0] {
			cells = append(cells, rt(text("c")))
		}
		children = append(children, block("table_row", map[string]any{"cells": cells}))
	}
	body := map[string]any{"table_width": width, "has_column_header": true}
	if children != nil {
		body["children"] = children
	}
	return block("table", body)
}

// TestPayloadRules checks one payload rule per row: the emulator answers
// the violation with Notion's status and error code.
func TestPayloadRules(t *testing.T) {
	type tc struct {
		name    string
		method  string
		path    string // "{root}" is replaced by the root page ID
		body    any
		header  map[string]string
		setup   func(e *env)
		status  int
		code    string
		message string // substring of the message
	}
	long := func(n int) string { return strings.Repeat("a", n) }
	appendTo := "/v1/blocks/{root}/children"
	kids := func(c ...any) map[string]any { return map[string]any{"children": c} }
	cases := []tc{
		{name: "valid request passes", body: kids(para("hello"), tableBlock(2, []int{2}, []int{2}),
			withChildren("toggle", map[string]any{"rich_text": rt(text("t"))},
				withChildren("toggle", map[string]any{"rich_text": rt(text("t"))}, para("deepest allowed")))),
			status: 200},
		{name: "invalid JSON", body: `{"children": [`, status: 400, code: "invalid_json"},
		{name: "missing Notion-Version", body: kids(para("x")), header: map[string]string{"Notion-Version": ""},
			status: 400, code: "missing_version"},
		{name: "Notion-Version the emulator does not speak", body: kids(para("x")), header: map[string]string{"Notion-Version": "2025-01-01"},
			status: 400, code: "validation_error", message: "2026-03-11"},
		{name: "relative link URL", body: kids(block("paragraph", map[string]any{"rich_text": rt(map[string]any{
			"type": "text", "text": map[string]any{"content": "x", "link": map[string]any{"url": "/relative/path"}}})})),
			status: 400, code: "validation_error", message: "Invalid URL for link."},
		{name: "bad token", body: kids(para("x")), header: map[string]string{"Authorization": "Bearer nope"},
			status: 401, code: "unauthorized"},
		{name: "text.content over 2000", body: kids(para("ok"), para(long(2001))), status: 400, code: "validation_error",
			message: "body.children[1].paragraph.rich_text[0].text.content.length should be ≤ `2000`, instead was `2001`."},
		{name: "text.content exactly 2000 passes", body: kids(para(long(2000))), status: 200},
		{name: "text.content counts UTF-16 units", body: kids(para(strings.Repeat("😀", 1001))), status: 400, code: "validation_error",
			message: "instead was `2002`"},
		{name: "link url over 2000", body: kids(block("paragraph", map[string]any{"rich_text": rt(map[string]any{
			"type": "text", "text": map[string]any{"content": "x", "link": map[string]any{"url": "https://e.com/" + long(1990)}}})})),
			status: 400, code: "validation_error", message: "text.link.url.length should be ≤ `2000`"},
		{name: "inline equation over 1000", body: kids(block("paragraph", map[string]any{"rich_text": rt(map[string]any{
			"type": "equation", "equation": map[string]any{"expression": long(1001)}})})),
			status: 400, code: "validation_error", message: "equation.expression.length should be ≤ `1000`"},
		{name: "equation block over 1000", body: kids(block("equation", map[string]any{"expression": long(1001)})),
			status: 400, code: "validation_error", message: "body.children[0].equation.expression.length"},
		{name: "rich text array over 100", body: kids(block("paragraph", map[string]any{"rich_text": repeatChildren(101, func(int) any { return text("x") })})),
			status: 400, code: "validation_error", message: "rich_text.length should be ≤ `100`, instead was `101`"},
		{name: "children over 100", body: map[string]any{"children": repeatChildren(101, func(int) any { return para("x") })},
			status: 400, code: "validation_error", message: "body.children.length should be ≤ `100`, instead was `101`"},
		{name: "nested children over 100", body: kids(withChildren("toggle", map[string]any{"rich_text": rt()},
			repeatChildren(101, func(int) any { return para("x") })...)),
			status: 400, code: "validation_error", message: "body.children[0].toggle.children.length"},
		{name: "three levels of nesting", body: kids(withChildren("toggle", map[string]any{"rich_text": rt()},
			withChildren("toggle", map[string]any{"rich_text": rt()},
				withChildren("toggle", map[string]any{"rich_text": rt()}, para("too deep"))))),
			status: 400, code: "validation_error", message: "body.children[0].toggle.children[0].toggle.children[0].toggle.children should be not present"},
		{name: "over 1000 blocks in one request", body: map[string]any{"children": repeatChildren(100, func(int) any {
			return withChildren("toggle", map[string]any{"rich_text": rt()}, repeatChildren(10, func(int) any { return para("x") })...)
		})}, status: 400, code: "validation_error", message: "`1100` blocks"},
		{name: "exactly 1000 blocks passes", body: map[string]any{"children": repeatChildren(100, func(int) any {
			return withChildren("toggle", map[string]any{"rich_text": rt()}, repeatChildren(9, func(int) any { return para("x") })...)
		})}, status: 200},
		{name: "body over 500 KB", body: `{"children":[],"pad":"` + long(500*1000) + `"}`, status: 413, code: "validation_error"},
		{name: "table without rows", body: kids(tableBlock(2)), status: 400, code: "validation_error",
			message: "body.children[0].table.children should contain at least one `table_row`"},
		{name: "table row with wrong cell count", body: kids(tableBlock(3, []int{3}, []int{2})), status: 400, code: "validation_error",
			message: "body.children[0].table.children[1].table_row.cells.length should be `3`"},
		{name: "table with a non-row child", body: kids(block("table", map[string]any{"table_width": 1,
			"children": []any{para("not a row")}})), status: 400, code: "validation_error", message: "should be `table_row`"},
		{name: "table_row outside a table", body: kids(block("table_row", map[string]any{"cells": []any{rt(text("x"))}})),
			status: 400, code: "validation_error", message: "can only be children of a `table`"},
		{name: "heading with children but not toggleable", body: kids(withChildren("heading_1",
			map[string]any{"rich_text": rt(text("h"))}, para("x"))), status: 400, code: "validation_error",
			message: "body.children[0].heading_1.children should be not present unless `is_toggleable`"},
		{name: "toggleable heading with children passes", body: kids(withChildren("heading_2",
			map[string]any{"rich_text": rt(text("h")), "is_toggleable": true}, para("x"))), status: 200},
		{name: "image cannot have children", body: kids(withChildren("image",
			map[string]any{"type": "external", "external": map[string]any{"url": "https://e.com/a.png"}}, para("x"))),
			status: 400, code: "validation_error", message: "body.children[0].image.children should be not present"},
		{name: "code cannot have children", body: kids(withChildren("code",
			map[string]any{"rich_text": rt(text("x")), "language": "go"}, para("x"))),
			status: 400, code: "validation_error", message: "body.children[0].code.children should be not present"},
		{name: "equation cannot have children", body: kids(withChildren("equation", map[string]any{"expression": "x"}, para("x"))),
			status: 400, code: "validation_error", message: "body.children[0].equation.children should be not present"},
		{name: "children outside the type object", body: kids(map[string]any{"type": "toggle", "toggle": map[string]any{"rich_text": rt()},
			"children": []any{para("lost")}}), status: 400, code: "validation_error", message: "body.children[0].children should be not present"},
		{name: "unknown block type", body: kids(block("hologram", map[string]any{})), status: 400, code: "validation_error",
			message: "body.children[0].type should be a supported block type"},
		{name: "child_page cannot be appended", body: kids(block("child_page", map[string]any{"title": "x"})),
			status: 400, code: "validation_error", message: "not supported for creation"},
		{name: "block colour outside the named set", body: kids(block("paragraph", map[string]any{"rich_text": rt(), "color": "purple2"})),
			status: 400, code: "validation_error", message: "body.children[0].paragraph.color should be one of"},
		{name: "annotation colour outside the named set", body: kids(block("paragraph", map[string]any{"rich_text": rt(map[string]any{
			"text": map[string]any{"content": "x"}, "annotations": map[string]any{"color": "#ff0000"}})})),
			status: 400, code: "validation_error", message: "annotations.color should be one of"},
		{name: "background colour passes", body: kids(block("paragraph", map[string]any{"rich_text": rt(), "color": "yellow_background"})), status: 200},
		{name: "missing rich_text", body: kids(block("paragraph", map[string]any{})), status: 400, code: "validation_error",
			message: "body.children[0].paragraph.rich_text should be defined, instead was `undefined`."},
		{name: "unknown field in a block", body: kids(block("paragraph", map[string]any{"rich_text": rt(), "font": "Arial"})),
			status: 400, code: "validation_error", message: "body.children[0].paragraph.font should be not present"},
		{name: "code language not in the enum", body: kids(block("code", map[string]any{"rich_text": rt(), "language": "klingon"})),
			status: 400, code: "validation_error", message: "body.children[0].code.language"},
		{name: "column_list with one column", body: kids(withChildren("column_list", map[string]any{},
			withChildren("column", map[string]any{}, para("x")))), status: 400, code: "validation_error",
			message: "column_list.children.length should be ≥ `2`"},
		{name: "missing parent page", path: "/v1/blocks/0f0f0f0f-0000-4000-8000-000000000000/children", body: kids(para("x")),
			status: 404, code: "object_not_found",
			message: "Could not find block with ID: 0f0f0f0f-0000-4000-8000-000000000000. Make sure the relevant pages and databases are shared with your integration."},
		{name: "missing parent on page create", method: "POST", path: "/v1/pages", body: map[string]any{
			"parent": map[string]any{"page_id": "0f0f0f0f-0000-4000-8000-000000000000"}},
			status: 404, code: "object_not_found", message: "Could not find page with ID: 0f0f0f0f-0000-4000-8000-000000000000."},
		{name: "parent not shared with the integration", setup: func(e *env) { e.srv.SetShared(e.srv.RootPageID(), false) },
			body: kids(para("x")), status: 404, code: "object_not_found", message: "shared with your integration"},
		{name: "workspace block limit", setup: func(e *env) { e.srv.SetWorkspaceBlockLimit(3) },
			body: kids(para("1"), para("2"), para("3")), status: 400, code: "validation_error", message: "block limit"},
		{name: "invalid ID in path", path: "/v1/blocks/not-an-id/children", body: kids(para("x")), status: 400, code: "validation_error",
			message: "path.block_id should be a valid uuid"},
		{name: "unknown endpoint", method: "GET", path: "/v1/comments", status: 400, code: "invalid_request_url"},
		{name: "page parent with a non-title property", method: "POST", path: "/v1/pages", body: map[string]any{
			"parent": map[string]any{"page_id": "{root}"}, "properties": map[string]any{"Tags": map[string]any{"rich_text": rt()}}},
			status: 400, code: "validation_error", message: "body.properties.Tags should be not present"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Config{})
			if c.setup != nil {
				c.setup(e)
			}
			root := e.srv.RootPageID()
			method, path := c.method, c.path
			if method == "" {
				method = http.MethodPatch
			}
			if path == "" {
				path = appendTo
			}
			path = strings.ReplaceAll(path, "{root}", root)
			body := c.body
			if m, ok := body.(map[string]any); ok {
				if p, ok := m["parent"].(map[string]any); ok && p["page_id"] == "{root}" {
					p["page_id"] = root
				}
			}
			r := e.request(method, path, body, c.header)
			if r.status != c.status {
				t.Fatalf("status = %d, want %d: %s", r.status, c.status, r.raw)
			}
			if c.status == 200 {
				return
			}
			if r.code() != c.code {
				t.Errorf("code = %q, want %q (%s)", r.code(), c.code, r.message())
			}
			if !strings.Contains(r.message(), c.message) {
				t.Errorf("message = %q, want it to contain %q", r.message(), c.message)
			}
			if r.body["object"] != "error" || r.str("request_id") == "" || r.body["status"] != float64(c.status) {
				t.Errorf("error shape wrong: %s", r.raw)
			}
		})
	}
}
