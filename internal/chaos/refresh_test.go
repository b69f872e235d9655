package chaos

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestPlanRefreshKills(t *testing.T) {
	const expected = 1000
	p := PlanRefreshKills(1, 6, expected)
	if !slices.Equal(p, PlanRefreshKills(1, 6, expected)) {
		t.Fatal("the same seed gave two plans")
	}
	kinds := map[Kind]int{}
	for _, e := range p {
		kinds[e.Kind]++
		if e.At < expected*3/100 || e.At > expected*90/100 {
			t.Errorf("%s is outside 3%%..90%% of %d requests", e, expected)
		}
		if e.Kind == KillAfterRefresh && (e.Delay < 0 || e.Delay >= maxAfterRefreshDelay) || e.Kind == KillDuringRefresh && e.Delay != 0 {
			t.Errorf("%s: delay %s", e, e.Delay)
		}
	}
	if kinds[KillDuringRefresh] != 3 || kinds[KillAfterRefresh] != 3 {
		t.Errorf("kinds: %v", kinds)
	}
	all := merge(Plan(1, 4, 1, expected), p)
	if len(all) != 11 || !slices.IsSortedFunc(all, func(a, b Event) int { return int(a.At - b.At) }) {
		t.Errorf("merged plan of %d events out of order: %v", len(all), all)
	}
}

func TestRefreshMatcher(t *testing.T) {
	cases := []struct {
		method, path, body string
		want               bool
	}{
		{"POST", "/common/oauth2/v2.0/token", "grant_type=refresh_token&refresh_token=x", true},
		{"POST", "/common/oauth2/v2.0/token", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code", false},
		{"POST", "/common/oauth2/v2.0/devicecode", "grant_type=refresh_token", false},
		{"GET", "/common/oauth2/v2.0/token", "", false},
		{"GET", "/v1.0/me/onenote/notebooks", "", false},
	}
	for _, c := range cases {
		r := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		if got := refreshRequest(r); got != c.want {
			t.Errorf("%s %s %q: %v, want %v", c.method, c.path, c.body, got, c.want)
		}
		if rest, _ := io.ReadAll(r.Body); string(rest) != c.body && c.method == "POST" {
			t.Errorf("%s %s: the body left for the handler is %q", c.method, c.path, rest)
		}
	}
}

// TestRefreshTrap kills a real process inside a refresh, both ways: the
// identity platform answers every time, and the trap tells whether the
// token file was replaced before the kill.
func TestRefreshTrap(t *testing.T) {
	sleepBin, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	cases := []struct {
		kind  Kind
		delay time.Duration
		// store makes the client replace the token file once it has read
		// the answer, as the worker does with the new tokens.
		store           bool
		wantBeforeStore bool
		wantDetail      string
	}{
		{KillDuringRefresh, 0, true, true, "before the answer reached the worker"},
		{KillAfterRefresh, time.Millisecond, false, true, "before the worker had stored"},
		{KillAfterRefresh, 2 * time.Second, true, false, "after the worker had stored"},
	}
	for _, c := range cases {
		t.Run(string(c.kind), func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "alice.json.enc")
			if err := os.WriteFile(file, []byte("old"), 0o600); err != nil {
				t.Fatal(err)
			}
			w := &workerProc{bin: sleepBin, args: []string{"60"}, log: filepath.Join(dir, "worker.log")}
			if err := w.start(); err != nil {
				t.Fatal(err)
			}
			defer w.kill()
			tr := newTrap(&workers{ws: []*workerProc{w}})
			answered := 0
			identity := http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
				if err := r.ParseForm(); err != nil || !strings.HasPrefix(r.PostForm.Get("refresh_token"), "rt") {
					t.Errorf("the identity platform got %v %v", r.PostForm, err)
				}
				answered++
				if r.PostForm.Get("refresh_token") == "rt-dead" {
					rw.WriteHeader(http.StatusBadRequest)
					_, _ = io.WriteString(rw, `{"error":"invalid_grant"}`)
					return
				}
				_, _ = io.WriteString(rw, `{"access_token":"a"}`)
			})
			srv := httptest.NewServer(tr.wrapRefresh(identity, []string{file}))
			defer srv.Close()
			refresh := func(rt string, store bool) int {
				resp, err := http.PostForm(srv.URL+"/common/oauth2/v2.0/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}})
				if err != nil {
					t.Fatal(err)
				}
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || !strings.Contains(string(body), "access_token") && resp.StatusCode == http.StatusOK {
					t.Fatalf("answer %q: %v", body, err)
				}
				if store && resp.StatusCode == http.StatusOK {
					tmp := file + ".tmp"
					_ = os.WriteFile(tmp, []byte("new"), 0o600)
					_ = os.Rename(tmp, file)
				}
				return resp.StatusCode
			}
			refresh("rt", false) // unarmed
			tr.armRefresh(c.kind, c.delay)
			if code := refresh("rt-dead", false); code != http.StatusBadRequest || !w.running() {
				t.Fatalf("a refused refresh (%d) sprang the trap", code)
			}
			refresh("rt", c.store)
			// A KillAfterRefresh strikes after the answer: wait for its report.
			select {
			case s := <-tr.sprung:
				if s.kind != c.kind || s.beforeStore != c.wantBeforeStore || !strings.Contains(s.detail, c.wantDetail) {
					t.Errorf("sprung %+v, want %s, before store %v, detail with %q", s, c.kind, c.wantBeforeStore, c.wantDetail)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the trap did not report the kill")
			}
			if w.running() {
				t.Fatal("the worker survived the trap")
			}
			if answered != 3 {
				t.Errorf("the identity platform answered %d refreshes, want 3", answered)
			}
		})
	}
}
