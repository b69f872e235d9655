package notion

import (
	"fmt"
	"strings"
	"time"
)

// Plan is a Notion workspace plan. The plan sets the 2026 request budgets
// (reference row 14), the Free block limit (row 15) and the per-file
// upload cap (row 16).
type Plan string

// Workspace plans.
const (
	PlanFree       Plan = "free"
	PlanPlus       Plan = "plus"
	PlanBusiness   Plan = "business"
	PlanEnterprise Plan = "enterprise"
)

// ParsePlan reads a plan name (case-insensitive).
func ParsePlan(s string) (Plan, error) {
	switch p := Plan(strings.ToLower(strings.TrimSpace(s))); p {
	case PlanFree, PlanPlus, PlanBusiness, PlanEnterprise:
		return p, nil
	}
	return "", fmt.Errorf("plan %q: want free, plus, business or enterprise", s)
}

// Paid says whether the plan is a paid one (multi-part uploads, no block
// limit).
func (p Plan) Paid() bool { return p != PlanFree }

// TokenType is the kind of connection a token belongs to. Only some kinds
// are held to the Free block limit (reference row 15).
type TokenType string

// Connection kinds.
const (
	// TokenInternal is an internal integration's token (the default).
	TokenInternal TokenType = "internal"
	// TokenOAuthSelected is a public OAuth connection restricted to
	// selected workspaces.
	TokenOAuthSelected TokenType = "oauth_selected"
	// TokenOAuthPublic is a public OAuth connection installable in any
	// workspace: exempt from the block limit.
	TokenOAuthPublic TokenType = "oauth_public"
	// TokenPersonal is a personal access token: exempt from the block
	// limit.
	TokenPersonal TokenType = "personal"
)

// ParseTokenType reads a connection kind (case-insensitive).
func ParseTokenType(s string) (TokenType, error) {
	switch t := TokenType(strings.ToLower(strings.TrimSpace(s))); t {
	case TokenInternal, TokenOAuthSelected, TokenOAuthPublic, TokenPersonal:
		return t, nil
	}
	return "", fmt.Errorf("token type %q: want internal, oauth_selected, oauth_public or personal", s)
}

// BlockLimitExempt says whether the workspace block limit spares this kind
// of connection: personal access tokens and OAuth connections installable
// in any workspace are exempt.
func (t TokenType) BlockLimitExempt() bool { return t == TokenPersonal || t == TokenOAuthPublic }

// Limits of the Free plan that Notion documents with a number.
const (
	// FreeBlockLimit is the lifetime block limit of a Free workspace with
	// more than one member (reference row 15).
	FreeBlockLimit = 1000
	// FreeMaxFileUploadBytes is a Free workspace's per-file cap: 5 MiB
	// (Notion's plan page; single-part only, multi-part needs a paid plan).
	FreeMaxFileUploadBytes = 5 << 20
	// ConnectionWindow is the length of the per-connection window
	// (reference row 14).
	ConnectionWindow = time.Minute
	// DefaultWorkspaceWindow is the emulator's per-workspace window. Notion
	// says only that its Retry-After can exceed a minute; five minutes is
	// an assumption.
	DefaultWorkspaceWindow = 5 * time.Minute
)

// PlanLimits are the limits a plan (and the workspace's member count) puts
// on the API.
type PlanLimits struct {
	// ConnectionBudget is how many requests one connection may send in a
	// 60-second window.
	ConnectionBudget int
	// WorkspaceBudget is how many requests all connections together may
	// send in one WorkspaceWindow.
	WorkspaceBudget int
	WorkspaceWindow time.Duration
	// BlockLimit is the lifetime block limit (0: none).
	BlockLimit int
	// MaxFileUploadBytes is the per-file cap reported on user objects.
	MaxFileUploadBytes int64
	// MultiPart says whether multi-part uploads (files over 20 MB) are
	// allowed.
	MultiPart bool
}

// LimitsOf returns the limits of plan for a workspace of members members
// (guests excluded). Notion's table of budgets per plan was not in the
// stored copy of its documentation: the budgets are assumptions (Free 180
// a minute, the old 3 requests a second; Plus 1.5x, Business 2.5x,
// Enterprise 5x; the workspace allows two connections' worth over five
// minutes), overridable with Config.ConnectionBudget and WorkspaceBudget.
func LimitsOf(plan Plan, members int) PlanLimits {
	conn := map[Plan]int{PlanFree: 180, PlanPlus: 270, PlanBusiness: 450, PlanEnterprise: 900}[plan]
	if conn == 0 {
		conn = 180
	}
	l := PlanLimits{
		ConnectionBudget:   conn,
		WorkspaceWindow:    DefaultWorkspaceWindow,
		WorkspaceBudget:    2 * conn * int(DefaultWorkspaceWindow/ConnectionWindow),
		MaxFileUploadBytes: DefaultMaxFileUploadBytes,
		MultiPart:          true,
	}
	if !plan.Paid() {
		l.MaxFileUploadBytes, l.MultiPart = FreeMaxFileUploadBytes, false
		if members > 1 {
			l.BlockLimit = FreeBlockLimit
		}
	}
	return l
}

// window is a fixed request window: a budget that resets every per,
// counted from the first request (Notion: "the Retry-After value is the
// time until the window resets").
type window struct {
	start time.Time
	used  int
}

// take charges one request at now against budget per per. It returns 0
// when admitted, or the whole seconds (at least 1) until the window
// resets.
func (w *window) take(now time.Time, budget int, per time.Duration) int {
	if w.start.IsZero() || !now.Before(w.start.Add(per)) {
		w.start, w.used = now, 0
	}
	if w.used >= budget {
		return max(int((w.start.Add(per).Sub(now)+time.Second-1)/time.Second), 1)
	}
	w.used++
	return 0
}

// refund returns a charge take made (a request refused by the other
// window is not counted in this one).
func (w *window) refund() {
	if w.used > 0 {
		w.used--
	}
}
