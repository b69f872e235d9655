package notion

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for deterministic rate limits and expiry.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is a server under test with one token, driven in process.
type env struct {
	t     *testing.T
	srv   *Server
	clock *fakeClock
	token string
}

// newEnv starts a server with a fake clock and rate limiting off unless
// cfg says otherwise.
func newEnv(t *testing.T, cfg Config) *env {
	t.Helper()
	clock := newFakeClock()
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if cfg.Rate == 0 {
		cfg.Rate = -1
	}
	if cfg.Sleep == nil {
		cfg.Sleep = func(context.Context, time.Duration) {}
	}
	srv := NewServer(cfg)
	return &env{t: t, srv: srv, clock: clock, token: srv.IssueToken()}
}

// response is a decoded answer.
type response struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (r response) code() string        { s, _ := r.body["code"].(string); return s }
func (r response) message() string     { s, _ := r.body["message"].(string); return s }
func (r response) str(k string) string { s, _ := r.body[k].(string); return s }

// request sends one request. body may be nil, a string (sent verbatim),
// []byte, or any value (marshalled as JSON).
func (e *env) request(method, path string, body any, header map[string]string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatalf("marshal body: %v", err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, "http://notion.test"+path, rd)
	req.Header.Set("Authorization", "Bearer "+e.token)
	req.Header.Set("Notion-Version", APIVersion)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), raw: rec.Body.Bytes()}
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(res.raw, &res.body); err != nil {
			e.t.Fatalf("%s %s: decode response: %v: %s", method, path, err, res.raw)
		}
	}
	return res
}

func (e *env) do(method, path string, body any) response {
	e.t.Helper()
	return e.request(method, path, body, nil)
}

// ok sends a request that must succeed and returns its body.
func (e *env) ok(method, path string, body any) map[string]any {
	e.t.Helper()
	r := e.do(method, path, body)
	if r.status != http.StatusOK {
		e.t.Fatalf("%s %s: status %d: %s", method, path, r.status, r.raw)
	}
	return r.body
}

// createPage creates a page under parent (a page) and returns its ID.
func (e *env) createPage(parent, title string, children ...any) string {
	e.t.Helper()
	body := map[string]any{
		"parent":     map[string]any{"page_id": parent},
		"properties": map[string]any{"title": map[string]any{"title": []any{text(title)}}},
	}
	if len(children) > 0 {
		body["children"] = children
	}
	return e.ok("POST", "/v1/pages", body)["id"].(string)
}

// append appends children to a block and returns the created blocks.
func (e *env) append(id string, children ...any) []any {
	e.t.Helper()
	return e.ok("PATCH", "/v1/blocks/"+id+"/children", map[string]any{"children": children})["results"].([]any)
}

// listAll lists every child of a block, following cursors.
func (e *env) listAll(id string, pageSize int) []map[string]any {
	e.t.Helper()
	var out []map[string]any
	cursor := ""
	for {
		path := fmt.Sprintf("/v1/blocks/%s/children?page_size=%d", id, pageSize)
		if cursor != "" {
			path += "&start_cursor=" + cursor
		}
		body := e.ok("GET", path, nil)
		for _, r := range body["results"].([]any) {
			out = append(out, r.(map[string]any))
		}
		if body["has_more"] != true {
			return out
		}
		cursor = body["next_cursor"].(string)
	}
}

func text(s string) map[string]any {
	return map[string]any{"type": "text", "text": map[string]any{"content": s}}
}

func para(s string) map[string]any {
	return map[string]any{"object": "block", "type": "paragraph", "paragraph": map[string]any{"rich_text": []any{text(s)}}}
}

// block builds {"type": typ, typ: body}.
func block(typ string, body map[string]any) map[string]any {
	return map[string]any{"type": typ, typ: body}
}

func withChildren(typ string, body map[string]any, children ...any) map[string]any {
	body["children"] = children
	return block(typ, body)
}

func rt(items ...any) []any { return append([]any{}, items...) }

// blockText is the plain text of a block response's rich_text.
func blockText(b map[string]any) string {
	typ := b["type"].(string)
	body, _ := b[typ].(map[string]any)
	arr, _ := body["rich_text"].([]any)
	return plainText(arr)
}

// diffJSON compares two values by their JSON and describes the first
// difference ("" when equal).
func diffJSON(a, b any) string {
	ja, err := json.Marshal(a)
	if err != nil {
		return "marshal: " + err.Error()
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return "marshal: " + err.Error()
	}
	if bytes.Equal(ja, jb) {
		return ""
	}
	i := 0
	for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
		i++
	}
	from := max(i-80, 0)
	return fmt.Sprintf("first difference at byte %d:\n before …%s\n after  …%s", i,
		ja[from:min(i+80, len(ja))], jb[from:min(i+80, len(jb))])
}
