package chaos

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sprung is a kill a trap carried out.
type sprung struct {
	kind   Kind
	detail string
	// beforeStore is set for a refresh kill that struck before the
	// worker had stored the new tokens.
	beforeStore bool
	// worker is the worker killed: the one that sent the request.
	worker *workerProc
}

// trap kills the worker from inside an emulator's handler: once armed for
// a kind, the next matching request is served by the emulator, then the
// worker that sent it is killed, and only then is the answer written, to a
// process that no longer exists. So the upstream effect has happened and the worker
// never learns it: the hardest moment for exactly-once.
type trap struct {
	ws     *workers
	mu     sync.Mutex
	armed  Kind
	skip   int           // matching requests to let through before the kill
	delay  time.Duration // how long after its answer a KillAfterRefresh strikes
	sprung chan sprung
}

func newTrap(ws *workers) *trap { return &trap{ws: ws, sprung: make(chan sprung, 1)} }

// arm makes a request of kind k kill the worker: the one after the next
// skip matching requests, so that kills land on every sort of request
// (for Notion: uploads, page creations, appends, property updates).
func (t *trap) arm(k Kind, skip int) {
	t.mu.Lock()
	t.armed, t.skip, t.delay = k, skip, 0
	t.mu.Unlock()
}

// armRefresh makes the next token refresh kill the worker: during it
// (KillDuringRefresh), or delay after its answer (KillAfterRefresh).
func (t *trap) armRefresh(k Kind, delay time.Duration) {
	t.mu.Lock()
	t.armed, t.skip, t.delay = k, 0, delay
	t.mu.Unlock()
}

// armedKind returns the kind the trap is armed for ("" if none) and the
// delay of a KillAfterRefresh.
func (t *trap) armedKind() (Kind, time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.armed, t.delay
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

// spring kills the worker that sent r if the trap is still armed for k
// and has no request left to skip.
func (t *trap) spring(k Kind, r *http.Request, detail string) {
	t.springThen(k, r, func() sprung { return sprung{kind: k, detail: detail} })
}

// springThen is spring with the report made by after, once the worker is
// dead.
func (t *trap) springThen(k Kind, r *http.Request, after func() sprung) {
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
	w, found := t.ws.sender(r)
	killed := w.kill()
	s := after()
	s.worker = w
	if !found {
		s.detail += fmt.Sprintf(" (its sender not found among the workers: worker %d in turn)", w.n)
	}
	if !killed {
		s.detail += " (the worker was not running)"
	}
	t.sprung <- s
}

// wrapRefresh puts the refresh traps in front of next (the identity
// platform): armed with KillDuringRefresh, the next successful
// refresh-token grant is served, the worker killed, and the answer
// written to a process that no longer exists; armed with
// KillAfterRefresh, the answer is written and the worker killed the
// trap's delay later. A refused grant (no new tokens) is passed on and
// the trap stays armed. tokenFiles are the users' token files: whether one
// was replaced tells if the kill struck before the new tokens were
// stored.
func (t *trap) wrapRefresh(next http.Handler, tokenFiles []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k, delay := t.armedKind()
		if (k != KillDuringRefresh && k != KillAfterRefresh) || !refreshRequest(r) {
			next.ServeHTTP(w, r)
			return
		}
		before := make([]os.FileInfo, len(tokenFiles))
		for i, f := range tokenFiles {
			before[i], _ = os.Stat(f)
		}
		stored := func() bool {
			for i, f := range tokenFiles {
				if after, err := os.Stat(f); err == nil && before[i] != nil && !os.SameFile(before[i], after) {
					return true
				}
			}
			return false
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		answer := func() {
			for name, vs := range rec.Header() {
				w.Header()[name] = vs
			}
			// With its length the answer is complete once written: the
			// worker need not wait for the end of a chunked body, that
			// is, for the handler to return after the kill.
			w.Header().Set("Content-Length", strconv.Itoa(rec.Body.Len()))
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}
		if rec.Code != http.StatusOK {
			answer()
			return
		}
		if k == KillDuringRefresh {
			t.springThen(k, r, func() sprung {
				return sprung{kind: k, beforeStore: true,
					detail: fmt.Sprintf("%s %s (refresh_token grant): new tokens issued, killed before the answer reached the worker", r.Method, r.URL.Path)}
			})
			answer()
			return
		}
		answer()
		_ = http.NewResponseController(w).Flush()
		time.Sleep(delay)
		t.springThen(k, r, func() sprung {
			s := sprung{kind: k, beforeStore: !stored()}
			when := "after the worker had stored the new tokens"
			if s.beforeStore {
				when = "before the worker had stored the new tokens"
			}
			s.detail = fmt.Sprintf("%s %s (refresh_token grant): new tokens issued, killed %s after the answer, %s", r.Method, r.URL.Path, delay.Round(time.Microsecond), when)
			return s
		})
	})
}

// refreshRequest matches the identity platform's refresh-token grants
// (and leaves the request body readable for the handler after it).
func refreshRequest(r *http.Request) bool {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token") || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	form, err := url.ParseQuery(string(body))
	return err == nil && form.Get("grant_type") == "refresh_token"
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
		t.spring(k, r, r.Method+" "+r.URL.Path)
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
