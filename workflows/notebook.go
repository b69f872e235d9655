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
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/notion"
)

// ErrTypeConfig is the type of the error a migration ends with when a
// person must fix something first (sign-in, notebook name, Notion
// sharing, library limit).
const ErrTypeConfig = "MigrationConfigError"

// phaseWaiting is the notebook's phase while failed sections wait for an
// operator.
const phaseWaiting = "waiting for retry-section, retry-failed or finish"

// Section statuses in a notebook.
const (
	SectionPending = "pending"
	SectionRunning = "running"
	SectionDone    = "done"
	SectionFailed  = "failed"
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
	// result is the full result (link targets), kept for the link pass.
	result *SectionResult
}

func (s *SectionSummary) setResult(r *SectionResult) {
	s.result = r
	s.Pages, s.Written, s.Skipped, s.Failed, s.FailedPages = 0, 0, 0, 0, nil
	if r != nil {
		s.Pages, s.Written, s.Skipped, s.Failed, s.FailedPages = r.Pages, r.Written, r.Skipped, r.Failed, r.FailedPages
	}
}

// NotebookReport is MigrateNotebook's result.
type NotebookReport struct {
	User         string           `json:"user"`
	NotebookID   string           `json:"notebookID"`
	NotebookName string           `json:"notebookName"`
	DryRun       bool             `json:"dryRun,omitempty"`
	Sections     []SectionSummary `json:"sections"`
	Pages        int              `json:"pages"`
	Written      int              `json:"written"`
	Skipped      int              `json:"skipped"`
	FailedPages  int              `json:"failedPages"`
	// FailedSections counts sections that did not complete cleanly.
	FailedSections int `json:"failedSections"`
	// LinkPages and LinkBlocks count the link pass.
	LinkPages  int    `json:"linkPages"`
	LinkBlocks int    `json:"linkBlocks"`
	Message    string `json:"message"`
}

// NotebookProgress answers the progress query of a notebook.
type NotebookProgress struct {
	Phase    string           `json:"phase"`
	Sections []SectionSummary `json:"sections"`
	Pending  int              `json:"pending"`
	Running  int              `json:"running"`
	Done     int              `json:"done"`
	Failed   int              `json:"failed"`
	// Pages counts are over finished sections.
	PagesDone    int           `json:"pagesDone"`
	PagesFailed  int           `json:"pagesFailed"`
	PagesSkipped int           `json:"pagesSkipped"`
	Permits      int           `json:"permits"`
	Waited       time.Duration `json:"permitsWaited"`
	// ETA extrapolates the time finished sections took to the sections
	// left (0 until one finished).
	ETA     time.Duration `json:"eta"`
	Message string        `json:"message,omitempty"`
}

// notebook is one MigrateNotebook run.
type notebook struct {
	w        *Workflows
	in       MigrateInput
	phase    string
	id, name string
	sections []*SectionSummary
	started  time.Time
	now      time.Time
	queue    []int
	running  int
	finish   bool
	// changes counts section completions and signals, to wake the loop.
	changes int
	message string
}

// MigrateNotebook migrates one notebook into Notion: it reads the tree (one
// Graph call under a permit), creates the Notion containers, runs one
// MigrateSection child per section a few at a time, waits for operator
// signals while sections have failed, and finally rewrites internal links.
func (w *Workflows) MigrateNotebook(ctx workflow.Context, in MigrateInput) (NotebookReport, error) {
	if in.Limits == "" {
		in.Limits = w.Limits
	}
	if err := in.Validate(); err != nil {
		return NotebookReport{}, err
	}
	spec, _ := limiter.Profile(in.Limits)
	nb := &notebook{w: w, in: in, phase: "reading", started: workflow.Now(ctx)}
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (NotebookProgress, error) {
		nb.now = workflow.Now(ctx)
		return nb.progress(), nil
	}); err != nil {
		return NotebookReport{}, err
	}
	nb.upsert(ctx, "reading")
	nb.details(ctx)
	lim := w.caller(ctx, spec)
	rep, err := nb.run(ctx, lim)
	if ferr := lim.Flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
	switch {
	case err != nil:
		nb.phase, nb.message = "failed", err.Error()
		nb.upsert(ctx, "failed")
	case rep.FailedSections > 0:
		nb.upsert(ctx, "done-with-failures")
	default:
		nb.upsert(ctx, "done")
	}
	nb.details(ctx)
	return rep, err
}

func (nb *notebook) run(ctx workflow.Context, lim caller) (NotebookReport, error) {
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
		nb.phase = "creating Notion containers"
		nb.details(ctx)
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute,
			RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 10, MaximumInterval: time.Minute},
			Summary:     "Create the notebook's pages and databases in Notion"})
		err := workflow.ExecuteActivity(actx, activities.EnsureLayoutName,
			activities.EnsureLayoutInput{ParentPageID: nb.in.NotionParent, Notebook: *tree}).Get(ctx, &layout)
		if err != nil {
			return NotebookReport{}, nb.notionFatal(err)
		}
	}
	nb.phase = "migrating"
	nb.upsert(ctx, "migrating")
	for i := range nb.sections {
		nb.queue = append(nb.queue, i)
	}
	nb.listen(ctx)
	for {
		for len(nb.queue) > 0 && nb.running < nb.in.SectionParallelism {
			i := nb.queue[0]
			nb.queue = nb.queue[1:]
			nb.start(ctx, i, layout.SectionDatabaseIDs[nb.sections[i].ID])
		}
		settled := func() bool { return nb.running == 0 && len(nb.queue) == 0 }
		if settled() && (nb.failed() == 0 || nb.finish) {
			break
		}
		if settled() && nb.phase != phaseWaiting {
			nb.phase = phaseWaiting
			nb.upsert(ctx, "waiting")
		}
		nb.details(ctx)
		seen := nb.changes
		if err := workflow.Await(ctx, func() bool {
			return nb.changes != seen || (len(nb.queue) > 0 && nb.running < nb.in.SectionParallelism) ||
				(settled() && (nb.failed() == 0 || nb.finish))
		}); err != nil {
			return NotebookReport{}, err
		}
		if len(nb.queue) > 0 && nb.phase == phaseWaiting {
			nb.phase = "migrating"
			nb.upsert(ctx, "migrating")
		}
	}
	rep := nb.report()
	if !nb.in.DryRun {
		nb.phase = "rewriting links"
		nb.upsert(ctx, "linking")
		nb.details(ctx)
		if err := nb.linkPass(ctx, &rep); err != nil {
			return rep, err
		}
	}
	nb.phase = "done"
	rep.Message = nb.summary(rep)
	return rep, nil
}

// readTree lists the user's notebooks (with their trees, one Graph request
// per page of notebooks) and picks the one asked for.
func (nb *notebook) readTree(ctx workflow.Context, lim caller) (*activities.NotebookTree, error) {
	var names []string
	next := ""
	for {
		var r activities.ListNotebooksResult
		_, err := lim.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: nb.in.User, Lane: limiter.Background},
			Activity: activities.ListNotebooksName,
			Args:     []any{activities.ListNotebooksInput{User: nb.in.User, Next: next, Match: nb.in.Notebook}},
			Options:  workflow.ActivityOptions{StartToCloseTimeout: time.Minute, Summary: "Read the notebook tree of " + nb.in.User},
		}, &r)
		if err != nil {
			return nil, nb.graphFatal(err)
		}
		if r.Match != nil {
			return r.Match, nil
		}
		for _, n := range r.Notebooks {
			names = append(names, fmt.Sprintf("%q", n.Name))
		}
		if r.Next == "" {
			break
		}
		next = r.Next
	}
	avail := "none"
	if len(names) > 0 {
		avail = strings.Join(names, ", ")
	}
	return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"notebook %q not found for user %q; available notebooks: %s. Start again with one of these names (or an ID) in \"notebook\"",
		nb.in.Notebook, nb.in.User, avail), ErrTypeConfig, nil)
}

// graphFatal turns a fatal Graph error into a message saying what to do.
func (nb *notebook) graphFatal(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return err
	}
	var msg string
	switch app.Type() {
	case activities.ErrTypeNotSignedIn:
		msg = fmt.Sprintf("user %q is not signed in to Microsoft: sign in (notebridge login --user %s), then start the migration again", nb.in.User, nb.in.User)
	case activities.ErrTypeGraphLibraryLimit:
		msg = "OneNote refuses to list this account's notebooks (error 10008: the document library holds more than 5,000 items). " +
			"Move files out of the OneDrive/SharePoint library that holds the notebooks, or migrate from a library with fewer items, then start again"
	case activities.ErrTypeGraphPermission:
		msg = fmt.Sprintf("user %q may not read these notebooks (403): check the app's Notes.Read permission and consent, then start again", nb.in.User)
	case activities.ErrTypeGraphAuth:
		msg = fmt.Sprintf("Microsoft rejected the sign-in of user %q: sign in again, then start the migration again", nb.in.User)
	default:
		return err
	}
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeConfig, err)
}

// notionFatal turns a Notion error of EnsureLayout into a message saying
// what to do.
func (nb *notebook) notionFatal(err error) error {
	var app *temporal.ApplicationError
	if !errors.As(err, &app) {
		return err
	}
	var msg string
	switch app.Type() {
	case activities.ErrTypeNotionNotShared:
		msg = fmt.Sprintf("the Notion page %s is not shared with the integration (or does not exist): open it in Notion, "+
			"choose ••• > Connections and add the Note Bridge integration, then start again", nb.in.NotionParent)
	case activities.ErrTypeNotionAuth:
		msg = "Notion rejected the integration token: check the worker's Notion token, then start again"
	case activities.ErrTypeNotionBlockLimit:
		msg = "the Notion workspace reached its block limit: upgrade the workspace, then start again"
	default:
		return err
	}
	return temporal.NewNonRetryableApplicationError(msg, ErrTypeConfig, err)
}

// start runs section i as a child workflow.
func (nb *notebook) start(ctx workflow.Context, i int, db string) {
	s := nb.sections[i]
	s.Status, s.Error = SectionRunning, ""
	s.Attempts++
	nb.running++
	cctx := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:            SectionWorkflowID(nb.in.User, nb.id, s.ID),
		WorkflowIDReusePolicy: enumspb.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE,
		StaticSummary:         fmt.Sprintf("Migrate section %s of %s", s.Path, nb.in.User),
	})
	in := SectionInput{User: nb.in.User, NotebookID: nb.id, Section: s.SectionRef, DatabaseID: db, Limits: nb.in.Limits,
		DryRun: nb.in.DryRun, PageParallelism: nb.in.PageParallelism, PagesPerRun: nb.in.PagesPerRun}
	workflow.Go(ctx, func(ctx workflow.Context) {
		var res SectionResult
		err := workflow.ExecuteChildWorkflow(cctx, MigrateSectionName, in).Get(ctx, &res)
		switch {
		case err != nil:
			s.Status, s.Error = SectionFailed, errorText(err)
			s.setResult(nil)
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

// listen handles the operator's signals.
func (nb *notebook) listen(ctx workflow.Context) {
	retry := workflow.GetSignalChannel(ctx, SignalRetrySection)
	retryAll := workflow.GetSignalChannel(ctx, SignalRetryFailed)
	finish := workflow.GetSignalChannel(ctx, SignalFinish)
	log := workflow.GetLogger(ctx)
	workflow.Go(ctx, func(ctx workflow.Context) {
		for {
			sel := workflow.NewSelector(ctx)
			sel.AddReceive(retry, func(c workflow.ReceiveChannel, _ bool) {
				var id string
				c.Receive(ctx, &id)
				id = strings.TrimSpace(id)
				for i, s := range nb.sections {
					if s.ID == id || s.Name == id || s.Path == id {
						if s.Status == SectionFailed {
							s.Status = SectionPending
							nb.queue = append(nb.queue, i)
						} else {
							log.Info("retry-section ignored: section has not failed", "section", id, "status", s.Status)
						}
						return
					}
				}
				log.Warn("retry-section ignored: no such section", "section", id)
			})
			sel.AddReceive(retryAll, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				for i, s := range nb.sections {
					if s.Status == SectionFailed {
						s.Status = SectionPending
						nb.queue = append(nb.queue, i)
					}
				}
			})
			sel.AddReceive(finish, func(c workflow.ReceiveChannel, _ bool) {
				c.Receive(ctx, nil)
				nb.finish = true
			})
			sel.Select(ctx)
			nb.changes++
		}
	})
}

func (nb *notebook) failed() int {
	n := 0
	for _, s := range nb.sections {
		if s.Status == SectionFailed {
			n++
		}
	}
	return n
}

// linkPass rewrites the internal links of the pages written in this run,
// in chunks, once every section has finished.
func (nb *notebook) linkPass(ctx workflow.Context, rep *NotebookReport) error {
	targets := map[string]string{}
	var pages []string
	for _, s := range nb.sections {
		if s.result == nil {
			continue
		}
		for _, t := range s.result.Targets {
			targets[t.LinkID] = t.NotionID
		}
		pages = append(pages, s.result.LinkPages...)
	}
	if len(pages) == 0 {
		return nil
	}
	const chunk = 50
	for i := 0; i < len(pages); i += chunk {
		part := pages[i:min(i+chunk, len(pages))]
		actx := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Minute,
			HeartbeatTimeout: 2 * time.Minute, RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 5, MaximumInterval: time.Minute},
			Summary: fmt.Sprintf("Rewrite internal links of %d pages", len(part))})
		var r activities.RewriteLinksResult
		if err := workflow.ExecuteActivity(actx, activities.RewriteLinksName,
			activities.RewriteLinksInput{Pages: part, Targets: targets}).Get(ctx, &r); err != nil {
			return fmt.Errorf("link pass: %w", err)
		}
		rep.LinkPages += r.Pages
		rep.LinkBlocks += r.BlocksWritten
	}
	return nil
}

func (nb *notebook) report() NotebookReport {
	rep := NotebookReport{User: nb.in.User, NotebookID: nb.id, NotebookName: nb.name, DryRun: nb.in.DryRun}
	for _, s := range nb.sections {
		rep.Sections = append(rep.Sections, *s)
		if s.Status != SectionDone {
			rep.FailedSections++
		}
		if r := s.result; r != nil {
			rep.Pages += r.Pages
			rep.Written += r.Written
			rep.Skipped += r.Skipped
			rep.FailedPages += r.Failed
		}
	}
	return rep
}

func (nb *notebook) summary(rep NotebookReport) string {
	msg := fmt.Sprintf("Notebook %q: %d sections, %d pages: %d written, %d unchanged, %d failed",
		rep.NotebookName, len(rep.Sections), rep.Pages, rep.Written, rep.Skipped, rep.FailedPages)
	if rep.DryRun {
		msg = fmt.Sprintf("Dry run of notebook %q: %d sections, %d pages; nothing written", rep.NotebookName, len(rep.Sections), rep.Pages)
	}
	if rep.FailedSections > 0 {
		var failed []string
		for _, s := range rep.Sections {
			if s.Status != SectionDone {
				failed = append(failed, fmt.Sprintf("%s (%s)", s.Path, s.Error))
			}
		}
		msg += fmt.Sprintf("; %d sections failed: %s", rep.FailedSections, strings.Join(failed, "; "))
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
		}
		if r := s.result; r != nil {
			p.PagesDone += r.Done
			p.PagesFailed += r.Failed
			p.PagesSkipped += r.Skipped
			p.Permits += r.Permits
			p.Waited += r.Waited
		}
	}
	if finished := p.Done + p.Failed; finished > 0 && p.Pending+p.Running > 0 && nb.now.After(nb.started) {
		p.ETA = (nb.now.Sub(nb.started) / time.Duration(finished) * time.Duration(p.Pending+p.Running)).Round(time.Second)
	}
	return p
}

func (nb *notebook) details(ctx workflow.Context) {
	nb.now = workflow.Now(ctx)
	p := nb.progress()
	name := nb.name
	if name == "" {
		name = nb.in.Notebook
	}
	md := fmt.Sprintf("**%s** (%s): sections %d done, %d running, %d pending, %d failed · pages %d done, %d failed",
		name, p.Phase, p.Done, p.Running, p.Pending, p.Failed, p.PagesDone, p.PagesFailed)
	if p.ETA > 0 {
		md += fmt.Sprintf(" · ETA %s", p.ETA)
	}
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
