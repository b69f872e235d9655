// Package entity runs the limit model as a Temporal workflow: one long-lived
// limiter per (resource, app) that decides when each Graph request may leave,
// for every worker and every migration.
//
// The protocol is signals only (see shared/DESIGN.md, "Entity and protocol"):
//
//   - A requester workflow signals SignalRequest to the limiter with a
//     Message: requests to acquire (a request ID made in workflow code, the
//     requester's workflow and run IDs, user, lane, cost), leases to release
//     (with what upstream said), and requests it no longer waits for.
//   - The limiter signals SignalGrant back to the requester with every grant
//     for it (request ID, lease ID, lease expiry) or a refusal, and, for a
//     request it queued behind an open breaker, the breaker (a Hold).
//     A decision pass sends all its answers with one local activity
//     (SendGrants, through the worker's client: one marker event in the
//     limiter's history); the answers it could not deliver the limiter
//     signals itself (SignalExternalWorkflow), and the grants of a
//     requester that is gone are released.
//
// The first message starts the limiter (signal-with-start, through the
// EnsureLimiter activity), so no operator step is needed. Messages are
// idempotent: requests are deduplicated by ID, releases by lease ID, and a
// grant for a request the requester no longer waits for is released at once.
// Leases expire, so a requester that dies gives its concurrency slots back.
// The limiter continues as new when Temporal suggests it, carrying its whole
// state and every queued request.
//
// Requesters use Client (Acquire, Release, Do); the limit model itself is
// package limiter, which knows nothing of Temporal.
//
// For thousands of users one entity per app is too much state and too
// slow a decision (see bench/results/limiter-topology.md), so the limiter
// is sharded (ClientOptions.Shards; the worker chooses shard.Count of its
// -limiter-users, one shard for a small install): each
// user's requests go to the shard its ID hashes to (ShardWorkflowID), a
// limiter entity like the single one, with Input.Shard set. The app's
// limits are leased to the shards by CoordinatorWorkflow (package
// limiter/shard holds the logic): a shard reports what it holds and
// wants (SignalReport), the coordinator answers with a lease
// (SignalLease), and the shard grants only while its lease is valid and
// only within it. The first report starts the coordinator
// (signal-with-start through EnsureCoordinator). A shard's ID names the
// count (ShardID): when the workers' count changes, runs that began
// before keep their shards (each run keeps its count in its history) and
// new runs use the new ones, all under the one coordinator, which takes
// a shard of another count in when it first reports (shard.Coordinator.Join)
// and so never leases out more than the app's budget over both.
//
// A second kind of resource, limited by rate alone, is paced rather than
// permitted: PaceWorkflow (registered as PaceLimiter, one per resource
// and key, e.g. limiter/notion/<token fingerprint>) runs a
// limiter.Schedule behind a Workflow Update, UpdateReserve, and Pacing
// asks it from inside activities (see Pacing for why). Its protocol:
//
//   - reserve {slots n}: the entity answers at once with n send times
//     (ascending, never blocking the update; the first Firm of them firm,
//     the rest tentative). The first reserve of a process is an
//     update-with-start, so the entity starts itself, and carries the
//     process's configured spec, which the entity adopts if it differs.
//   - reserve {confirm t}: a tentative slot about to be used; the answer
//     says whether it still may be, or gives a slot in its place.
//   - reserve {pauseUntil u}: a Retry-After; no slot before u is handed
//     out or confirmed, to anyone. Slots firm before it may still be
//     used; the entity records them (limiter.Pause.Pending).
//
// The pace entity continues as new every few hundred updates, carrying
// its schedule. Tokens never reach it: it knows a token by its
// fingerprint.
package entity

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/shard"
)

// Signal and query names. They are part of the protocol: changing one
// breaks running workflows.
const (
	// SignalRequest carries a Message to the limiter.
	SignalRequest = "limiter-request"
	// SignalGrant carries a GrantMessage to a requester.
	SignalGrant = "limiter-grant"
	// SignalSetSpec replaces the limiter's spec (a limiter.Spec), so an
	// operator can raise or lower limits without a restart.
	SignalSetSpec = "set-spec"
	// QueryState returns a State.
	QueryState = "state"
	// QueryUsers takes (offset, limit int) and returns a UsersPage: the
	// state query lists only the busiest users.
	QueryUsers = "users"
	// QueryRetryAfter takes (user string, lane limiter.Lane, cost int) and
	// returns how long such a request would wait now (a time.Duration).
	QueryRetryAfter = "retry-after"
)

// WorkflowName is the limiter workflow's registered type name.
const WorkflowName = "GraphLimiter"

// WorkflowID is the stable ID of the limiter of resource for app, e.g.
// "limiter/graph-onenote/<app>".
func WorkflowID(resource, app string) string {
	return fmt.Sprintf("limiter/%s/%s", resource, app)
}

// Address names a requester workflow run.
type Address struct {
	WorkflowID string `json:"workflowID"`
	RunID      string `json:"runID"`
}

// Ask is one request to acquire a permit.
type Ask struct {
	// RequestID is made in workflow code, so a resent Ask reuses it.
	RequestID string       `json:"requestID"`
	User      string       `json:"user"`
	Lane      limiter.Lane `json:"lane"`
	Cost      int          `json:"cost,omitempty"`
	Slots     int          `json:"slots,omitempty"`
	Attempt   int          `json:"attempt,omitempty"`
	MinCost   int          `json:"minCost,omitempty"`
	// Remaining is the user's background work left (limiter.Request.Remaining).
	Remaining int `json:"remaining,omitempty"`
}

// Return gives a lease back with what upstream said. User and Cost are
// the grant's as the requester held it: a limiter that lost the grant
// (see limiter.Limiter.Charge) counts the request by them.
type Return struct {
	LeaseID   string          `json:"leaseID"`
	RequestID string          `json:"requestID,omitempty"`
	User      string          `json:"user,omitempty"`
	Cost      int             `json:"cost,omitempty"`
	Outcome   limiter.Outcome `json:"outcome"`
}

// Message is what a requester signals to the limiter. One message may
// carry several asks, returns and cancellations, so a busy requester
// needs few signals.
type Message struct {
	From    Address  `json:"from"`
	Acquire []Ask    `json:"acquire,omitempty"`
	Release []Return `json:"release,omitempty"`
	// Cancel lists request IDs the requester no longer waits for.
	Cancel []string `json:"cancel,omitempty"`
	// Sent is when the requester sent it (workflow time), for round-trip
	// measurements; it plays no part in decisions.
	Sent time.Time `json:"sent,omitempty"`
}

// Refusal says a request can never be granted (for example its cost is
// above every limit).
type Refusal struct {
	RequestID string `json:"requestID"`
	Reason    string `json:"reason"`
}

// Hold says a request was queued behind an open breaker: which (the
// app's or the user's), why it opened and when it lets a probe through.
type Hold struct {
	RequestID string              `json:"requestID"`
	Scope     string              `json:"scope"`
	Breaker   limiter.BreakerInfo `json:"breaker"`
}

// GrantMessage is what the limiter signals to a requester.
type GrantMessage struct {
	Grants  []limiter.Grant `json:"grants,omitempty"`
	Refused []Refusal       `json:"refused,omitempty"`
	// Held lists the requests just queued behind an open breaker, so the
	// requester can say what it waits for.
	Held []Hold `json:"held,omitempty"`
	// Run is the limiter run that decided (1 for the first run, counting
	// continue-as-new), for diagnostics.
	Run int `json:"run,omitempty"`
}

// Input starts (or continues) a limiter.
type Input struct {
	Resource string `json:"resource"`
	App      string `json:"app"`
	// Spec is the spec for a new limiter; nil means limiter.OneNote().
	// It is ignored when State is set.
	Spec *limiter.Spec `json:"spec,omitempty"`
	// State is the model's state carried across continue-as-new.
	State json.RawMessage `json:"state,omitempty"`
	// Requesters maps request IDs (queued or leased) to their requester.
	Requesters map[string]Address `json:"requesters,omitempty"`
	// Stats carries the running counters across continue-as-new.
	Stats Stats `json:"stats"`
	// MaxHistory continues as new at this many events even if Temporal
	// has not suggested it yet; 0 means 8,000.
	MaxHistory int `json:"maxHistory,omitempty"`
	// Skew lengthens every rate window the limiter enforces, so requests
	// that reach upstream a little later or earlier than their grant
	// (worker scheduling, network) still never crowd more than N into one
	// upstream window. 0 means DefaultSkew(spec).
	Skew time.Duration `json:"skew,omitempty"`
	// ContinueAfter continues as new after this many decision passes; 0
	// means never for this reason. Tests use it where history length is
	// not measured.
	ContinueAfter int `json:"continueAfter,omitempty"`
	// Shard, when set, makes this limiter one shard of a sharded limiter:
	// it serves the users that hash to it (shard.Of), and grants only
	// within the app-budget lease the coordinator gives it.
	Shard *ShardConfig `json:"shard,omitempty"`
	// Lease is a shard's lease holder across continue-as-new, and Parked
	// the requests it holds until a lease is large enough for them.
	Lease  shard.Holder      `json:"lease,omitzero"`
	Parked []limiter.Request `json:"parked,omitempty"`
}

// specOr is s, or limiter.OneNote() when s is nil (the default of every
// spec field here).
func specOr(s *limiter.Spec) limiter.Spec {
	if s == nil {
		return limiter.OneNote()
	}
	return *s
}

// Stats are the limiter's lifetime counters.
type Stats struct {
	// Granted counts permits granted per user, and Units the Graph
	// requests they cover (cost).
	Granted map[string]int `json:"granted,omitempty"`
	Units   map[string]int `json:"units,omitempty"`
	// Unsent counts, per user, the units released as never sent
	// (limiter.Outcome.Unsent): a request stopped early, or a permit
	// asked ahead that no caller took. Units less Unsent is what reached
	// Graph under this limiter's grants.
	Unsent map[string]int `json:"unsent,omitempty"`
	// Released, Expired, Refused, Orphaned (granted to a requester that
	// was gone) and Duplicates count those events. Charged counts the
	// releases of grants this limiter lost (see limiter.Limiter.Charge):
	// each is also counted in Granted, Units and Released.
	Released   int `json:"released"`
	Charged    int `json:"charged,omitempty"`
	Expired    int `json:"expired"`
	Refused    int `json:"refused"`
	Orphaned   int `json:"orphaned"`
	Duplicates int `json:"duplicates"`
	// Runs counts this limiter's runs (continue-as-new).
	Runs int `json:"runs"`
}

// State is the answer to QueryState.
type State struct {
	Model limiter.Snapshot `json:"model"`
	Stats Stats            `json:"stats"`
	// Waiting is the number of requests queued or leased with a known
	// requester.
	Waiting int `json:"waiting"`
	// HistoryLength is the current run's event count.
	HistoryLength int `json:"historyLength"`
	// Users and Leases are how many the model holds; Model lists at most
	// MaxStateUsers of them (the busiest) and MaxStateLeases leases.
	Users  int `json:"users"`
	Leases int `json:"leases"`
}
