package graph

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable clock for deterministic limit tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fixture is a server with generated data for alice, bob and carol.
type fixture struct {
	srv    *Server
	clock  *fakeClock
	tokens map[string]string
}

func newFixture(t *testing.T, cfg Config, spec GenSpec) *fixture {
	t.Helper()
	clock := newFakeClock()
	if cfg.Now == nil {
		cfg.Now = clock.Now
	}
	srv := NewServer(cfg)
	f := &fixture{srv: srv, clock: clock, tokens: map[string]string{}}
	for _, u := range []string{"alice", "bob", "carol"} {
		sp := spec
		sp.Owner = u
		srv.AddNotebooks(u, Generate(sp)...)
		f.tokens[u] = srv.IssueToken(u, []string{"Notes.Read"}, 24*time.Hour)
	}
	return f
}

// do sends a request in process and returns the recorder.
func (f *fixture) do(t *testing.T, user, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	// Spaces (in $filter) are sent escaped, as a client would.
	req := httptest.NewRequest(method, "http://graph.test"+strings.ReplaceAll(path, " ", "%20"), rd)
	if user != "" {
		req.Header.Set("Authorization", "Bearer "+f.tokens[user])
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	return rec
}

func (f *fixture) get(t *testing.T, user, path string) *httptest.ResponseRecorder {
	t.Helper()
	return f.do(t, user, http.MethodGet, path, "")
}

// graphErrorCode returns error.code of a Graph error body.
func graphErrorCode(t *testing.T, body []byte) string {
	t.Helper()
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body %q: %v", body, err)
	}
	return e.Error.Code
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
	return v
}

type pageList struct {
	Value []struct {
		ID                   string `json:"id"`
		Title                string `json:"title"`
		LastModifiedDateTime string `json:"lastModifiedDateTime"`
		CreatedDateTime      string `json:"createdDateTime"`
		Level                *int   `json:"level"`
		Order                *int   `json:"order"`
		ContentURL           string `json:"contentUrl"`
		Links                struct {
			OneNoteClientURL struct {
				Href string `json:"href"`
			} `json:"oneNoteClientUrl"`
			OneNoteWebURL struct {
				Href string `json:"href"`
			} `json:"oneNoteWebUrl"`
		} `json:"links"`
	} `json:"value"`
	NextLink string `json:"@odata.nextLink"`
}

// firstSection returns the id of user's first section.
func (f *fixture) firstSection(user string) string {
	f.srv.dataMu.RLock()
	defer f.srv.dataMu.RUnlock()
	return f.srv.users[user].sectionOrder[0].section.ID
}
