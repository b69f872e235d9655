package notion_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// virtualClock is a notion.Clock whose Sleep moves time forward at once;
// the emulator reads the same clock, so rate limits and Retry-After hold
// in virtual time and tests do not wait.
type virtualClock struct {
	mu  sync.Mutex
	now time.Time
}

func newVirtualClock() *virtualClock {
	return &virtualClock{now: time.Date(2026, 11, 29, 9, 0, 0, 0, time.UTC)}
}

func (c *virtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t (backwards too: a test replays a moment).
func (c *virtualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func (c *virtualClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d > 0 {
		c.mu.Lock()
		c.now = c.now.Add(d)
		c.mu.Unlock()
	}
	return nil
}

// env is an emulator and what a test needs to talk to it.
type env struct {
	srv   *emu.Server
	http  *httptest.Server // set when the test needs a real HTTP server
	token string
	clock *virtualClock
}

// handlerTransport serves requests by calling a handler in-process, which
// is much cheaper than loopback TCP on a busy machine; the client code
// under test is the same.
type handlerTransport struct{ h http.Handler }

func (t handlerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	// Make it look as a server sees it: a body is never nil.
	in := r.Clone(r.Context())
	if in.Body == nil {
		in.Body = http.NoBody
	}
	in.RequestURI = r.URL.RequestURI()
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	in.Body.Close()
	return rec.Result(), nil
}

// baseURL is where the client sends requests.
func (e *env) baseURL() string {
	if e.http != nil {
		return e.http.URL
	}
	return "http://notion.emulator.test"
}

// transport is how the client reaches the emulator.
func (e *env) transport() http.RoundTripper {
	if e.http != nil {
		return http.DefaultTransport
	}
	return handlerTransport{e.srv}
}

func newEnv(t *testing.T, cfg emu.Config) *env {
	t.Helper()
	clock := newVirtualClock()
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	if cfg.Seed == 0 {
		cfg.Seed = 7
	}
	srv := emu.NewServer(cfg)
	return &env{srv: srv, token: srv.IssueToken(), clock: clock}
}

func newHTTPServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return hs
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// client returns a Client of the emulator, paced at Notion's 3 requests
// a second in virtual time. rt, if not nil, wraps the transport.
func (e *env) client(t *testing.T, rt func(http.RoundTripper) http.RoundTripper) *notion.Client {
	t.Helper()
	transport := e.transport()
	if rt != nil {
		transport = rt(transport)
	}
	c, err := notion.NewClient(notion.Config{BaseURL: e.baseURL(), Token: notion.StaticToken(e.token),
		HTTPClient: &http.Client{Transport: transport}, Clock: e.clock,
		Pacers: notion.NewPacers(notion.DefaultPacerConfig(), e.clock), Logger: quiet(),
		Retry: notion.RetryPolicy{MaxAttempts: 6, BaseDelay: 200 * time.Millisecond, MaxDelay: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// section makes a notebook with one section and returns its database.
func (e *env) section(t *testing.T, c *notion.Client) string {
	t.Helper()
	l, err := c.EnsureLayout(context.Background(), e.srv.RootPageID(), notion.NotebookSpec{ID: "nb", Name: "Notebook",
		Sections: []notion.SectionSpec{{ID: "s1", Name: "Section"}}})
	if err != nil {
		t.Fatalf("EnsureLayout: %v", err)
	}
	return l.SectionDatabaseIDs["s1"]
}

// resources serves generated resource bytes by resource ID.
type resources map[string][]byte

func (r resources) open(ctx context.Context, res blocks.Resource) (io.ReadCloser, int64, string, error) {
	b, ok := r[res.ID]
	if !ok {
		return nil, 0, "", fmt.Errorf("no resource %s", res.ID)
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), res.MIME, nil
}

// findDatabase returns the exported database with id.
func findDatabase(pages []emu.Page, id string) *emu.Database {
	for i := range pages {
		for j := range pages[i].Databases {
			if pages[i].Databases[j].ID == id {
				return &pages[i].Databases[j]
			}
		}
		if d := findDatabase(pages[i].Pages, id); d != nil {
			return d
		}
	}
	return nil
}

// prop reads a property of an exported row as text: a title or rich
// text's plain text, a select's name, a date's start.
func prop(p emu.Page, name string) string {
	v, _ := p.Properties[name].(map[string]any)
	switch v["type"] {
	case "title", "rich_text":
		s := ""
		items, _ := v[v["type"].(string)].([]any)
		for _, it := range items {
			s += it.(map[string]any)["plain_text"].(string)
		}
		return s
	case "select":
		if sel, ok := v["select"].(map[string]any); ok {
			return sel["name"].(string)
		}
	case "date":
		if d, ok := v["date"].(map[string]any); ok {
			return d["start"].(string)
		}
	}
	return ""
}

// exportedBlocks reads a row's blocks back as notion/blocks, normalised:
// no IDs, default colours empty, attached uploads as
// "upload:<filename>:<sha256>".
func exportedBlocks(t *testing.T, ws emu.Workspace, row emu.Page) []blocks.Block {
	t.Helper()
	raw, err := json.Marshal(row.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	var bs []blocks.Block
	if err := json.Unmarshal(raw, &bs); err != nil {
		t.Fatalf("exported blocks do not read back: %v", err)
	}
	uploads := map[string]string{}
	for _, u := range ws.Uploads {
		uploads[u.UploadID] = "upload:" + u.Filename + ":" + u.SHA256
	}
	return normalise(bs, func(id string) string {
		if s, ok := uploads[id]; ok {
			return s
		}
		return "unknown upload " + id
	})
}

// expectedBlocks is the input as the export should show it.
func expectedBlocks(t *testing.T, bs []blocks.Block, res resources) []blocks.Block {
	t.Helper()
	var subst func(bs []blocks.Block) []blocks.Block
	subst = func(bs []blocks.Block) []blocks.Block {
		out := make([]blocks.Block, len(bs))
		for i, b := range bs {
			if b.Media != nil && b.Media.Resource != nil {
				m := *b.Media
				sum := sha256.Sum256(res[m.Resource.ID])
				m.FileUploadID = "upload:" + m.Resource.Name + ":" + hex.EncodeToString(sum[:])
				if b.Type == blocks.File && m.Name == "" {
					m.Name = m.Resource.Name
				}
				m.Resource = nil
				b.Media = &m
			}
			b.Children = subst(b.Children)
			out[i] = b
		}
		return out
	}
	raw, err := json.Marshal(subst(bs))
	if err != nil {
		t.Fatal(err)
	}
	var back []blocks.Block
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	return normalise(back, func(id string) string { return id })
}

func normalise(bs []blocks.Block, upload func(string) string) []blocks.Block {
	if len(bs) == 0 {
		return nil
	}
	out := make([]blocks.Block, len(bs))
	for i, b := range bs {
		b.ID = ""
		if b.Color == "default" {
			b.Color = ""
		}
		if b.Media != nil {
			m := *b.Media
			if m.FileUploadID != "" {
				m.FileUploadID = upload(m.FileUploadID)
				m.HostedURL = ""
			}
			b.Media = &m
		}
		b.RichText = normaliseRuns(b.RichText)
		b.Caption = normaliseRuns(b.Caption)
		for j := range b.Cells {
			b.Cells[j] = normaliseRuns(b.Cells[j])
		}
		b.Children = normalise(b.Children, upload)
		out[i] = b
	}
	return out
}

func normaliseRuns(rt []blocks.RichText) []blocks.RichText {
	if len(rt) == 0 {
		return nil
	}
	out := make([]blocks.RichText, len(rt))
	for i, r := range rt {
		if r.Annotations.Color == "default" {
			r.Annotations.Color = ""
		}
		out[i] = r
	}
	return out
}

// diffBlocks describes the first difference between two block trees.
func diffBlocks(got, want []blocks.Block, path string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		p := fmt.Sprintf("%s/%d", path, i)
		g, w := got[i], want[i]
		gc, wc := g.Children, w.Children
		g.Children, w.Children = nil, nil
		if !reflect.DeepEqual(g, w) {
			gj, _ := json.Marshal(g)
			wj, _ := json.Marshal(w)
			return fmt.Sprintf("%s: got %s\nwant %s", p, gj, wj)
		}
		if d := diffBlocks(gc, wc, p); d != "" {
			return d
		}
	}
	if len(got) != len(want) {
		return fmt.Sprintf("%s: %d blocks, want %d", path, len(got), len(want))
	}
	return ""
}
