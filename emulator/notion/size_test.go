package notion

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRequestSizeLimit: a JSON body over 500 KB answers 413 ([N6]) in
// Notion's error shape, whether its length is declared or only found
// while reading, and nothing of it is stored; a body at the limit is
// read and validated as usual.
func TestRequestSizeLimit(t *testing.T) {
	// A valid append of 100 paragraphs, padded to n bytes with spaces
	// (insignificant in JSON).
	bodyOf := func(n int) string {
		kids := make([]any, 100)
		for i := range kids {
			kids[i] = para(strings.Repeat("x", 1000))
		}
		data, _ := json.Marshal(map[string]any{"children": kids})
		if len(data) > n {
			t.Fatalf("fixture: base body is %d bytes, more than %d", len(data), n)
		}
		return string(data[:len(data)-1]) + strings.Repeat(" ", n-len(data)) + "}"
	}
	cases := []struct {
		name     string
		size     int
		chunked  bool // no Content-Length: found while reading
		status   int
		children int
	}{
		{"at the limit", maxRequestBytes, false, 200, 100},
		{"one byte over, declared", maxRequestBytes + 1, false, 413, 0},
		{"one byte over, chunked", maxRequestBytes + 1, true, 413, 0},
		{"far over, declared", 3 * maxRequestBytes, false, 413, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, Config{})
			root := e.srv.RootPageID()
			body := bodyOf(c.size)
			if len(body) != c.size {
				t.Fatalf("fixture: body is %d bytes, want %d", len(body), c.size)
			}
			req := httptest.NewRequest("PATCH", "http://notion.test/v1/blocks/"+root+"/children", strings.NewReader(body))
			if c.chunked {
				req.ContentLength = -1
			}
			req.Header.Set("Authorization", "Bearer "+e.token)
			req.Header.Set("Notion-Version", APIVersion)
			rec := httptest.NewRecorder()
			e.srv.ServeHTTP(rec, req)
			if rec.Code != c.status {
				t.Fatalf("status %d, want %d: %.300s", rec.Code, c.status, rec.Body)
			}
			if c.status == http.StatusRequestEntityTooLarge {
				var eb map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &eb); err != nil {
					t.Fatalf("413 body is not JSON: %v", err)
				}
				if eb["object"] != "error" || eb["status"] != float64(413) || eb["code"] != codeValidation || eb["request_id"] == "" {
					t.Errorf("413 body = %v", eb)
				}
			}
			if n := len(e.listAll(root, 100)); n != c.children {
				t.Errorf("root has %d children, want %d", n, c.children)
			}
		})
	}
}
