package notion

import (
	"context"
	"log/slog"
	"time"
)

// Payload and upload limits the emulator enforces (reference §1.2 and §3).
const (
	maxTextLen          = 2000
	maxURLLen           = 2000
	maxEquationLen      = 1000
	maxRichTextItems    = 100
	maxChildren         = 100
	maxNesting          = 2
	maxBlocksPerRequest = 1000
	maxRequestBytes     = 500 * 1000
	maxPageSize         = 100
	maxEmailLen         = 200
	maxMultiSelect      = 100
	maxRelations        = 100
	maxFilenameBytes    = 900
	maxNumberOfParts    = 10000

	// MaxSinglePartBytes is the largest file a single_part upload accepts
	// (Notion: 20 MB).
	MaxSinglePartBytes = 20 * 1000 * 1000
	// MinPartBytes and MaxPartBytes bound every part of a multi_part upload
	// except the last, which may be smaller (Notion: 5 to 20 MiB).
	MinPartBytes = 5 << 20
	MaxPartBytes = 20 << 20
	// DefaultMaxFileUploadBytes is the per-file cap of a paid workspace (5 GiB).
	DefaultMaxFileUploadBytes = 5 << 30
)

// APIVersion is the oldest Notion-Version the emulator speaks, the one
// its own tests use; Versions lists them all.
const APIVersion = Version20220628

// Config configures a Server. The zero value is usable: real time, seed 0,
// 3 requests a second per token with bursts of 10, no faults, a paid
// workspace (no block limit, 5 GiB per file).
type Config struct {
	// Now is the clock for rate limiting, timestamps and upload expiry.
	// Nil means time.Now.
	Now func() time.Time
	// Sleep waits for slow-response faults. Nil means a real timer that
	// stops when ctx ends.
	Sleep func(ctx context.Context, d time.Duration)
	// Seed drives generated IDs and fault injection.
	Seed uint64
	// Tokens are integration tokens accepted from the start (more can be
	// added with AddToken or IssueToken).
	Tokens []string

	// Rate is the sustained requests per second allowed per token. Zero
	// means 3; negative disables rate limiting.
	Rate float64
	// Burst is the token bucket's size: how many requests may arrive at
	// once after a quiet spell. Zero means 10.
	Burst int

	// WorkspaceRate, when positive, adds a workspace-wide bucket shared by
	// all tokens (Notion's newer per-workspace limit), of WorkspaceBurst
	// (zero means 10) requests.
	WorkspaceRate  float64
	WorkspaceBurst int

	// Faults are the initial fault rates (see SetFaults).
	Faults Faults

	// MaxFileUploadBytes is the workspace's per-file cap, reported by
	// GET /v1/users/me. Zero means DefaultMaxFileUploadBytes.
	MaxFileUploadBytes int64
	// UploadExpiry is how long an unattached upload lives. Zero means 1 h.
	UploadExpiry time.Duration
	// WorkspaceBlockLimit caps the lifetime number of blocks (pages count)
	// in the workspace, like a Free workspace with several members (1000).
	// Zero means unlimited.
	WorkspaceBlockLimit int

	// Plan, when set, turns on the 2026 request limits of that plan
	// (LimitsOf): a fixed budget per connection per 60-second window and
	// one per workspace shared by every connection, answered 429 with
	// rate_limit_reason; the per-second bucket (Rate, Burst,
	// WorkspaceRate) is then off. It also sets the defaults of
	// MaxFileUploadBytes and WorkspaceBlockLimit, and a Free plan refuses
	// multi-part uploads. Empty keeps the older per-second model.
	Plan Plan
	// Members is the workspace's member count (guests excluded); a Free
	// workspace with more than one has the 1,000-block limit. Zero means 1.
	Members int
	// TokenType is the connection kind of every token (SetTokenType
	// changes one). Empty means TokenInternal.
	TokenType TokenType
	// ConnectionBudget and WorkspaceBudget override the plan's budgets;
	// WorkspaceWindow overrides the workspace window (5 min).
	ConnectionBudget int
	WorkspaceBudget  int
	WorkspaceWindow  time.Duration
	// BlocksUsed is how many blocks the workspace has created before the
	// emulator starts (they count toward WorkspaceBlockLimit).
	BlocksUsed int

	// WorkspaceName names the workspace in users/me. Empty means
	// "Note Bridge Emulator".
	WorkspaceName string
	// RootPageTitle is the title of the workspace-level page shared with
	// the integration that the integration can write under. Empty means
	// "Migrated notebooks".
	RootPageTitle string

	// Logger receives a debug log of every request. Nil discards logs.
	Logger *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = sleepContext
	}
	if c.Rate == 0 {
		c.Rate = 3
	}
	if c.Burst <= 0 {
		c.Burst = 10
	}
	if c.WorkspaceBurst <= 0 {
		c.WorkspaceBurst = 10
	}
	if c.Members <= 0 {
		c.Members = 1
	}
	if c.TokenType == "" {
		c.TokenType = TokenInternal
	}
	if c.Plan != "" {
		l := LimitsOf(c.Plan, c.Members)
		if c.MaxFileUploadBytes <= 0 {
			c.MaxFileUploadBytes = l.MaxFileUploadBytes
		}
		if c.WorkspaceBlockLimit == 0 {
			c.WorkspaceBlockLimit = l.BlockLimit
		}
		if c.ConnectionBudget <= 0 {
			c.ConnectionBudget = l.ConnectionBudget
		}
		if c.WorkspaceBudget <= 0 {
			c.WorkspaceBudget = l.WorkspaceBudget
		}
		if c.WorkspaceWindow <= 0 {
			c.WorkspaceWindow = l.WorkspaceWindow
		}
	}
	if c.MaxFileUploadBytes <= 0 {
		c.MaxFileUploadBytes = DefaultMaxFileUploadBytes
	}
	if c.UploadExpiry <= 0 {
		c.UploadExpiry = time.Hour
	}
	if c.WorkspaceName == "" {
		c.WorkspaceName = "Note Bridge Emulator"
	}
	if c.RootPageTitle == "" {
		c.RootPageTitle = "Migrated notebooks"
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func sleepContext(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
