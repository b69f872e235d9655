package activities

import (
	"context"
	"errors"
	"net/http"
	"os"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
	"github.com/notebridge/notebridge/readiness"
)

// Tokens gives the Graph token source of a user. The auth package's store
// implements it; tests use a static map. An error means the user is not
// signed in (or the store cannot be read).
type Tokens interface {
	TokenSource(user string) (onenote.TokenSource, error)
}

// Hooks let tests steer activities. The zero value does nothing.
type Hooks struct {
	// ListPagesSection, when set, maps the section ID a page listing
	// asks for to the one actually listed. Tests use it to make a
	// section's listing fail upstream (an unknown ID answers 404).
	ListPagesSection func(sectionID string) string
}

// Config configures Activities.
type Config struct {
	// GraphBaseURL is the Graph root (onenote.DefaultBaseURL if empty).
	GraphBaseURL string
	// GraphHTTP sends Graph requests (onenote.NewHTTPClient(60s) if nil).
	GraphHTTP *http.Client
	// Tokens supplies Graph tokens per user. Required.
	Tokens Tokens
	// Notion writes pages. Required for the Notion activities. Its
	// Pacing paces every Notion request the activities make, retries
	// included: the worker gives it the pace shared by every worker
	// process of the token (entity.Pacing).
	Notion *notion.Client
	// NotionFacts are what the worker knows of the Notion workspace that
	// the API does not tell (plan, connection kind, blocks used; members
	// when the connection may not list users), for CheckReadiness.
	NotionFacts readiness.Facts
	// StagingDir is where page content and resources are staged between
	// steps, each worker process in a directory of its own. Required; it
	// is made private to the worker's user (0700). See SweepStaging.
	StagingDir string
	// ImportDir, when set, is the only folder (with its subfolders) whose
	// OneNote files a file import (MigrateInput.File) may read; empty
	// lets it read any path this worker can. Set it wherever someone who
	// can start a workflow should not choose what the worker reads.
	ImportDir string
	// MaxResourceBytes caps one resource (256 MiB if 0).
	MaxResourceBytes int64
	// Signals, when set, lets a Notion activity tell its workflow that
	// Notion fails while the client retries (SignalUpstreamFailing); the
	// worker gives it its Temporal client. Without it the failure shows
	// only in the activity's heartbeat details.
	Signals Signaler
	// HeartbeatEvery is how often a long activity heartbeats while it
	// runs (defaultHeartbeatEvery if 0): well inside the heartbeat
	// timeouts of the workflows' option sets, so a live worker is never
	// taken for a lost one, and a lost one is noticed within them.
	HeartbeatEvery time.Duration
	// Hooks are for tests.
	Hooks Hooks
}

// defaultHeartbeatEvery is Config.HeartbeatEvery's default.
const defaultHeartbeatEvery = 5 * time.Second

// Activities are the activities of the migration workflows. Register the
// methods with a worker (see Register).
type Activities struct {
	cfg  Config
	gate *signalGate
	// record records a heartbeat (activity.RecordHeartbeat; tests count
	// them, since the SDK holds most back).
	record func(ctx context.Context, details ...any)
	// staging is this process's directory in StagingDir, and lock the
	// lock it holds on it while it lives.
	staging string
	lock    *os.File
	// files keeps the OneNote files the file source read open.
	files *fileCache
}

// New returns Activities for cfg.
func New(cfg Config) (*Activities, error) {
	if cfg.Tokens == nil {
		return nil, errors.New("activities: Config.Tokens is required")
	}
	if cfg.StagingDir == "" {
		return nil, errors.New("activities: Config.StagingDir is required")
	}
	dir, lock, err := claimStaging(cfg.StagingDir)
	if err != nil {
		return nil, err
	}
	if cfg.GraphHTTP == nil {
		cfg.GraphHTTP = onenote.NewHTTPClient(0)
	}
	if cfg.HeartbeatEvery <= 0 {
		cfg.HeartbeatEvery = defaultHeartbeatEvery
	}
	if cfg.MaxResourceBytes <= 0 {
		cfg.MaxResourceBytes = 256 << 20
	}
	return &Activities{cfg: cfg, gate: &signalGate{}, record: activity.RecordHeartbeat, staging: dir, lock: lock,
		files: &fileCache{root: cfg.ImportDir}}, nil
}

// graph returns a Graph client acting for user.
func (a *Activities) graph(user string) (*onenote.Client, error) {
	ts, err := a.cfg.Tokens.TokenSource(user)
	if err != nil {
		return nil, notSignedIn(user, err)
	}
	return onenote.New(onenote.Config{BaseURL: a.cfg.GraphBaseURL, HTTPClient: a.cfg.GraphHTTP, Tokens: ts})
}
