package workflows

import (
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// Registered workflow type names.
const (
	MigrateNotebookName = "MigrateNotebook"
	MigrateSectionName  = "MigrateSection"
	ScanNotebooksName   = "ScanNotebooks"
)

// Update and query names: part of the operator interface. Each update is
// validated before the notebook takes it: a refused one changes nothing
// and its error says why (see operator.go).
const (
	// UpdateRetrySection takes a section's ID, name or path and runs that
	// failed or skipped (password-protected, since unlocked) section
	// again.
	UpdateRetrySection = "retry-section"
	// UpdateRetryFailed runs every failed or skipped section again.
	UpdateRetryFailed = "retry-failed"
	// UpdateFinish completes a notebook that waits with failed or skipped
	// sections, with a report of what failed.
	UpdateFinish = "finish"
	// QueryProgress returns a NotebookProgress or SectionProgress.
	QueryProgress = "progress"
)

// LimiterResource names the limiter of Graph OneNote requests.
const LimiterResource = "graph-onenote"

// Search attributes (Keyword) the workflows upsert. Register them in the
// namespace (SearchAttributes lists them).
var (
	AttrUser     = temporal.NewSearchAttributeKeyKeyword("NoteBridgeUser")
	AttrNotebook = temporal.NewSearchAttributeKeyKeyword("NoteBridgeNotebook")
	AttrStatus   = temporal.NewSearchAttributeKeyKeyword("NoteBridgeStatus")
)

// NotebookStatuses are the values a notebook keeps in AttrStatus.
var NotebookStatuses = []string{"reading", "migrating", "waiting", "linking", "done", "done-with-failures", "failed", "stopped"}

// SearchAttributes returns the custom search attributes the workflows
// use, for registering them (e.g. devserver.Options.SearchAttributes).
func SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(AttrUser.ValueSet(""), AttrNotebook.ValueSet(""), AttrStatus.ValueSet(""))
}

// Caller runs the Graph activities of one workflow run. *entity.Client,
// which runs each under a permit of the limiter entity, is the one the
// product uses; the benchmarks' baselines (bench/baseline) and unit tests
// supply others through Workflows.NewCaller.
type Caller interface {
	Call(ctx workflow.Context, call entity.Call, result any) (entity.CallStats, error)
	Flush(ctx workflow.Context) error
}

// caller is the name the workflow code uses for Caller.
type caller = Caller

// Workflows are the migration workflows of one deployment. App identifies
// the Graph application whose limiter they share.
type Workflows struct {
	// App is the Graph application (client) ID: one limiter per app.
	App string
	// Limits is the limits profile used when an input names none ("" means
	// "onenote").
	Limits string
	// NewCaller, when set, makes each workflow run's Caller from the
	// run's limits spec instead of the limiter entity's client. It is
	// workflow code: deterministic, and the same on every worker. Nil (the
	// product) means the limiter.
	NewCaller func(ctx workflow.Context, spec limiter.Spec) Caller
	// LimiterShards, above 1, spreads the users over that many limiter
	// shards sharing the app budget through leases (package
	// limiter/shard); 0 or 1 is the single limiter entity. Every worker
	// must agree (a run keeps the count it started with: deployment).
	LimiterShards int
}

// New returns the workflows for app.
func New(app string) *Workflows { return &Workflows{App: app} }

// deployment is what a workflow run takes from its worker's settings:
// the Graph app, the limiter's shard count and the default limits
// profile. A run reads them once and keeps them in its history (a side
// effect), so it replays on a worker started with other settings and
// keeps asking the limiter it began with; a worker's settings enter
// workflow code nowhere else.
type deployment struct {
	App    string `json:"app"`
	Shards int    `json:"shards,omitempty"`
	Limits string `json:"limits,omitempty"`
}

// deployment reads this run's deployment (see the type).
func (w *Workflows) deployment(ctx workflow.Context) deployment {
	current := deployment{App: w.App, Shards: w.LimiterShards, Limits: w.Limits}
	var d deployment
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return current }).Get(&d); err != nil {
		// Only a history written by other code fails to decode.
		return current
	}
	return d
}

// limiterOf is the workflow ID of user's Graph limiter in d: the entity,
// or the user's shard.
func (d deployment) limiterOf(user string) string {
	return entity.ShardWorkflowID(LimiterResource, d.App, user, d.Shards)
}

// caller returns what runs this workflow run's Graph calls. askAhead is
// the client's entity.ClientOptions.AskAhead: a section's page workers
// ask ahead for one another, so that several grants travel in one
// message; a workflow whose calls come one after another asks for one.
func (w *Workflows) caller(ctx workflow.Context, spec limiter.Spec, d deployment, askAhead int) caller {
	if w.NewCaller != nil {
		return w.NewCaller(ctx, spec)
	}
	return entity.NewClient(ctx, entity.ClientOptions{Resource: LimiterResource, App: d.App, Spec: &spec, Shards: d.Shards, AskAhead: askAhead})
}

// Register registers the workflows under their stable names.
func (w *Workflows) Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(w.MigrateNotebook, workflow.RegisterOptions{Name: MigrateNotebookName})
	r.RegisterWorkflowWithOptions(w.MigrateSection, workflow.RegisterOptions{Name: MigrateSectionName})
	r.RegisterWorkflowWithOptions(w.ScanNotebooks, workflow.RegisterOptions{Name: ScanNotebooksName})
	r.RegisterWorkflowWithOptions(w.VerifyNotebook, workflow.RegisterOptions{Name: VerifyNotebookName})
}
