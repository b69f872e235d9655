package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/notebridge/notebridge/notion"
)

// doneWatch sits in front of the Notion emulator and records when each
// migrated page was finished: the moment the writer's last request, the
// PATCH that sets the row's migration status to done, succeeded.
type doneWatch struct {
	next http.Handler
	mu   sync.Mutex
	// at maps a Notion page ID to when it was first marked done.
	at map[string]time.Time
}

func newDoneWatch(next http.Handler) *doneWatch {
	return &doneWatch{next: next, at: map[string]time.Time{}}
}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}

func (d *doneWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPatch || !strings.HasPrefix(r.URL.Path, "/v1/pages/") {
		d.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(r.Body)
	r.Body.Close()
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	d.next.ServeHTTP(sw, r)
	if sw.status != http.StatusOK || !marksDone(body) {
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/v1/pages/")
	d.mu.Lock()
	if _, ok := d.at[id]; !ok {
		d.at[id] = time.Now()
	}
	d.mu.Unlock()
}

// marksDone reports whether a page update sets the migration status to
// done.
func marksDone(body []byte) bool {
	var u struct {
		Properties map[string]struct {
			Select *struct {
				Name string `json:"name"`
			} `json:"select"`
		} `json:"properties"`
	}
	if json.Unmarshal(body, &u) != nil {
		return false
	}
	p, ok := u.Properties[notion.PropStatus]
	return ok && p.Select != nil && p.Select.Name == notion.StatusDone
}

// times returns when pages were done, as offsets from t0.
func (d *doneWatch) times(t0 time.Time) []time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]time.Duration, 0, len(d.at))
	for _, t := range d.at {
		out = append(out, t.Sub(t0))
	}
	return out
}

// spanWatch sits in front of the Graph emulator and records when each
// Graph API request was being served, so stalls can tell a request in
// flight from none.
type spanWatch struct {
	next  http.Handler
	mu    sync.Mutex
	spans [][2]time.Time
}

func (s *spanWatch) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.URL.Path, "/v1.0/") {
		s.next.ServeHTTP(w, r)
		return
	}
	start := time.Now()
	s.next.ServeHTTP(w, r)
	end := time.Now()
	s.mu.Lock()
	s.spans = append(s.spans, [2]time.Time{start, end})
	s.mu.Unlock()
}

// since returns the spans as offsets from t0.
func (s *spanWatch) since(t0 time.Time) []Span {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Span, len(s.spans))
	for i, sp := range s.spans {
		out[i] = Span{Start: sp[0].Sub(t0), End: sp[1].Sub(t0)}
	}
	return out
}
