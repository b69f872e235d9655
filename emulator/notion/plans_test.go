package notion

import (
	"bytes"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func rateReason(r response) string {
	ad, _ := r.body["additional_data"].(map[string]any)
	s, _ := ad["rate_limit_reason"].(string)
	return s
}

func TestPlanConnectionWindow(t *testing.T) {
	e := newEnv(t, Config{Plan: PlanFree, ConnectionBudget: 5, WorkspaceBudget: 100})
	// The budget may be spent in one burst.
	for i := range 5 {
		if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("request %d within the budget: %d %s", i, r.status, r.raw)
		}
	}
	e.clock.Advance(20 * time.Second)
	r := e.do("GET", "/v1/users/me", nil)
	if r.status != http.StatusTooManyRequests || rateReason(r) != reasonToken {
		t.Fatalf("beyond the budget: %d %s", r.status, r.raw)
	}
	// Retry-After is the time until the window resets: 60 - 20 s.
	if ra := r.header.Get("Retry-After"); ra != "40" {
		t.Errorf("Retry-After = %q, want 40", ra)
	}
	e.clock.Advance(40 * time.Second)
	if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
		t.Errorf("after the window reset: %d %s", r.status, r.raw)
	}
}

func TestPlanWorkspaceWindowAcrossConnections(t *testing.T) {
	e := newEnv(t, Config{Plan: PlanPlus, ConnectionBudget: 4, WorkspaceBudget: 6, WorkspaceWindow: 3 * time.Minute})
	other := e.srv.IssueToken()
	for range 4 {
		if r := e.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("first connection: %d", r.status)
		}
	}
	e2 := *e
	e2.token = other
	for range 2 {
		if r := e2.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("second connection within the workspace budget: %d", r.status)
		}
	}
	// The second connection is within its own budget (2 of 4) but the
	// workspace's 6 are spent: refused with the workspace reason and a
	// Retry-After longer than a minute.
	r := e2.do("GET", "/v1/users/me", nil)
	if r.status != 429 || rateReason(r) != reasonWorkspace {
		t.Fatalf("workspace limit: %d %s", r.status, r.raw)
	}
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra != 180 {
		t.Errorf("Retry-After = %q, want 180", r.header.Get("Retry-After"))
	}
	// A refusal by the workspace is not charged to the connection: after
	// the workspace window resets, the second connection has a fresh
	// connection window too, and may send its full budget.
	e.clock.Advance(3 * time.Minute)
	for i := range 4 {
		if r := e2.do("GET", "/v1/users/me", nil); r.status != 200 {
			t.Fatalf("after the reset, request %d: %d %s", i, r.status, r.raw)
		}
	}
}

func TestPlanBlockLimit(t *testing.T) {
	tests := []struct {
		name    string
		plan    Plan
		members int
		typ     TokenType
		refused bool
	}{
		{"free multi-member internal", PlanFree, 3, TokenInternal, true},
		{"free multi-member oauth restricted to selected workspaces", PlanFree, 3, TokenOAuthSelected, true},
		{"free multi-member personal access token", PlanFree, 3, TokenPersonal, false},
		{"free multi-member public oauth", PlanFree, 3, TokenOAuthPublic, false},
		{"free single member", PlanFree, 1, TokenInternal, false},
		{"paid", PlanBusiness, 30, TokenInternal, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t, Config{Plan: tt.plan, Members: tt.members, TokenType: tt.typ, BlocksUsed: FreeBlockLimit - 3,
				ConnectionBudget: 1000, WorkspaceBudget: 1000})
			// The root page is one block: 998 used, 2 left.
			page := e.createPage(e.srv.RootPageID(), "Notes")
			r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{para("a"), para("b")}})
			if got := r.status != 200; got != tt.refused {
				t.Fatalf("append past the limit: status %d, refused %v, want %v: %s", r.status, got, tt.refused, r.raw)
			}
			if tt.refused && !strings.Contains(r.message(), "block limit of 1000") {
				t.Errorf("refusal does not name the limit: %s", r.message())
			}
			// Reads stay available.
			if r := e.do("GET", "/v1/blocks/"+page+"/children", nil); r.status != 200 {
				t.Errorf("read after the limit: %d", r.status)
			}
		})
	}
}

func TestSetTokenTypeExemptsOneToken(t *testing.T) {
	e := newEnv(t, Config{Plan: PlanFree, Members: 2, BlocksUsed: FreeBlockLimit, ConnectionBudget: 1000, WorkspaceBudget: 1000})
	if r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"title": map[string]any{"title": rt(text("x"))}}}); r.status != 400 {
		t.Fatalf("internal token past the limit: %d", r.status)
	}
	pat := e.srv.IssueToken()
	if err := e.srv.SetTokenType(pat, TokenPersonal); err != nil {
		t.Fatal(err)
	}
	if got := e.srv.TokenTypeOf(pat); got != TokenPersonal {
		t.Fatalf("TokenTypeOf = %q", got)
	}
	if got := e.srv.TokenTypeOf(e.token); got != TokenInternal {
		t.Fatalf("the other token's type = %q, want internal (the default)", got)
	}
	e.token = pat
	e.createPage(e.srv.RootPageID(), "written with a personal access token")
	if got := e.srv.Stats().Blocks; got != FreeBlockLimit+2 {
		t.Errorf("blocks = %d, want %d (exempt writes still count)", got, FreeBlockLimit+2)
	}
}

func TestPlanUploadCap(t *testing.T) {
	e := newEnv(t, Config{Plan: PlanFree, ConnectionBudget: 1000, WorkspaceBudget: 1000})
	me := e.ok("GET", "/v1/users/me", nil)
	limits := me["bot"].(map[string]any)["workspace_limits"].(map[string]any)
	if got := limits["max_file_upload_size_in_bytes"]; got != float64(FreeMaxFileUploadBytes) {
		t.Errorf("users/me cap = %v, want %d", got, FreeMaxFileUploadBytes)
	}
	r := e.do("POST", "/v1/file_uploads", map[string]any{"mode": "multi_part", "filename": "big.mp4", "number_of_parts": 3})
	if r.status != 400 || !strings.Contains(r.message(), "paid workspaces") {
		t.Errorf("multi_part on Free: %d %s", r.status, r.raw)
	}
	u := e.createUpload(map[string]any{"filename": "scan.pdf"})
	if r := e.send(u["id"].(string), "scan.pdf", bytes.Repeat([]byte("x"), FreeMaxFileUploadBytes+1), 0); r.status != 400 ||
		!strings.Contains(r.message(), "exceeds this workspace's limit of 5242880") {
		t.Errorf("file over the Free cap: %d %s", r.status, r.raw)
	}
	e.uploadFile("small.pdf", []byte("%PDF-1.4 small"))
}

func TestListUsersCountsMembers(t *testing.T) {
	e := newEnv(t, Config{Plan: PlanFree, Members: 3})
	var people, bots int
	cursor := ""
	for {
		path := "/v1/users?page_size=2"
		if cursor != "" {
			path += "&start_cursor=" + cursor
		}
		page := e.ok("GET", path, nil)
		for _, u := range page["results"].([]any) {
			switch u.(map[string]any)["type"] {
			case "person":
				people++
			case "bot":
				bots++
				cap := u.(map[string]any)["bot"].(map[string]any)["workspace_limits"].(map[string]any)["max_file_upload_size_in_bytes"]
				if cap != float64(FreeMaxFileUploadBytes) {
					t.Errorf("bot cap = %v", cap)
				}
			}
		}
		if page["has_more"] != true {
			break
		}
		cursor = page["next_cursor"].(string)
	}
	if people != 3 || bots != 1 {
		t.Errorf("listed %d people and %d bots, want 3 and 1", people, bots)
	}
}

func TestWindowTake(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var w window
	tests := []struct {
		at   time.Duration
		want int
	}{{0, 0}, {time.Second, 0}, {59 * time.Second, 1}, {59*time.Second + 500*time.Millisecond, 1}, {60 * time.Second, 0}, {61 * time.Second, 0}, {62 * time.Second, 58}}
	for _, tt := range tests {
		if got := w.take(t0.Add(tt.at), 2, time.Minute); got != tt.want {
			t.Errorf("take at +%v = %d, want %d", tt.at, got, tt.want)
		}
	}
}
