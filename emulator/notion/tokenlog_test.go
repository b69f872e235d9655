package notion

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestMaxInWindow(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	at := func(ms ...int) []RequestRecord {
		out := make([]RequestRecord, len(ms))
		for i, m := range ms {
			out[i] = RequestRecord{Time: t0.Add(time.Duration(m) * time.Millisecond)}
		}
		return out
	}
	cases := []struct {
		name string
		recs []RequestRecord
		want int
	}{
		{"empty", nil, 0},
		{"one", at(0), 1},
		{"evenly at 3 a second", at(0, 333, 666, 1000, 1333, 1666, 2000), 3},
		{"window is half-open: 1000 ms apart do not share a second", at(0, 1000, 2000), 1},
		{"burst of 4 inside 999 ms", at(0, 10, 20, 999, 2500), 4},
		{"unsorted input", at(1500, 0, 1400, 600, 1300), 4},
		{"same instant", at(5, 5, 5, 5, 5), 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := MaxInWindow(c.recs, time.Second); got != c.want {
				t.Errorf("MaxInWindow = %d, want %d", got, c.want)
			}
		})
	}
}

// TestRateLimitIsPerTokenAcrossConnections sends one token's requests
// through several independent clients (separate connections, as separate
// processes would): they share the token's budget, while another token
// keeps its own ([N5]). The control API's log then shows each token's
// requests by fingerprint, never the token.
func TestRateLimitIsPerTokenAcrossConnections(t *testing.T) {
	clock := newFakeClock()
	srv := NewServer(Config{Seed: 1, Now: clock.Now, Rate: 3, Burst: 5})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	tokA, tokB := srv.IssueToken(), srv.IssueToken()
	clients := make([]*http.Client, 3)
	for i := range clients {
		clients[i] = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	}
	get := func(c *http.Client, tok string) int {
		req, _ := http.NewRequest("GET", ts.URL+"/v1/users/me", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Notion-Version", APIVersion)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	var statusA []int
	for i := range 7 {
		statusA = append(statusA, get(clients[i%3], tokA))
	}
	want := []int{200, 200, 200, 200, 200, 429, 429}
	for i := range want {
		if statusA[i] != want[i] {
			t.Fatalf("token A through 3 clients: statuses %v, want %v", statusA, want)
		}
	}
	for i := range 5 {
		if st := get(clients[i%3], tokB); st != 200 {
			t.Fatalf("token B request %d: %d; its budget is its own", i, st)
		}
	}
	clock.Advance(1500 * time.Millisecond)
	tAfter := clock.Now()
	if st := get(clients[0], tokA); st != 200 {
		t.Fatalf("token A after waiting: %d", st)
	}

	fetch := func(query string) (int, string) {
		res, err := http.Get(ts.URL + "/_emulator/log" + query)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	status, body := fetch("?token=" + TokenFingerprint(tokA))
	if status != 200 {
		t.Fatalf("log: %d %s", status, body)
	}
	if strings.Contains(body, tokA) || strings.Contains(body, tokB) {
		t.Fatalf("log shows a token: %s", body)
	}
	var got struct{ Tokens []TokenLog }
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tokens) != 1 || got.Tokens[0].Token != TokenFingerprint(tokA) {
		t.Fatalf("log tokens = %+v", got.Tokens)
	}
	la := got.Tokens[0]
	if len(la.Requests) != 8 || la.MaxInOneSecond != 7 || la.MaxAdmittedInOneSecond != 5 {
		t.Errorf("token A: %d requests, max %d, admitted max %d; want 8, 7, 5", len(la.Requests), la.MaxInOneSecond, la.MaxAdmittedInOneSecond)
	}
	if r := la.Requests[5]; r.Status != 429 || r.Method != "GET" || r.Path != "/v1/users/me" {
		t.Errorf("6th request = %+v, want a 429 GET /v1/users/me", r)
	}

	_, body = fetch("")
	var all struct{ Tokens []TokenLog }
	json.Unmarshal([]byte(body), &all)
	if len(all.Tokens) != 2 {
		t.Errorf("log of every token lists %d tokens, want 2", len(all.Tokens))
	}
	_, body = fetch("?token=" + TokenFingerprint(tokA) + "&since=" + url.QueryEscape(tAfter.Format(time.RFC3339Nano)))
	json.Unmarshal([]byte(body), &got)
	if len(got.Tokens) != 1 || len(got.Tokens[0].Requests) != 1 {
		t.Errorf("since filter: %s", body)
	}
	if status, _ := fetch("?token=0000000000000000"); status != http.StatusNotFound {
		t.Errorf("unknown fingerprint: %d, want 404", status)
	}
	if status, _ := fetch("?since=yesterday"); status != http.StatusBadRequest {
		t.Errorf("bad since: %d, want 400", status)
	}
	req, _ := http.NewRequest("DELETE", ts.URL+"/_emulator/log", nil)
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE log: %v %v", res, err)
	}
	if logs := srv.RequestLog(TokenFingerprint(tokA), time.Time{}); len(logs) != 1 || len(logs[0].Requests) != 0 {
		t.Errorf("after DELETE: %+v", logs)
	}
}

func TestTokenFingerprint(t *testing.T) {
	a, b := TokenFingerprint("secret_a"), TokenFingerprint("secret_b")
	if len(a) != 16 || a == b || a != TokenFingerprint("secret_a") || strings.Contains(a, "secret") {
		t.Errorf("fingerprints %q %q", a, b)
	}
}

// TestDebugLogNamesTokensByFingerprint: the per-request debug log names
// the token by fingerprint, never the token itself (known or not).
func TestDebugLogNamesTokensByFingerprint(t *testing.T) {
	var buf bytes.Buffer
	e := newEnv(t, Config{Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	e.do("GET", "/v1/users/me", nil)
	e.request("GET", "/v1/users/me", nil, map[string]string{"Authorization": "Bearer secret_wrong"})
	e.do("POST", "/v1/pages", `{"broken`)
	out := buf.String()
	if strings.Contains(out, e.token) || strings.Contains(out, "secret_wrong") {
		t.Fatalf("a token reached the log:\n%s", out)
	}
	if !strings.Contains(out, "token="+TokenFingerprint(e.token)) || strings.Count(out, "notion emulator request") != 3 {
		t.Errorf("log lacks the fingerprinted request lines:\n%s", out)
	}
}
