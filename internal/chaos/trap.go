package chaos

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// sprung is a kill a trap carried out.
type sprung struct {
	kind   Kind
	detail string
}

// trap kills the worker from inside an emulator's handler: once armed for
// a kind, the next matching request is served by the emulator, then the
// worker is killed, and only then is the answer written, to a process that
// no longer exists. So the upstream effect has happened and the worker
// never learns it: the hardest moment for exactly-once.
type trap struct {
	w      *workerProc
	mu     sync.Mutex
	armed  Kind
	skip   int // matching requests to let through before the kill
	sprung chan sprung
}

func newTrap(w *workerProc) *trap { return &trap{w: w, sprung: make(chan sprung, 1)} }

// arm makes a request of kind k kill the worker: the one after the next
// skip matching requests, so that kills land on every sort of request
// (for Notion: uploads, page creations, appends, property updates).
func (t *trap) arm(k Kind, skip int) {
	t.mu.Lock()
	t.armed, t.skip = k, skip
	t.mu.Unlock()
}

// disarm removes the trap; it reports whether it was still armed.
func (t *trap) disarm() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	was := t.armed != ""
	t.armed = ""
	return was
}

func (t *trap) isArmed(k Kind) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.armed == k
}

// spring kills the worker if the trap is still armed for k and has no
// request left to skip.
func (t *trap) spring(k Kind, detail string) {
	t.mu.Lock()
	if t.armed != k {
		t.mu.Unlock()
		return
	}
	if t.skip > 0 {
		t.skip--
		t.mu.Unlock()
		return
	}
	t.armed = ""
	t.mu.Unlock()
	if t.w.kill() {
		t.sprung <- sprung{kind: k, detail: detail}
	} else {
		t.sprung <- sprung{kind: k, detail: detail + " (the worker was not running)"}
	}
}

// wrap puts the trap for kind k in front of next, for requests match
// accepts.
func (t *trap) wrap(k Kind, next http.Handler, match func(*http.Request) bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !t.isArmed(k) || !match(r) {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		t.spring(k, r.Method+" "+r.URL.Path)
		for name, vs := range rec.Header() {
			w.Header()[name] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// graphRequest matches the Graph API's requests (not the identity
// platform's or the emulator's own endpoints).
func graphRequest(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/v1.0/") }

// notionWrite matches Notion requests that change something: creating or
// updating pages, databases and blocks, deleting blocks, file uploads;
// not reads and not database queries.
func notionWrite(r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/v1/") || r.Method == http.MethodGet {
		return false
	}
	return !(r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/query"))
}
