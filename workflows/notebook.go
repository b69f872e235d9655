package workflows

import (
	"errors"
	"fmt"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/internal/seconds"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/report"
)

// PhaseWaiting is the notebook's phase while failed sections wait for an
// operator.
const PhaseWaiting = "waiting for retry-section, retry-failed or finish"

// Section statuses in a notebook.
const (
	SectionPending = "pending"
	SectionRunning = "running"
	SectionDone    = "done"
	SectionFailed  = "failed"
	// SectionSkipped is a section that cannot be migrated as it is (it
	// is password-protected): it is reported with the reason, the others
	// migrate, and the notebook waits, as for a failed section, for a
	// retry-section once a person has unlocked it (or finish).
	SectionSkipped = "skipped"
)

// SectionSummary is a section's line in the notebook's report and
// progress.
type SectionSummary struct {
	SectionRef
	Status   string `json:"status"`
	Error    string `json:"error,omitempty"`
	Attempts int    `json:"attempts"`
	// The counts of the section's last finished run.
	Pages       int           `json:"pages"`
	Written     int           `json:"written"`
	Skipped     int           `json:"skipped"`
	Failed      int           `json:"failed"`
	FailedPages []PageFailure `json:"failedPages,omitempty"`
	// Relisted is set when Graph ignored $skip and the pages were listed
	// again following @odata.nextLink.
	Relisted bool `json:"relisted,omitempty"`
	// Live is a running section's last report (progress query only).
	Live *SectionPulse `json:"live,omitempty"`
	// Counted is what the section's runs so far add to the notebook's
	// counts, carried across runs and retries.
	Counted SectionCount `json:"counted,omitzero"`
	// DatabaseID is the section's Notion database (the notebook's report
	// only): `starter report` reads the loss records of its rows.
	DatabaseID string `json:"databaseID,omitempty"`
	// result is the section's last full result.
	result *SectionResult
}

func (s *SectionSummary) setResult(r *SectionResult) {
	s.result = r
	s.Pages, s.Written, s.Skipped, s.Failed, s.FailedPages, s.Relisted = 0, 0, 0, 0, nil, false
	if r != nil {
		s.Pages, s.Written, s.Skipped, s.Failed, s.FailedPages = r.Pages, r.Written, r.Skipped, r.Failed, r.FailedPages
		s.Relisted = r.Relisted
	}
}

// NotebookReport is MigrateNotebook's result.
type NotebookReport struct {
	User         string `json:"user"`
	NotebookID   string `json:"notebookID"`
	NotebookName string `json:"notebookName"`
	// NotebookPageID is the notebook's Notion page ("" in a dry run).
	NotebookPageID string           `json:"notebookPageID,omitempty"`
	DryRun         bool             `json:"dryRun,omitempty"`
	Sections       []SectionSummary `json:"sections"`
	Pages          int              `json:"pages"`
	Written        int              `json:"written"`
	Skipped        int              `json:"skipped"`
	FailedPages    int              `json:"failedPages"`
	// FailedSections counts sections that did not complete cleanly.
	FailedSections int `json:"failedSections"`
	// SkippedSections counts sections left out because they cannot be
	// read (password-protected).
	SkippedSections int `json:"skippedSections,omitempty"`
	// Losses counts the items lost and Approximations those kept in
	// another form (over every page), on PagesWithLosses pages;
	// LossPages names up to 20 of them. LossKinds counts them by kind
	// over every page, and the "Migration report" page in Notion
	// (ReportPageID) lists each one; ReportError says why it could not
	// be written.
	Losses          int                `json:"losses,omitempty"`
	Approximations  int                `json:"approximations,omitempty"`
	PagesWithLosses int                `json:"pagesWithLosses,omitempty"`
	LossPages       []PageLoss         `json:"lossPages,omitempty"`
	LossKinds       []report.KindCount `json:"lossKinds,omitempty"`
	ReportPageID    string             `json:"reportPageID,omitempty"`
	ReportError     string             `json:"reportError,omitempty"`
	// Verification counts every migrated page's read-back verdict, as
	// the rows hold it (from the migration report); Verified counts
	// those written by this run and read back as written, VerifyReads
	// the Notion reads that cost.
	Verification *report.Verification `json:"verification,omitempty"`
	Verified     int                  `json:"verified,omitempty"`
	VerifyReads  int                  `json:"verifyReads,omitempty"`
	// VerifySkipped is set when the migration turned verification off
	// (skipVerify). ReportKept is set when a sync run changed no row and
	// so left the migration report, and its counts, as they were
	// (LossKinds and Verification are then not known).
	VerifySkipped bool `json:"verifySkipped,omitempty"`
	ReportKept    bool `json:"reportKept,omitempty"`
	// LinkPages and LinkBlocks count the link pass; LinkFailed counts
	// pages whose links Notion refused to change.
	LinkPages  int `json:"linkPages"`
	LinkBlocks int `json:"linkBlocks"`
	LinkFailed int `json:"linkFailed,omitempty"`
	// LinkLosses counts the internal links the link pass kept as text
	// (their page was not migrated), on LinkLossPages pages; the pages
	// LossPages names carry them in their notes, and Approximations
	// counts them too.
	LinkLosses    int `json:"linkLosses,omitempty"`
	LinkLossPages int `json:"linkLossPages,omitempty"`
	// Permits counts the Graph permits the sections took (one a request
	// attempt, over every run and retry) and PermitsWaited their wait:
	// the figures of the last progress query.
	Permits       int              `json:"permits"`
	PermitsWaited seconds.Duration `json:"permitWaitSeconds"`
	// UnsentUnits counts Graph permit units granted but not used
	// (resource downloads that stopped early, permits asked ahead that no
	// page took), which the limiter gives back: those of every section
	// run, failed ones and retries included. The limiter's state counts
	// a few more: grants that came for a page no longer waiting.
	UnsentUnits int `json:"unsentUnits,omitempty"`
	// Reruns counts pages run again because the worker holding them was
	// lost, and MostReruns is the most of them one page needed (bounded
	// by maxPageRuns-1).
	Reruns     int `json:"reruns,omitempty"`
	MostReruns int `json:"mostReruns,omitempty"`
	// Readiness is a dry run's Notion readiness verdict for the pages it
	// listed (package readiness).
	Readiness string `json:"readiness,omitempty"`
	// Sync is what a sync run found and did (nil for a migration).
	Sync *SyncReport `json:"sync,omitempty"`
	// Structure is a migration re-run's row passes (nil on a first
	// migration, and on a sync, whose report holds its own): the rows
	// of pages moved to another section since, found in the database of
	// the section they left and moved to their page's (Moved), then the
	// parents, order and titles of the listed rows when some moved.
	Structure *activities.ReconcileStructureResult `json:"structure,omitempty"`
	// ViewsNotMade names the section databases left without their view
	// "OneNote order" because Notion refused the Views API (notion.Layout).
	ViewsNotMade string `json:"viewsNotMade,omitempty"`
	Message      string `json:"message"`
}

// NotebookState is a notebook migration's progress, carried across
// continue-as-new in MigrateInput.State. Only the workflow sets it.
type NotebookState struct {
	NotebookID   string           `json:"notebookID"`
	NotebookName string           `json:"notebookName"`
	Sections     []CarriedSection `json:"sections"`
	Queue        []int            `json:"queue,omitempty"`
	Finish       bool             `json:"finish,omitempty"`
	// Databases maps section IDs to their Notion databases; Gone those
	// whose database is gone from Notion to the message naming it.
	Databases map[string]string `json:"databases,omitempty"`
	Gone      map[string]string `json:"gone,omitempty"`
	// NotebookPageID is the notebook's Notion page.
	NotebookPageID string    `json:"notebookPageID,omitempty"`
	Started        time.Time `json:"started"`
	Runs           int       `json:"runs"`
	// LastPage and LastError: see Health.
	LastPage  time.Time      `json:"lastPage,omitzero"`
	LastError *UpstreamError `json:"lastError,omitempty"`
	// Sync is a sync run's sweep, done before the sections ran.
	Sync *SyncReport `json:"sync,omitempty"`
	// Own is the Graph permits of the notebook's own calls so far.
	Own SectionCount `json:"own,omitzero"`
	// ViewsNotMade: see NotebookReport.
	ViewsNotMade string `json:"viewsNotMade,omitempty"`
	// Structure: see NotebookReport.
	Structure *activities.ReconcileStructureResult `json:"structure,omitempty"`
}

// CarriedSection is a section's line with its last result.
type CarriedSection struct {
	SectionSummary
	Result *SectionResult `json:"result,omitempty"`
}

// NotebookProgress answers the progress query of a notebook. Its JSON
// (MarshalJSON) is that of starter status --json: pages and
// sectionCounts apart, durations in seconds, a one-line summary.
type NotebookProgress struct {
	Phase    string           `json:"phase"`
	Sections []SectionSummary `json:"sections"`
	Pending  int              `json:"pending"`
	Running  int              `json:"running"`
	Done     int              `json:"done"`
	Failed   int              `json:"failed"`
	// Skipped counts the sections skipped (password-protected) that wait
	// for a retry-section.
	Skipped int `json:"skipped,omitempty"`
	// Pages counts are over finished sections and what running ones
	// last reported (PagesListed counts the pages listed so far).
	PagesListed  int           `json:"pagesListed"`
	PagesDone    int           `json:"pagesDone"`
	PagesFailed  int           `json:"pagesFailed"`
	PagesSkipped int           `json:"pagesSkipped"`
	Permits      int           `json:"permits"`
	Waited       time.Duration `json:"permitsWaited"`
	// ETA is the time left: the pages left at the pace seen so far or
	// the Graph budget's, whichever is slower, and the sections not
	// listed yet at the pace of those done (0 until it can be told).
	ETA     time.Duration `json:"eta"`
	Message string        `json:"message,omitempty"`
	// Health names the last upstream error, a stall and what to do.
	Health Health `json:"health"`
	// Outcome is what the migration lost, approximated and verified,
	// once it ended with its report (nil before, and for a dry run).
	Outcome *Outcome `json:"outcome,omitempty"`
}

// notebook is one MigrateNotebook run.
type notebook struct {
	w        *Workflows
	dep      deployment
	in       MigrateInput
	phase    string
	id, name string
	sections []*SectionSummary
	started  time.Time
	now      time.Time
	queue    []int
	running  int
	finish   bool
	// changes counts section completions and operator updates, to wake
	// the loop.
	changes int
	message string
	// dbs maps section IDs to their Notion databases; page is the
	// notebook's Notion page. former maps the sections the notebook no
	// longer lists to their databases, whose rows a sync reads too.
	dbs    map[string]string
	page   string
	former []notion.FormerSection
	// elsewhere names the databases not where OneNote places them (a
	// sync run reports them); gone maps the sections whose database is
	// gone from Notion to the message that names it.
	elsewhere []string
	gone      map[string]string
	// viewsNotMade names the databases left without their view.
	viewsNotMade string
	// startedRuns counts the section runs this run started.
	startedRuns int
	runs        int
	// stop, when set, is why the migration must end once the running
	// sections are done: no new section starts.
	stop error
	// ended is set once no section runs again (the link pass, the end).
	ended bool
	// live holds the running sections' last reports, by section ID;
	// lastPage and lastErr are the latest any section reported, resumed
	// when a section last started. budget is the Graph budget's pace.
	live      map[string]*SectionPulse
	lastPage  time.Time
	resumed   time.Time
	lastErr   *UpstreamError
	breaker   *BreakerHold
	budget    Budget
	taskQueue string
	// syncRep is a sync run's report, and listed each section's listing,
	// handed to the sections that write (see sweep).
	syncRep *SyncReport
	listed  map[string][]activities.PageMeta
	// structure is a migration re-run's row passes (see findMoved).
	structure *activities.ReconcileStructureResult
	// step is when the phase last changed (stepStall); own counts the
	// Graph permits of the notebook's own calls (the tree, a sync's
	// listings and checks).
	step stepWatch
	own  SectionCount
	// outcome is the ended migration's losses, approximations and
	// verification (NotebookReport.Outcome).
	outcome *Outcome
}

// MigrateNotebook migrates one notebook into Notion: it reads the tree (one
// Graph call under a permit), creates the Notion containers, runs one
// MigrateSection child per section a few at a time, waits for the
// operator's updates while sections have failed, and finally rewrites
// internal links.
func (w *Workflows) MigrateNotebook(ctx workflow.Context, in MigrateInput) (NotebookReport, error) {
	dep := w.deployment(ctx)
	if in.Limits == "" {
		in.Limits = dep.Limits
	}
	if err := in.Validate(); err != nil {
		return NotebookReport{}, err
	}
	spec, _ := limiter.Profile(in.Limits)
	nb := &notebook{w: w, dep: dep, in: in, phase: "reading", started: workflow.Now(ctx), live: map[string]*SectionPulse{},
		budget: BudgetOf(spec), taskQueue: workflow.GetInfo(ctx).TaskQueueName}
	nb.resumed = nb.started
	if err := workflow.SetQueryHandlerWithOptions(ctx, QueryProgress, func() (NotebookProgress, error) {
		nb.now = workflow.Now(ctx)
		return nb.progress(), nil
	}, workflow.QueryHandlerOptions{Description: "Sections and live page counts, ETA, the last Graph or Notion error, " +
		"a stall and the next command to run (a NotebookProgress)"}); err != nil {
		return NotebookReport{}, err
	}
	nb.receivePulses(ctx)
	receiveFailures(ctx, "", func(ctx workflow.Context, e *UpstreamError) {
		nb.heard(time.Time{}, e)
		nb.details(ctx)
	})
	nb.watchStalls(ctx)
	nb.watchSteps(ctx)
	if err := nb.handleUpdates(ctx); err != nil {
		return NotebookReport{}, err
	}
	nb.upsert(ctx, "reading")
	nb.details(ctx)
	lim := w.caller(ctx, spec, dep, 0)
	rep, err := nb.run(ctx, lim)
	if ferr := lim.Flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
	switch {
	case workflow.IsContinueAsNewError(err):
		return rep, err
	case err != nil:
		nb.phase, nb.message = "failed", err.Error()
		status := "failed"
		if nb.stop != nil {
			nb.phase, status = "stopped", "stopped"
		}
		nb.upsert(ctx, status)
	case rep.FailedSections > 0:
		nb.upsert(ctx, "done-with-failures")
	default:
		nb.upsert(ctx, "done")
	}
	nb.details(ctx)
	return rep, err
}

func (nb *notebook) run(ctx workflow.Context, lim caller) (NotebookReport, error) {
	if st := nb.in.State; st != nil {
		nb.restore(ctx, st)
		return nb.migrate(ctx)
	}
	tree, err := nb.readTree(ctx, lim)
	if err != nil {
		return NotebookReport{}, err
	}
	nb.id, nb.name = tree.ID, tree.Name
	nb.upsert(ctx, "reading")
	refs := flatten(*tree)
	refs, err = filterSections(refs, nb.in.Include, nb.in.Exclude)
	if err != nil {
		return NotebookReport{}, err
	}
	for _, r := range refs {
		nb.sections = append(nb.sections, &SectionSummary{SectionRef: r, Status: SectionPending})
	}
	var layout notion.Layout
	if !nb.in.DryRun {
		if err := nb.checkReadiness(ctx, lim, refs); err != nil {
			return NotebookReport{}, err
		}
		nb.phase = "creating Notion containers"
		nb.details(ctx)
		actx := workflow.WithActivityOptions(ctx, notionLayoutOptions("Create the notebook's pages and databases in Notion"))
		err := workflow.ExecuteActivity(actx, activities.EnsureLayoutName,
			activities.EnsureLayoutInput{ParentPageID: nb.in.NotionParent, Notebook: *tree, AdoptNotebookPage: nb.in.AdoptNotebookPage}).Get(ctx, &layout)
		if err != nil {
			return NotebookReport{}, nb.explain(err)
		}
		nb.recovered(ServiceNotion)
	}
	nb.dbs, nb.page, nb.former, nb.elsewhere = layout.SectionDatabaseIDs, layout.NotebookPageID, layout.Former, layout.Elsewhere
	nb.gone, nb.viewsNotMade = layout.Gone, layout.ViewsNotMade
	if layout.ViewsNotMade != "" {
		nb.elsewhere = append(nb.elsewhere, layout.ViewsNotMade)
	}
	for _, s := range nb.sections {
		if msg := layout.Gone[s.ID]; msg != "" {
			// Its database is gone from Notion: writing the section
			// again would copy its pages a second time. It is named,
			// and the others go on.
			s.Status, s.Error = SectionFailed, msg
		}
	}
	if nb.in.Sync != nil && !nb.in.DryRun {
		if err := nb.sweep(ctx, lim); err != nil {
			return NotebookReport{}, err
		}
		return nb.migrate(ctx)
	}
	if layout.Existing && !nb.in.DryRun {
		if err := nb.findMoved(ctx, lim); err != nil {
			return NotebookReport{}, err
		}
	}
	for i, s := range nb.sections {
		if s.Status == SectionPending {
			nb.queue = append(nb.queue, i)
		}
	}
	return nb.migrate(ctx)
}

// restore takes up the state a previous run carried over.
func (nb *notebook) restore(ctx workflow.Context, st *NotebookState) {
	nb.id, nb.name, nb.dbs, nb.finish, nb.runs = st.NotebookID, st.NotebookName, st.Databases, st.Finish, st.Runs
	nb.gone, nb.viewsNotMade = st.Gone, st.ViewsNotMade
	nb.lastPage, nb.lastErr = st.LastPage, st.LastError
	nb.own = st.Own
	nb.page = st.NotebookPageID
	nb.syncRep = st.Sync
	nb.structure = st.Structure
	nb.queue = append([]int(nil), st.Queue...)
	if !st.Started.IsZero() {
		nb.started = st.Started
	}
	for _, cs := range st.Sections {
		s := cs.SectionSummary
		s.result = cs.Result
		nb.sections = append(nb.sections, &s)
	}
	nb.upsert(ctx, "migrating")
}

// state is what a continue-as-new carries.
func (nb *notebook) state() *NotebookState {
	st := &NotebookState{NotebookID: nb.id, NotebookName: nb.name, Queue: append([]int(nil), nb.queue...),
		Finish: nb.finish, Databases: nb.dbs, Gone: nb.gone, NotebookPageID: nb.page, Started: nb.started, Runs: nb.runs + 1,
		LastPage: nb.lastPage, LastError: nb.lastErr, Sync: nb.syncRep, Own: nb.own, ViewsNotMade: nb.viewsNotMade,
		Structure: nb.structure}
	// Keep the carried input small: a few failures and losses per
	// section are enough for the report.
	const keep = 5
	for _, s := range nb.sections {
		cs := CarriedSection{SectionSummary: *s}
		cs.FailedPages = cs.FailedPages[:min(len(cs.FailedPages), keep)]
		if r := s.result; r != nil {
			rc := *r
			rc.FailedPages = rc.FailedPages[:min(len(rc.FailedPages), keep)]
			rc.LossPages = rc.LossPages[:min(len(rc.LossPages), keep)]
			cs.Result = &rc
		}
		st.Sections = append(st.Sections, cs)
	}
	return st
}

// continueNow reports whether this run has grown enough to hand over to
// a new one (Temporal suggests it, or SectionsPerRun section runs were
// started).
func (nb *notebook) continueNow(ctx workflow.Context) bool {
	return workflow.GetInfo(ctx).GetContinueAsNewSuggested() ||
		(nb.in.SectionsPerRun > 0 && nb.startedRuns >= nb.in.SectionsPerRun)
}

// migrate runs the sections, a few at a time, waits for the operator's
// updates while sections have failed, then rewrites internal links.
func (nb *notebook) migrate(ctx workflow.Context) (NotebookReport, error) {
	nb.phase = "migrating"
	nb.upsert(ctx, "migrating")
	for {
		canStart := func() bool {
			return len(nb.queue) > 0 && nb.running < nb.in.SectionParallelism && nb.stop == nil && !nb.continueNow(ctx)
		}
		for canStart() {
			i := nb.queue[0]
			nb.queue = nb.queue[1:]
			nb.start(ctx, i, nb.dbs[nb.sections[i].ID])
		}
		settled := func() bool { return nb.running == 0 && len(nb.queue) == 0 }
		if nb.stop != nil && nb.running == 0 {
			return nb.stopped()
		}
		if settled() && (nb.waiting() == 0 || nb.finish) {
			nb.ended = true
			break
		}
		if nb.running == 0 && nb.continueNow(ctx) {
			// Nothing runs: hand the state to a new run, so history
			// stays bounded. The update handlers change the state
			// without blocking; none is left half done.
			if err := workflow.Await(ctx, func() bool { return workflow.AllHandlersFinished(ctx) }); err != nil {
				return NotebookReport{}, err
			}
			next := nb.in
			next.State = nb.state()
			return NotebookReport{}, workflow.NewContinueAsNewError(ctx, MigrateNotebookName, next)
		}
		if settled() && nb.phase != PhaseWaiting {
			nb.phase = PhaseWaiting
			nb.upsert(ctx, "waiting")
		}
		nb.details(ctx)
		seen := nb.changes
		if err := workflow.Await(ctx, func() bool {
			return nb.changes != seen || canStart() ||
				(settled() && (nb.waiting() == 0 || nb.finish)) || (nb.running == 0 && (nb.stop != nil || nb.continueNow(ctx)))
		}); err != nil {
			return NotebookReport{}, err
		}
		if len(nb.queue) > 0 && nb.phase == PhaseWaiting {
			nb.phase = "migrating"
			nb.upsert(ctx, "migrating")
		}
	}
	rep := nb.report()
	if nb.in.DryRun {
		rep.Readiness = readinessReport(ctx, len(rep.Sections), rep.Pages, nb.in.SkipAttachments)
	}
	if !nb.in.DryRun && nb.syncRep != nil {
		if err := nb.reconcileStructure(ctx); err != nil {
			return rep, err
		}
	} else if !nb.in.DryRun {
		if err := nb.placeMoved(ctx); err != nil {
			return rep, err
		}
	}
	if !nb.in.DryRun {
		nb.phase = "rewriting links"
		nb.upsert(ctx, "linking")
		nb.details(ctx)
		if err := nb.linkPass(ctx, &rep); err != nil {
			return rep, err
		}
		if nb.syncRep == nil || nb.syncRep.changedRows() {
			// A sync that changed no row leaves the losses as they were.
			nb.writeReport(ctx, &rep)
		} else {
			rep.ReportKept = true
		}
		nb.appendSyncReport(ctx, &rep)
	}
	rep.Sync, rep.Structure = nb.syncRep, nb.structure
	rep.VerifySkipped = nb.in.SkipVerify
	nb.outcome = rep.Outcome()
	nb.phase = "done"
	rep.Message = nb.summary(rep)
	return rep, nil
}

// stopped ends a migration a section stopped (a fatal condition met on
// the way): the error says what to do, and its details hold the report of
// what was migrated.
func (nb *notebook) stopped() (NotebookReport, error) {
	rep := nb.report()
	nb.phase = "stopped"
	var app *temporal.ApplicationError
	msg := nb.stop.Error()
	if errors.As(nb.stop, &app) {
		msg = app.Message()
	}
	done := 0
	for _, s := range rep.Sections {
		if s.Status == SectionDone {
			done++
		}
	}
	rep.Message = fmt.Sprintf("%s. Migrated before it stopped: %d pages written, %d unchanged, %d of %d sections complete; "+
		"nothing already in Notion is lost, and starting the migration again skips what is there and goes on where it stopped",
		strings.TrimSuffix(msg, "."), rep.Written, rep.Skipped, done, len(rep.Sections))
	// The cause is what stopped it (a lost sign-in, the block limit), so
	// the starter and the Web UI show why.
	cause := nb.stop
	if app := failure.Find(nb.stop, failure.Config); app != nil && app.Unwrap() != nil {
		cause = app.Unwrap()
	}
	return NotebookReport{}, temporal.NewNonRetryableApplicationError(rep.Message, failure.Config, cause, rep)
}

// readTree finds the notebook asked for and reads its whole tree: the
// expanded notebooks call (one Graph request per page of notebooks), then
// one request per listing of the section groups below the first level,
// each under its own permit; without $expand when Graph fails that call.
func (nb *notebook) readTree(ctx workflow.Context, lim caller) (*activities.NotebookTree, error) {
	if nb.in.File != "" {
		return nb.readFileTree(ctx)
	}
	r := newTreeReader(lim, nb.in.User, limiter.Background)
	r.onAttempt = func(a entity.Attempt) {
		switch {
		case a.Err != nil:
			nb.heard(time.Time{}, upstreamOf(ServiceGraph, a.Err, a.Outcome, a.At, ""))
		case nb.lastErr != nil && nb.lastErr.Ongoing && nb.lastErr.Service == ServiceGraph:
			c := *nb.lastErr
			c.Ongoing = false
			nb.lastErr = &c
		}
	}
	trees, names, err := r.notebooks(ctx, nb.in.Notebook)
	if err == nil && len(trees) == 1 {
		err = r.complete(ctx, trees[0])
	}
	nb.own.took(entity.CallStats{Attempts: r.requests, Waited: r.waited})
	if err != nil {
		return nil, nb.explain(err)
	}
	if len(trees) == 1 {
		return trees[0], nil
	}
	avail := "none"
	if len(names) > 0 {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		avail = strings.Join(quoted, ", ")
	}
	return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"notebook %q not found for user %q; available notebooks: %s. Start again with one of these names (or an ID) in \"notebook\"",
		nb.in.Notebook, nb.in.User, avail), failure.Config, nil)
}

// explain turns an error a person must act on into one that says what to
// do: a Config error whose cause is err, so its type (a lost sign-in, the
// library limit) still reaches the starter and the Web UI. Other errors
// are returned as they are. Whether the error stops the migration is
// failure.Decide's to say; this only words it.
func (nb *notebook) explain(err error) error {
	app, _ := failure.Of(err)
	if app == nil {
		return err
	}
	var msg string
	switch app.Type() {
	case failure.NotSignedIn:
		msg = strings.TrimSuffix(app.Message(), ".")
		if !strings.Contains(msg, "starter login") {
			msg = fmt.Sprintf("user %q is not signed in to Microsoft (%s): run \"starter login --user %s\"", nb.in.User, msg, nb.in.User)
		}
		if !strings.Contains(msg, "start the migration again") {
			msg += ", then start the migration again"
		}
	case failure.GraphLibraryLimit:
		msg = "OneNote refuses to list this account's notebooks (error 10008: the document library holds more than 5,000 items). " +
			"Move files out of the OneDrive/SharePoint library that holds the notebooks, or migrate from a library with fewer items, then start again"
	case failure.GraphPermission:
		msg = fmt.Sprintf("user %q may not read these notebooks (403): check the app's Notes.Read permission and consent, then start again", nb.in.User)
	case failure.GraphAuth:
		msg = fmt.Sprintf("Microsoft rejected the sign-in of user %q: sign in again (starter login --user %s), then start the migration again",
			nb.in.User, nb.in.User)
	case failure.NotionNotShared:
		msg = fmt.Sprintf("the Notion page %s is not shared with the integration (or does not exist): open it in Notion, "+
			"choose ••• > Connections and add the Note Bridge integration, then start again", nb.in.NotionParent)
	case failure.NotionAuth:
		msg = "Notion rejected the integration token: check the worker's Notion token, then start again"
	case failure.NotionBlockLimit:
		msg = StopBlockLimit + ": upgrade the Notion workspace (or free some of its blocks), then start the migration again"
	default:
		return err
	}
	return temporal.NewNonRetryableApplicationError(msg, failure.Config, err)
}

// stopFor is the error a migration ends with after section s stopped
// before its last page: the section reports the stop's message and type,
// which become the cause again.
func (nb *notebook) stopFor(s *SectionSummary, res SectionResult) error {
	cause := temporal.NewNonRetryableApplicationError(res.Stopped, res.StoppedType, nil)
	if stop := nb.explain(cause); stop != cause {
		return stop
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf("section %q stopped: %s", s.Path, res.Stopped), failure.Config, cause)
}

// start runs section i as a child workflow.
func (nb *notebook) start(ctx workflow.Context, i int, db string) {
	s := nb.sections[i]
	if msg := nb.gone[s.ID]; msg != "" {
		// Its database is gone from Notion (the layout named it): a
		// retry would write its pages a second time. Starting the
		// migration again looks for it anew.
		s.Status, s.Error = SectionFailed, msg
		nb.changes++
		return
	}
	s.Status, s.Error = SectionRunning, ""
	s.Attempts++
	nb.running++
	nb.resumed = workflow.Now(ctx)
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            SectionWorkflowID(nb.in.User, nb.id, s.ID),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		// A notebook that ends any way (cancelled, terminated, timed
		// out) asks its running sections to cancel, so they release
		// their limiter permits (section.windDown) instead of holding
		// them until the leases expire.
		ParentClosePolicy: enumspb.PARENT_CLOSE_POLICY_REQUEST_CANCEL,
		StaticSummary:     clipText(fmt.Sprintf("Section %q of notebook %q (%s)", s.Name, nb.name, nb.in.User), 200),
		StaticDetails: fmt.Sprintf("Migrates OneNote section **%s** (ID %s) of user %s into Notion database %s, attempt %d. "+
			"It reports its page counts to the notebook %s (signal %s).",
			clipText(s.Path, 200), s.ID, nb.in.User, orNone(db), s.Attempts, NotebookWorkflowID(nb.in.User, nb.id), SignalSectionProgress),
	})
	in := SectionInput{User: nb.in.User, NotebookID: nb.id, Section: s.SectionRef, DatabaseID: db, Limits: nb.in.Limits,
		DryRun: nb.in.DryRun, PageParallelism: nb.in.PageParallelism, PagesPerRun: nb.in.PagesPerRun,
		Content: nb.in.ContentOptions, Listed: nb.listed[s.ID], File: nb.in.File}
	nb.startedRuns++
	workflow.Go(ctx, func(ctx workflow.Context) {
		var res SectionResult
		err := workflow.ExecuteChildWorkflow(cctx, MigrateSectionName, in).Get(ctx, &res)
		s.Counted.ended(res, nb.live[s.ID])
		delete(nb.live, s.ID)
		if res.Done+res.Failed > 0 {
			nb.heard(workflow.Now(ctx), res.LastError)
		}
		nb.heard(time.Time{}, upstreamOf("", err, limiter.Outcome{}, workflow.Now(ctx), s.Path))
		if sr := nb.syncRep; sr != nil && sr.UnchangedBySection != nil && err == nil {
			// One set of numbers: a sync run's unchanged pages are its
			// report's (a renamed, moved or wobbling page is neither
			// written nor unchanged: the report counts it by what
			// changed).
			res.Skipped = sr.UnchangedBySection[s.ID]
		}
		app, decision := failure.Of(err)
		switch {
		case err != nil && decision == failure.SkipSection:
			s.Status, s.Error = SectionSkipped, app.Message()
			s.setResult(nil)
		case err != nil:
			s.Status, s.Error = SectionFailed, errorText(err)
			s.setResult(nil)
			if decision == failure.Stop && nb.stop == nil {
				// No section can go on (the sign-in is gone, the
				// library is over its limit): stop.
				nb.stop = nb.explain(err)
			}
		case res.Stopped != "":
			s.Status, s.Error = SectionFailed, "stopped: "+res.Stopped
			s.setResult(&res)
			if nb.stop == nil {
				nb.stop = nb.stopFor(s, res)
			}
		case res.Failed > 0:
			s.Status, s.Error = SectionFailed, fmt.Sprintf("%d pages failed", res.Failed)
			s.setResult(&res)
		default:
			s.Status = SectionDone
			s.setResult(&res)
		}
		nb.running--
		nb.changes++
	})
}

// retriable reports whether a section in this status waits for an
// operator's retry: it failed, or was skipped (password-protected).
func retriable(status string) bool { return status == SectionFailed || status == SectionSkipped }

// waiting counts the sections that wait for an operator: failed or
// skipped.
func (nb *notebook) waiting() int {
	n := 0
	for _, s := range nb.sections {
		if retriable(s.Status) {
			n++
		}
	}
	return n
}

// linkPass rewrites the internal links of the migrated pages once
// every section has finished. Nothing of it travels through history: the
// link targets are read from the section databases (each row holds its
// OneNote link ID) and staged on one worker, and the pages to rewrite are
// the rows marked as holding links not yet rewritten. A worker lost on the
// way means the pass runs again on a new session; it goes on where it
// stopped, since rewritten rows are unmarked.
func (nb *notebook) linkPass(ctx workflow.Context, rep *NotebookReport) error {
	pending := false
	var dbs []string
	total := 0 // pages whose links are to rewrite, for progress
	for _, s := range nb.sections {
		if db := nb.dbs[s.ID]; db != "" {
			dbs = append(dbs, db)
		}
		if r := s.result; r != nil && (r.Linked > 0 || r.LinksPending > 0) {
			pending = true
			total += r.Linked + r.LinksPending
		}
	}
	if !pending || len(dbs) == 0 {
		return nil
	}
	key := activities.StageKey("links/" + workflow.GetInfo(ctx).WorkflowExecution.RunID)
	sess := newSessions(ctx)
	for run := 1; ; run++ {
		sctx, err := sess.get(ctx)
		if err != nil {
			sess.complete(ctx)
			return fmt.Errorf("link pass: no worker session: %w", err)
		}
		// Only a goroutine started from the session context may block
		// on it.
		finished := false
		workflow.Go(sctx, func(sctx workflow.Context) {
			err = nb.linkSteps(sctx, key, dbs, total, rep)
			cctx := workflow.WithActivityOptions(sctx, housekeepingOptions("Clean staged link targets"))
			if cerr := workflow.ExecuteActivity(cctx, activities.CleanPageName, key).Get(cctx, nil); cerr != nil {
				workflow.GetLogger(sctx).Warn("Staged link targets not cleaned", "error", cerr)
			}
			finished = true
		})
		if aerr := workflow.Await(ctx, func() bool { return finished }); aerr != nil {
			return aerr
		}
		// The pass stages its link targets first: a lost run is spaced
		// like a page's that had staged its content (rerun.go).
		again, wait := rerunAfterLoss(run, true)
		if !workerLost(sctx, err) || !again {
			sess.complete(ctx)
			if err != nil {
				return fmt.Errorf("link pass: %w", err)
			}
			return nil
		}
		workflow.GetLogger(ctx).Warn("Worker lost during the link pass; running it again on a new session", "run", run, "wait", wait, "error", err)
		if wait > 0 {
			if err := workflow.NewTimerWithOptions(ctx, wait, workflow.TimerOptions{
				Summary: fmt.Sprintf("Wait %s before running the link pass again (its worker was lost %d times)", wait, run)}).Get(ctx, nil); err != nil {
				sess.complete(ctx)
				return err
			}
		}
	}
}

// linkSteps stages the link targets on the session's worker, then
// rewrites the pages with links left, database by database, a chunk of
// pages per activity; the phase counts the pages rewritten out of total.
func (nb *notebook) linkSteps(sctx workflow.Context, key activities.StageKey, dbs []string, total int, rep *NotebookReport) error {
	actx := workflow.WithActivityOptions(sctx, notionLinkOptions(fmt.Sprintf("Read the link targets of %d sections from Notion", len(dbs))))
	var st activities.StageLinkTargetsResult
	if err := workflow.ExecuteActivity(actx, activities.StageLinkTargetsName,
		activities.StageLinkTargetsInput{Key: key, DatabaseIDs: dbs}).Get(sctx, &st); err != nil {
		return err
	}
	for _, db := range dbs {
		for more := true; more; {
			ractx := workflow.WithActivityOptions(sctx, notionLinkOptions("Rewrite internal links ("+clip(db)+")"))
			var r activities.RewriteLinksResult
			if err := workflow.ExecuteActivity(ractx, activities.RewriteLinksName,
				activities.RewriteLinksInput{DatabaseID: db, TargetsKey: key}).Get(sctx, &r); err != nil {
				return err
			}
			rep.LinkPages += r.Pages
			rep.LinkBlocks += r.BlocksWritten
			rep.LinkFailed += r.Failed
			rep.addLinkLosses(r)
			more = r.More
			nb.phase = fmt.Sprintf("rewriting links: %d of about %d pages", rep.LinkPages+rep.LinkFailed, total)
			nb.details(sctx)
		}
	}
	return nil
}

// addLinkLosses adds a link pass's losses to the report: counted apart
// from the write's, noted on the pages LossPages names (a page already
// named gets the notes added), and among the approximations, as the
// rows' loss records (and so the report page) hold them: each link kept
// as text, and each page whose links Notion refused to change.
func (rep *NotebookReport) addLinkLosses(r activities.RewriteLinksResult) {
	rep.LinkLosses += r.Losses
	rep.Approximations += r.Losses + r.Failed
	rep.LinkLossPages += r.LossPageCount
	for _, lp := range r.LossPages {
		i := -1
		for j := range rep.LossPages {
			if lp.OneNotePageID != "" && rep.LossPages[j].ID == lp.OneNotePageID {
				i = j
				break
			}
		}
		switch {
		case i >= 0:
			rep.LossPages[i].Losses += lp.Losses
			rep.LossPages[i].Notes = append(rep.LossPages[i].Notes, lp.Samples...)
		case len(rep.LossPages) < 20:
			id := lp.OneNotePageID
			if id == "" {
				id = lp.NotionPageID
			}
			rep.LossPages = append(rep.LossPages, PageLoss{ID: id, Title: lp.Title, Losses: lp.Losses, Notes: lp.Samples})
		}
	}
}

// writeReport writes the notebook's "Migration report" page, built from
// the rows (every loss of every page), and takes its counts by kind. A
// report that cannot be written does not undo the migration: the report
// says why, and running the migration again writes it.
func (nb *notebook) writeReport(ctx workflow.Context, rep *NotebookReport) {
	if nb.page == "" {
		return
	}
	in := activities.WriteReportInput{Notebook: nb.name, NotebookPageID: nb.page}
	for _, s := range nb.sections {
		if db := nb.dbs[s.ID]; db != "" {
			in.Sections = append(in.Sections, activities.ReportSection{Path: s.Path, DatabaseID: db})
		}
	}
	nb.phase = "writing the migration report"
	nb.details(ctx)
	actx := workflow.WithActivityOptions(ctx, notionReportOptions("Write the migration report in Notion"))
	var res activities.WriteReportResult
	if err := workflow.ExecuteActivity(actx, activities.WriteReportName, in).Get(ctx, &res); err != nil {
		workflow.GetLogger(ctx).Warn("Migration report not written", "error", err)
		rep.ReportError = errorText(err)
		return
	}
	rep.ReportPageID, rep.LossKinds, rep.Verification = res.ReportPageID, res.Kinds, res.Verification
	nb.recovered(ServiceNotion)
}

func (nb *notebook) report() NotebookReport {
	rep := NotebookReport{User: nb.in.User, NotebookID: nb.id, NotebookName: nb.name, NotebookPageID: nb.page, DryRun: nb.in.DryRun,
		ViewsNotMade: nb.viewsNotMade}
	permits, waited := nb.spent()
	rep.Permits, rep.PermitsWaited = permits, seconds.Of(waited)
	for _, s := range nb.sections {
		line := *s
		line.DatabaseID = nb.dbs[s.ID]
		rep.Sections = append(rep.Sections, line)
		rep.UnsentUnits += s.Counted.Unsent
		switch s.Status {
		case SectionDone:
		case SectionSkipped:
			rep.SkippedSections++
		default:
			rep.FailedSections++
		}
		if r := s.result; r != nil {
			rep.Pages += r.Pages
			rep.Written += r.Written
			rep.Skipped += r.Skipped
			rep.FailedPages += r.Failed
			rep.Losses += r.Losses
			rep.Approximations += r.Approximations
			rep.PagesWithLosses += r.LossPageCount
			rep.Verified += r.Verified
			rep.VerifyReads += r.VerifyReads
			rep.Reruns += r.Reruns
			rep.MostReruns = max(rep.MostReruns, r.MostReruns)
			for _, l := range r.LossPages {
				if len(rep.LossPages) < 20 {
					rep.LossPages = append(rep.LossPages, l)
				}
			}
		}
	}
	return rep
}

func (nb *notebook) summary(rep NotebookReport) string {
	msg := fmt.Sprintf("Notebook %q: %d sections, %d pages: %d written, %d unchanged, %d failed",
		rep.NotebookName, len(rep.Sections), rep.Pages, rep.Written, rep.Skipped, rep.FailedPages)
	if rep.Sync != nil {
		msg = fmt.Sprintf("Notebook %q: %s", rep.NotebookName, rep.Sync.Summary())
	}
	if rep.DryRun {
		msg = fmt.Sprintf("Dry run of notebook %q: %d sections, %d pages; nothing written", rep.NotebookName, len(rep.Sections), rep.Pages)
	}
	msg += movedSummary(rep.Structure)
	if s := report.Summary(rep.LossKinds); s != "" {
		msg += "; " + s + " (every item on the \"" + notion.ReportTitle + "\" page under the notebook's page in Notion)"
	} else if rep.Losses+rep.Approximations > 0 {
		msg += fmt.Sprintf("; %d items lost and %d approximated, on %d pages", rep.Losses, rep.Approximations, rep.PagesWithLosses)
	}
	if v := rep.Verification; v != nil {
		msg += fmt.Sprintf("; %s (%d Notion reads)", v, rep.VerifyReads)
	}
	if rep.ReportError != "" {
		msg += "; the migration report was not written: " + rep.ReportError
	}
	if rep.SkippedSections > 0 {
		var skipped []string
		for _, s := range rep.Sections {
			if s.Status == SectionSkipped {
				skipped = append(skipped, s.Error)
			}
		}
		msg += fmt.Sprintf("; %d sections skipped: %s", rep.SkippedSections, strings.Join(skipped, "; "))
	}
	if rep.FailedSections > 0 {
		var failed []string
		for _, s := range rep.Sections {
			if s.Status != SectionDone && s.Status != SectionSkipped {
				failed = append(failed, fmt.Sprintf("%s (%s)", s.Path, s.Error))
			}
		}
		msg += fmt.Sprintf("; %d sections failed: %s", rep.FailedSections, strings.Join(failed, "; "))
	}
	if rep.LinkLosses > 0 {
		msg += fmt.Sprintf("; %d internal links kept as text by the link pass (see lossPages), on %d pages", rep.LinkLosses, rep.LinkLossPages)
	}
	if rep.LinkFailed > 0 {
		msg += fmt.Sprintf("; the links of %d pages could not be rewritten", rep.LinkFailed)
	}
	if rep.ViewsNotMade != "" {
		msg += "; " + rep.ViewsNotMade
	}
	return msg
}

func (nb *notebook) progress() NotebookProgress {
	p := NotebookProgress{Phase: nb.phase, Message: nb.message}
	for _, s := range nb.sections {
		p.Sections = append(p.Sections, *s)
		switch s.Status {
		case SectionPending:
			p.Pending++
		case SectionRunning:
			p.Running++
		case SectionDone:
			p.Done++
		case SectionFailed:
			p.Failed++
		case SectionSkipped:
			p.Skipped++
		}
		// A running section counts what it last reported, an ended one
		// its result, each with what its earlier runs counted.
		l, c := nb.live[s.ID], s.counts(nb.live[s.ID])
		line := &p.Sections[len(p.Sections)-1]
		if s.Status == SectionRunning && l != nil {
			line.Live = l
		}
		// The line's counts are those the notebook adds up, never 0
		// pages beside a live count of 40.
		line.Pages, line.Skipped, line.Failed = c.Pages, c.Skipped, c.Failed
		p.add(c)
	}
	// The notebook's own Graph calls (the tree) count too: the
	// permits are every one this migration took.
	p.Permits += nb.own.Permits
	p.Waited += nb.own.Waited.D()
	p.ETA = nb.eta(p)
	p.Health = nb.health(p)
	p.Outcome = nb.outcome
	return p
}

// add counts a section's pages into the notebook's.
func (p *NotebookProgress) add(c SectionPulse) {
	p.PagesListed += c.Pages
	p.PagesDone += c.Done
	p.PagesFailed += c.Failed
	p.PagesSkipped += c.Skipped
	p.Permits += c.Permits
	p.Waited += c.Waited
}

// eta is the time left: the listed pages left at the slower of the pace
// seen and the budget's (the permits a page took so far, each at the
// budget's pace), and the sections not listed yet as many pages as the
// listed ones on average.
func (nb *notebook) eta(p NotebookProgress) time.Duration {
	unlisted := p.Pending
	for _, s := range p.Sections {
		if s.Status == SectionRunning && s.Live == nil {
			unlisted++
		}
	}
	listed := len(p.Sections) - unlisted
	worked := p.PagesDone - p.PagesSkipped + p.PagesFailed
	elapsed := nb.now.Sub(nb.started)
	if worked <= 0 || listed <= 0 || elapsed <= 0 || p.Pending+p.Running == 0 {
		return 0
	}
	left := p.PagesListed - p.PagesDone - p.PagesFailed + unlisted*p.PagesListed/listed
	perPage := max(elapsed/time.Duration(worked), nb.budget.PerRequest*time.Duration(p.Permits)/time.Duration(worked))
	return (perPage * time.Duration(max(0, left))).Round(time.Second)
}

func (nb *notebook) details(ctx workflow.Context) {
	nb.now = workflow.Now(ctx)
	p := nb.progress()
	name := nb.name
	if name == "" {
		name = nb.in.Notebook
	}
	md := fmt.Sprintf("**%s** (%s): sections %d done, %d running, %d pending, %d failed, %d skipped · pages %d done, %d failed",
		clipText(name, 100), p.Phase, p.Done, p.Running, p.Pending, p.Failed, p.Skipped, p.PagesDone, p.PagesFailed)
	if p.ETA > 0 {
		md += fmt.Sprintf(" · ETA %s", p.ETA)
	}
	if o := p.Outcome; o != nil {
		md += o.Markdown()
	}
	md += healthMarkdown(p.Health)
	workflow.SetCurrentDetails(ctx, md)
}

func (nb *notebook) upsert(ctx workflow.Context, status string) {
	id := nb.id
	if id == "" {
		id = nb.in.Notebook
	}
	if err := workflow.UpsertTypedSearchAttributes(ctx, AttrUser.ValueSet(nb.in.User), AttrNotebook.ValueSet(id),
		AttrStatus.ValueSet(status)); err != nil {
		workflow.GetLogger(ctx).Warn("Search attributes not upserted", "error", err)
	}
}

// NotebookWorkflowID is the workflow ID a starter gives a notebook's
// migration.
func NotebookWorkflowID(user, notebookID string) string {
	return "migrate/" + user + "/" + notebookID
}

// SectionWorkflowID is the workflow ID of a section's migration.
func SectionWorkflowID(user, notebookID, sectionID string) string {
	return NotebookWorkflowID(user, notebookID) + "/section/" + sectionID
}
