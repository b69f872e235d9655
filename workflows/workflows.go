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

// SearchAttributes returns the custom search attributes the workflows
// use, for registering them (e.g. devserver.Options.SearchAttributes).
func SearchAttributes() temporal.SearchAttributes {
	return temporal.NewSearchAttributes(AttrUser.ValueSet(""), AttrNotebook.ValueSet(""), AttrStatus.ValueSet(""))
}

// caller runs Graph activities under permits; *entity.Client is the real
// one.
type caller interface {
	Call(ctx workflow.Context, call entity.Call, result any) (entity.CallStats, error)
	Flush(ctx workflow.Context) error
}

// Workflows are the migration workflows of one deployment. App identifies
// the Graph application whose limiter they share.
type Workflows struct {
	// App is the Graph application (client) ID: one limiter per app.
	App string
	// Limits is the limits profile used when an input names none ("" means
	// "onenote").
	Limits string
	// Throttle chooses how Graph calls are paced: ThrottleLimiter (the
	// zero value) in production; the baselines exist for benchmarks.
	Throttle Throttle
	// newCaller replaces the limiter client in unit tests.
	newCaller func(ctx workflow.Context, spec limiter.Spec) caller
}

// Throttle names a way of pacing Graph calls.
type Throttle string

// The pacing strategies. Only ThrottleLimiter respects the budget by
// design; the others are the baselines the end-to-end benchmarks compare
// it with.
const (
	// ThrottleLimiter runs every Graph call under a permit of the limiter
	// entity.
	ThrottleLimiter Throttle = "limiter"
	// ThrottleBackoff calls Graph directly and retries a throttled call
	// with exponential backoff and jitter, like the Graph SDK's default.
	ThrottleBackoff Throttle = "backoff"
	// ThrottleQueueRetry calls Graph directly and puts a throttled call
	// back in the queue for 30 seconds (the seed design).
	ThrottleQueueRetry Throttle = "queue-retry"
)

// New returns the workflows for app.
func New(app string) *Workflows { return &Workflows{App: app} }

// caller returns what runs this workflow run's Graph calls: the limiter's
// client, or the baseline w.Throttle names. A value ParseThrottle would
// refuse means the limiter, the only pacing that respects the budget.
func (w *Workflows) caller(ctx workflow.Context, spec limiter.Spec) caller {
	if w.newCaller != nil {
		return w.newCaller(ctx, spec)
	}
	switch w.Throttle {
	case ThrottleBackoff, ThrottleQueueRetry:
		return newBaselineCaller(ctx, w.Throttle, spec)
	}
	return entity.NewClient(ctx, entity.ClientOptions{Resource: LimiterResource, App: w.App, Spec: &spec})
}

// Register registers the workflows under their stable names.
func (w *Workflows) Register(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(w.MigrateNotebook, workflow.RegisterOptions{Name: MigrateNotebookName})
	r.RegisterWorkflowWithOptions(w.MigrateSection, workflow.RegisterOptions{Name: MigrateSectionName})
	r.RegisterWorkflowWithOptions(w.ScanNotebooks, workflow.RegisterOptions{Name: ScanNotebooksName})
}
