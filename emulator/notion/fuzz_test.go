package notion

import (
	"strings"
	"testing"
)

// FuzzWrites feeds arbitrary bodies to the write endpoints: every answer
// must be a well-formed response (no panic, no 500).
func FuzzWrites(f *testing.F) {
	for _, seed := range []string{
		`{"children":[{"paragraph":{"rich_text":[{"text":{"content":"x"}}]}}]}`,
		`{"children":[{"type":"table","table":{"table_width":2,"children":[{"table_row":{"cells":[[],[]]}}]}}]}`,
		`{"children":[{"toggle":{"rich_text":[],"children":[{"callout":{"rich_text":[],"icon":{"emoji":"x"}}}]}}]}`,
		`{"children":[{"image":{"type":"file_upload","file_upload":{"id":"00000000-0000-4000-8000-000000000000"}}}]}`,
		`{"children":[{"column_list":{"children":[{"column":{"children":[]}}]}}],"after":"x"}`,
		`{"parent":{"page_id":"ROOT"},"properties":{"title":{"title":[{"mention":{"page":{"id":1}}}]}}}`,
		`{"parent":{"database_id":"ROOT"},"properties":{"x":null}}`,
		`{"filter":{"or":[{"and":[]}]},"sorts":[{}]}`,
	} {
		f.Add(seed, uint8(0))
		f.Add(seed, uint8(1))
		f.Add(seed, uint8(2))
	}
	f.Fuzz(func(t *testing.T, body string, endpoint uint8) {
		e := newEnv(t, Config{})
		root := e.srv.RootPageID()
		paths := []struct{ method, path string }{
			{"PATCH", "/v1/blocks/" + root + "/children"},
			{"POST", "/v1/pages"},
			{"POST", "/v1/databases"},
			{"PATCH", "/v1/pages/" + root},
			{"PATCH", "/v1/blocks/" + root},
			{"POST", "/v1/file_uploads"},
		}
		p := paths[int(endpoint)%len(paths)]
		r := e.do(p.method, p.path, strings.ReplaceAll(body, "ROOT", root))
		if r.status >= 500 {
			t.Fatalf("%s %s %q: %d %s", p.method, p.path, body, r.status, r.raw)
		}
	})
}
