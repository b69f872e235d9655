package workflows

import (
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/onenote"
)

// SectionRef names a section and where it sits.
type SectionRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Path is "Notebook / Group / Section".
	Path string `json:"path"`
}

// SectionInput starts (or continues) a MigrateSection.
type SectionInput struct {
	User       string     `json:"user"`
	NotebookID string     `json:"notebookID"`
	Section    SectionRef `json:"section"`
	// DatabaseID is the section's Notion database ("" for a dry run).
	DatabaseID      string `json:"databaseID,omitempty"`
	Limits          string `json:"limits,omitempty"`
	DryRun          bool   `json:"dryRun,omitempty"`
	PageParallelism int    `json:"pageParallelism,omitempty"`
	PagesPerRun     int    `json:"pagesPerRun,omitempty"`
	// Listed, when set, is the section's whole listing, read already by
	// a sync run or a migration re-run (findMoved): the section takes it
	// as its one batch and lists nothing. A continue-as-new carries it in
	// State.
	Listed []activities.PageMeta `json:"listed,omitempty"`
	// Content are the migration's content options (MigrateInput's).
	Content activities.ContentOptions `json:"content,omitzero"`
	// File, when set, is the OneNote file the section is read from
	// (MigrateInput.File) instead of Graph.
	File string `json:"file,omitempty"`
	// State is carried across continue-as-new; nil for a new section.
	State *SectionState `json:"state,omitempty"`
}

// Page statuses in the ledger.
const (
	PageDone   = "done"
	PageFailed = "failed"
	// PageGone is a page deleted in OneNote after it was listed.
	PageGone = "gone"
)

// LedgerEntry is the record of one page handled in this run.
type LedgerEntry struct {
	Status   string `json:"status"`
	NotionID string `json:"notionID,omitempty"`
	Error    string `json:"error,omitempty"`
	// Written is set when this migration wrote the page (not skipped).
	Written bool `json:"written,omitempty"`
	Links   int  `json:"links,omitempty"`
	// Losses counts what the page lost, Approximations what it holds in
	// another form (its row records every entry); LossNotes names the
	// first few, lost first.
	Losses         int      `json:"losses,omitempty"`
	Approximations int      `json:"approximations,omitempty"`
	LossNotes      []string `json:"lossNotes,omitempty"`
	// Reruns counts the times the page ran again because the worker
	// holding it was lost.
	Reruns int `json:"reruns,omitempty"`
	// Verification is the written page's read-back verdict and
	// VerifyReads the Notion reads it cost.
	Verification string `json:"verification,omitempty"`
	VerifyReads  int    `json:"verifyReads,omitempty"`
}

// SectionState is a section's progress, carried across continue-as-new.
// Its size does not grow with the section's: the listing is read one
// batch at a time from Cursor, and what was handled is kept as totals
// (Tally) and the ancestors of the next page.
type SectionState struct {
	// Cursor is where the listing goes on; ListDone is set once the
	// last batch was read.
	Cursor   onenote.PageCursor `json:"cursor"`
	ListDone bool               `json:"listDone,omitempty"`
	// Batch holds the pages of the current listing batch not started
	// yet, in section order; Existing maps those already in Notion,
	// unchanged, to their Notion page.
	Batch    []activities.PageMeta `json:"batch,omitempty"`
	Existing map[string]string     `json:"existing,omitempty"`
	// LastIDs are the page IDs of the last batch read: Graph's paging is
	// not stable, and a page it lists again in the next batch is dropped.
	LastIDs []string `json:"lastIDs,omitempty"`
	// Taken counts the pages taken from the listing; after Graph ignored
	// $skip, the relisting drops its first RelistSkip pages (those taken
	// before) and RelistSeen counts the pages it has sent.
	Taken      int `json:"taken"`
	RelistSkip int `json:"relistSkip,omitempty"`
	RelistSeen int `json:"relistSeen,omitempty"`
	// Ancestors are the pages above the next one (each of a smaller
	// level than the one after it), with their outcome: a subpage nests
	// under its parent, or fails with it.
	Ancestors []Ancestor    `json:"ancestors,omitempty"`
	Tally     Tally         `json:"tally"`
	ListCalls int           `json:"listCalls"`
	Permits   int           `json:"permits"`
	Waited    time.Duration `json:"waited"`
	Started   time.Time     `json:"started"`
	Runs      int           `json:"runs"`
	// Relisted is set when the listing was read again following
	// @odata.nextLink because Graph ignored $skip.
	Relisted bool `json:"relisted,omitempty"`
	// Reruns counts page runs repeated because a worker was lost, and
	// MostReruns is the most of them one page needed.
	Reruns     int `json:"reruns,omitempty"`
	MostReruns int `json:"mostReruns,omitempty"`
	// Unsent counts permit units granted for resource requests that were
	// never sent (a download sequence stopped early). The limiter gives
	// them back (limiter.Outcome.Unsent).
	Unsent int `json:"unsent,omitempty"`
	// LinksPending: see SectionResult.
	LinksPending int `json:"linksPending,omitempty"`
	// Fetched counts the pages whose content was fetched, and
	// FetchedUnits the Graph requests those pages need (content and
	// resources): the requests a page takes, for remaining.
	Fetched      int `json:"fetched,omitempty"`
	FetchedUnits int `json:"fetchedUnits,omitempty"`
}

// requestsPerPage is what remaining assumes a page takes before any page
// was fetched: its content and two resources.
const requestsPerPage = 3

// remaining estimates the Graph requests the section still needs for its
// pages, the next one included, for the limiter's water-filling
// (entity.AskOptions.Remaining: the users with the most work left go
// first): the pages listed and not finished, less those found unchanged
// in Notion, at the requests a fetched page took so far, and one listing
// call while the listing goes on. Pages not listed yet are unknown. The
// limiter takes the latest report as the user's, so with several sections
// of one user running it follows the section that asked last.
func (s *section) remaining() int {
	t := s.st.Tally
	pages := max(0, t.Pages-t.Done-t.Failed-t.Gone-len(s.st.Existing))
	per := float64(requestsPerPage)
	if s.st.Fetched > 0 {
		per = float64(s.st.FetchedUnits) / float64(s.st.Fetched)
	}
	n := int(float64(pages)*per + 0.5)
	if !s.st.ListDone {
		n++
	}
	return max(1, n)
}

// Ancestor is a page above the next one in the listing, and its outcome
// once handled.
type Ancestor struct {
	ID       string `json:"id"`
	Level    int    `json:"level"`
	Status   string `json:"status,omitempty"`
	NotionID string `json:"notionID,omitempty"`
	Error    string `json:"error,omitempty"`
}

// maxNamed is how many failed pages, and pages with losses, a section
// names; the counts beside them stay exact.
const maxNamed = 20

// maxErrorText bounds the error text kept for one failed page.
const maxErrorText = 1000

// Tally counts the pages a section has handled.
type Tally struct {
	// Pages counts the pages listed so far.
	Pages   int `json:"pages"`
	Done    int `json:"done"`
	Written int `json:"written"`
	Failed  int `json:"failed"`
	Gone    int `json:"gone,omitempty"`
	// Skipped counts the pages found unchanged (in Notion already, or
	// unchanged when written).
	Skipped int `json:"skipped"`
	Linked  int `json:"linked,omitempty"`
	// Losses counts the items lost, Approximations those kept in another
	// form, over every page written.
	Losses         int `json:"losses,omitempty"`
	Approximations int `json:"approximations,omitempty"`
	// LossPageCount counts the pages written with losses or
	// approximations.
	LossPageCount int `json:"lossPageCount,omitempty"`
	// Verified counts the pages written and read back as written,
	// VerifyReads the Notion reads that cost.
	Verified    int `json:"verified,omitempty"`
	VerifyReads int `json:"verifyReads,omitempty"`
	// FailedPages and LossPages name the first maxNamed of them.
	FailedPages []PageFailure `json:"failedPages,omitempty"`
	LossPages   []PageLoss    `json:"lossPages,omitempty"`
}

// add counts page p's outcome e.
func (t *Tally) add(p activities.PageMeta, e *LedgerEntry) {
	switch e.Status {
	case PageDone:
		t.Done++
		if !e.Written {
			return
		}
		t.Written++
		t.VerifyReads += e.VerifyReads
		if e.Verification == "verified" {
			t.Verified++
		}
		if e.Links > 0 {
			t.Linked++
		}
		if e.Losses > 0 || e.Approximations > 0 {
			t.Losses += e.Losses
			t.Approximations += e.Approximations
			t.LossPageCount++
			if len(t.LossPages) < maxNamed {
				t.LossPages = append(t.LossPages, PageLoss{ID: p.ID, Title: p.Title, Losses: e.Losses,
					Approximations: e.Approximations, Notes: e.LossNotes})
			}
		}
	case PageGone:
		t.Gone++
	case PageFailed:
		t.Failed++
		if len(t.FailedPages) < maxNamed {
			msg := e.Error
			if r := []rune(msg); len(r) > maxErrorText {
				msg = string(r[:maxErrorText-1]) + "…"
			}
			t.FailedPages = append(t.FailedPages, PageFailure{ID: p.ID, Title: p.Title, Error: msg})
		}
	}
}

// PageFailure names a page that failed and why.
type PageFailure struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Error string `json:"error"`
}

// PageLoss names a page written without some of its content, and what.
type PageLoss struct {
	ID             string   `json:"id"`
	Title          string   `json:"title,omitempty"`
	Losses         int      `json:"losses"`
	Approximations int      `json:"approximations,omitempty"`
	Notes          []string `json:"notes,omitempty"`
}

// StopBlockLimit is why a section stops before its last page when the
// Notion workspace reached its block limit.
const StopBlockLimit = "the Notion workspace reached its block limit (Free plan)"

// SectionResult is what a finished section reports.
type SectionResult struct {
	SectionID string `json:"sectionID"`
	Pages     int    `json:"pages"`
	Done      int    `json:"done"`
	Written   int    `json:"written"`
	Skipped   int    `json:"skipped"`
	Failed    int    `json:"failed"`
	// FailedPages names the first 20 failures (Failed counts them all).
	FailedPages []PageFailure `json:"failedPages,omitempty"`
	// Linked counts the pages written now that hold internal links.
	Linked int `json:"linked,omitempty"`
	// Losses counts the items lost and Approximations those kept in
	// another form, over all pages, and LossPageCount the pages written
	// with either; LossPages names up to 20 of them. Every entry is on
	// the pages' rows and in the notebook's migration report.
	Losses         int        `json:"losses,omitempty"`
	Approximations int        `json:"approximations,omitempty"`
	LossPageCount  int        `json:"lossPageCount,omitempty"`
	LossPages      []PageLoss `json:"lossPages,omitempty"`
	// Verified counts the pages written now and read back as written;
	// VerifyReads counts the Notion reads of the read-backs.
	Verified    int `json:"verified,omitempty"`
	VerifyReads int `json:"verifyReads,omitempty"`
	// Stopped says why the section stopped before its last page ("" if
	// it did not), and StoppedType is the error type that stopped it:
	// the pages not handled are left for a later run.
	Stopped     string `json:"stopped,omitempty"`
	StoppedType string `json:"stoppedType,omitempty"`
	// LinksPending counts pages found already migrated whose internal
	// links were never rewritten (an earlier link pass did not finish).
	LinksPending int           `json:"linksPending,omitempty"`
	ListCalls    int           `json:"listCalls"`
	Permits      int           `json:"permits"`
	Waited       time.Duration `json:"waited"`
	// Relisted, Reruns, MostReruns and UnsentUnits: see SectionState.
	Relisted    bool `json:"relisted,omitempty"`
	Reruns      int  `json:"reruns,omitempty"`
	MostReruns  int  `json:"mostReruns,omitempty"`
	UnsentUnits int  `json:"unsentUnits,omitempty"`
	// LastError is the last upstream error the section saw.
	LastError *UpstreamError `json:"lastError,omitempty"`
}

// SectionProgress answers the progress query of a section.
type SectionProgress struct {
	Section   string `json:"section"`
	Phase     string `json:"phase"`
	Pages     int    `json:"pages"`
	Done      int    `json:"done"`
	Failed    int    `json:"failed"`
	Skipped   int    `json:"skipped"`
	Remaining int    `json:"remaining"`
	Permits   int    `json:"permits"`
	// Waited and ETA are in seconds in JSON (MarshalJSON).
	Waited time.Duration `json:"-"`
	ETA    time.Duration `json:"-"`
}

// section is one MigrateSection run.
type section struct {
	w   *Workflows
	in  SectionInput
	st  *SectionState
	lim caller
	// givenBack is the caller's GivenBack already counted in st.Unsent.
	givenBack int
	phase     string
	inflight  int
	handled   int // pages started in this run
	sess      *sessions
	// ledger holds the outcome of the pages handled in this run, and of
	// their parents handled in an earlier one.
	ledger map[string]*LedgerEntry
	// staged says, per page running in this run, whether its content is
	// staged on its session's worker (so losing that worker cost it work).
	staged map[string]bool
	// stop, when set, stops the section before its next page; stopType
	// is the error type that stopped it, and stopErr the error.
	stop, stopType string
	stopErr        error
	// budget is the Graph budget's pace, which sets how often the
	// section reports to its notebook.
	budget Budget
	// changes counts what the notebook would want to hear (a page done,
	// an upstream error or its end); lastPage is when a page last
	// finished and lastErr the last upstream error.
	changes  int
	lastPage time.Time
	lastErr  *UpstreamError
	// urgent is set when a service starts failing: the next report to
	// the notebook goes at once, not a pulse after the last one.
	urgent bool
	// breaker is the last breaker the limiter queued a request behind.
	breaker *BreakerHold
	// presetPending: the batch came with the input (SectionInput.Listed)
	// and Notion was not asked yet which of its pages it holds.
	presetPending bool
}

// MigrateSection migrates one section: it reads the section's listing a
// batch at a time (one permit per 100 pages), skips the pages Notion holds
// unchanged, and runs the page pipeline for the others, a few at a time,
// in section order. It continues as new every PagesPerRun pages or when
// Temporal suggests it, carrying the listing cursor, the totals and the
// ancestors of the next page: its input does not grow with the section.
func (w *Workflows) MigrateSection(ctx workflow.Context, in SectionInput) (SectionResult, error) {
	spec, err := limiter.Profile(in.Limits)
	if err != nil {
		return SectionResult{}, invalid("limits", "%v", err)
	}
	in.PageParallelism = max(1, in.PageParallelism)
	if in.PagesPerRun <= 0 {
		in.PagesPerRun = DefaultPagesPerRun
	}
	s := &section{w: w, in: in, st: in.State, phase: "migrating", staged: map[string]bool{}, ledger: map[string]*LedgerEntry{},
		budget: BudgetOf(spec), lastPage: workflow.Now(ctx)}
	if s.st == nil {
		s.st = &SectionState{Cursor: onenote.PageCursor{SectionID: in.Section.ID}, Started: workflow.Now(ctx)}
		if in.Listed != nil {
			s.st.Batch, s.st.ListDone = in.Listed, true
			s.st.Taken, s.st.Tally.Pages = len(in.Listed), len(in.Listed)
			s.presetPending = true
		}
	}
	s.in.Listed = nil
	s.st.Runs++
	if err := workflow.SetQueryHandlerWithOptions(ctx, QueryProgress, func() (SectionProgress, error) { return s.progress(ctx), nil },
		workflow.QueryHandlerOptions{Description: "The section's page counts, phase, permit waits and ETA"}); err != nil {
		return SectionResult{}, err
	}
	s.reportProgress(ctx)
	receiveFailures(ctx, in.Section.Path, func(_ workflow.Context, e *UpstreamError) { s.upstream(e) })
	s.upsertStatus(ctx, "migrating")
	s.lim = w.caller(ctx, spec, w.deployment(ctx), s.in.PageParallelism)
	if h, ok := s.lim.(holds); ok {
		h.NotifyHolds(s.held)
	}
	res, err := s.run(ctx)
	if ferr := s.flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
	res.UnsentUnits = s.st.Unsent
	switch {
	case err == nil:
		status := "done"
		switch {
		case res.Stopped != "":
			status = "stopped"
		case res.Failed > 0:
			status = "failed"
		}
		s.upsertStatus(ctx, status)
		s.details(ctx)
	case !workflow.IsContinueAsNewError(err):
		s.upsertStatus(ctx, "failed")
		s.phase = "failed"
		s.details(ctx)
		s.finalPulse(ctx)
	}
	return res, err
}

// run takes the section's pages in order, a listing batch at a time, and
// starts each on its way (a few at a time), until the listing is done,
// the section must stop, or this run has handled PagesPerRun pages.
func (s *section) run(ctx workflow.Context) (SectionResult, error) {
	if s.in.DryRun {
		s.phase = "listing"
		for !s.st.ListDone {
			if err := s.listNext(ctx); err != nil {
				return SectionResult{}, err
			}
		}
		s.details(ctx)
		return s.result(), nil
	}
	if s.presetPending {
		s.presetPending = false
		if err := s.findExisting(ctx, s.st.Batch); err != nil {
			return SectionResult{}, err
		}
		s.details(ctx)
	}
	s.sess = newSessions(ctx)
	stopped := false
	var err error
	for s.stop == "" {
		if len(s.st.Batch) == 0 {
			if s.st.ListDone {
				break
			}
			if err = s.listNext(ctx); err != nil {
				break
			}
			s.details(ctx)
			continue
		}
		if s.handled >= s.in.PagesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			stopped = true
			break
		}
		if err = workflow.Await(ctx, func() bool { return s.inflight < s.in.PageParallelism }); err != nil {
			s.windDown(ctx)
			return SectionResult{}, err
		}
		if s.stop != "" {
			break
		}
		p := s.st.Batch[0]
		s.st.Batch = s.st.Batch[1:]
		parent := s.take(p)
		if id, ok := s.st.Existing[p.ID]; ok {
			delete(s.st.Existing, p.ID)
			s.record(p, &LedgerEntry{Status: PageDone, NotionID: id})
			s.st.Tally.Skipped++
			s.pageDone(ctx)
			continue
		}
		s.inflight++
		s.handled++
		workflow.Go(ctx, func(ctx workflow.Context) {
			// No defer: deferred code also runs when the SDK evicts the
			// workflow from its cache, outside the workflow's control.
			s.page(ctx, p, parent)
			s.pageDone(ctx)
			s.details(ctx)
			s.inflight--
		})
	}
	// The pages started finish before the section ends or hands over.
	if aerr := workflow.Await(ctx, func() bool { return s.inflight == 0 }); aerr != nil {
		s.windDown(ctx)
		return SectionResult{}, aerr
	}
	s.sess.complete(ctx)
	if err != nil {
		return SectionResult{}, err
	}
	if s.stopType == failure.GraphProtected {
		// Locked while it migrated: skip it like a section locked from
		// the start; the pages written stay, a retry skips them.
		return SectionResult{}, s.protected(s.stopErr)
	}
	if s.stop != "" {
		s.phase = "stopped: " + s.stop
		res := s.result()
		res.Stopped, res.StoppedType = s.stop, s.stopType
		return res, nil
	}
	if stopped {
		if err := s.flush(ctx); err != nil {
			return SectionResult{}, err
		}
		s.carryAncestors()
		next := s.in
		next.State = s.st
		return SectionResult{}, workflow.NewContinueAsNewError(ctx, MigrateSectionName, next)
	}
	s.phase = "done"
	return s.result(), nil
}

// windDown waits, once the section is cancelled (the notebook was
// cancelled or closed: ParentClosePolicy REQUEST_CANCEL), for the pages
// in flight to end. They end at once, their activities and permit waits
// cancelled, and release what they hold on the way, so when the section
// returns (and flushes its releases) the limiter has every slot back
// rather than waiting for the leases to expire.
func (s *section) windDown(ctx workflow.Context) {
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.Await(dctx, func() bool { return s.inflight == 0 })
}

// take puts page p, next in section order, on the ancestor stack and
// returns its parent's ID ("" for a top-level page): the nearest earlier
// page with a smaller level. A parent handled in an earlier run has its
// outcome copied to this run's ledger, where the subpage looks for it.
func (s *section) take(p activities.PageMeta) string {
	st := s.st
	for len(st.Ancestors) > 0 && st.Ancestors[len(st.Ancestors)-1].Level >= p.Level {
		st.Ancestors = st.Ancestors[:len(st.Ancestors)-1]
	}
	parent := ""
	if len(st.Ancestors) > 0 {
		a := st.Ancestors[len(st.Ancestors)-1]
		parent = a.ID
		if a.Status != "" && s.ledger[a.ID] == nil {
			s.ledger[a.ID] = &LedgerEntry{Status: a.Status, NotionID: a.NotionID, Error: a.Error}
		}
	}
	st.Ancestors = append(st.Ancestors, Ancestor{ID: p.ID, Level: p.Level})
	return parent
}

// carryAncestors records, on the ancestor stack, the outcome of the
// ancestors handled in this run, for the next run's subpages.
func (s *section) carryAncestors() {
	for i := range s.st.Ancestors {
		a := &s.st.Ancestors[i]
		if e := s.ledger[a.ID]; e != nil {
			a.Status, a.NotionID, a.Error = e.Status, e.NotionID, e.Error
		}
	}
}

// listNext reads the next batch of the listing (one permit, up to 100
// pages), drops the pages already taken, and asks Notion which of the
// others it holds unchanged.
func (s *section) listNext(ctx workflow.Context) error {
	if s.in.File != "" {
		return s.listFile(ctx)
	}
	cur := s.st.Cursor
	var r activities.ListPagesResult
	st, err := s.lim.Call(ctx, entity.Call{
		Ask:       entity.AskOptions{User: s.in.User, Lane: limiter.Background, Remaining: s.remaining()},
		Activity:  activities.ListPagesName,
		Args:      []any{activities.ListPagesInput{User: s.in.User, Cursor: cur}},
		Options:   graphOptions(fmt.Sprintf("List pages of %s from %d", s.in.Section.Name, s.st.Taken)),
		OnAttempt: s.observe,
	}, &r)
	s.count(st)
	if err != nil {
		if failure.Find(err, failure.GraphProtected) != nil {
			return s.protected(err)
		}
		return fmt.Errorf("listing the pages of section %q: %w", s.in.Section.Path, err)
	}
	s.st.ListCalls++
	if r.Repeated && !cur.UseNextLink {
		// Graph ignored $skip and sent a batch again: pages after the
		// first batches may be missing. List again from the start
		// without $top, following @odata.nextLink; the pages taken
		// before come first and are dropped.
		workflow.GetLogger(ctx).Warn("Graph ignored $skip; listing the section again with nextLink", "section", s.in.Section.ID)
		s.st.Relisted = true
		s.st.Cursor = onenote.PageCursor{SectionID: s.in.Section.ID, UseNextLink: true}
		s.st.RelistSkip, s.st.RelistSeen = s.st.Taken, 0
		return nil
	}
	last := s.st.LastIDs
	s.st.LastIDs = s.st.LastIDs[:0:0]
	var batch []activities.PageMeta
	for _, p := range r.Pages {
		s.st.LastIDs = append(s.st.LastIDs, p.ID)
		if cur.UseNextLink && s.st.RelistSeen < s.st.RelistSkip {
			s.st.RelistSeen++
			continue
		}
		if slices.Contains(last, p.ID) || slices.ContainsFunc(batch, func(b activities.PageMeta) bool { return b.ID == p.ID }) {
			continue
		}
		batch = append(batch, p)
	}
	slices.SortStableFunc(batch, func(a, b activities.PageMeta) int { return a.Order - b.Order })
	s.st.Taken += len(batch)
	s.st.Tally.Pages += len(batch)
	s.st.Cursor, s.st.ListDone = r.Next, r.Done
	s.st.Batch, s.st.Existing = batch, nil
	return s.findExisting(ctx, batch)
}

// findExisting asks Notion which pages of batch it holds unchanged, for
// the section to skip them.
func (s *section) findExisting(ctx workflow.Context, batch []activities.PageMeta) error {
	if s.in.DryRun || s.in.DatabaseID == "" || len(batch) == 0 {
		return nil
	}
	want := make(map[string]string, len(batch))
	for _, p := range batch {
		want[p.ID] = p.LastModified
	}
	actx := workflow.WithActivityOptions(ctx, notionReadOptions("Find pages already in Notion"))
	var ex activities.ExistingRowsResult
	if err := workflow.ExecuteActivity(actx, activities.ExistingRowsName,
		activities.ExistingRowsInput{DatabaseID: s.in.DatabaseID, Pages: want}).Get(ctx, &ex); err != nil {
		s.upstream(upstreamOf(ServiceNotion, err, limiter.Outcome{}, workflow.Now(ctx), s.in.Section.Path))
		return fmt.Errorf("reading section %q in Notion: %w", s.in.Section.Path, err)
	}
	s.st.LinksPending += ex.LinksPending
	if len(ex.Done) > 0 {
		s.st.Existing = ex.Done
	}
	return nil
}

// protected is the error a section ends with when Graph answers that it is
// password-protected (403, code 20185 on real Graph): the notebook reports
// it skipped, with the reason and what to do, and runs it again on a
// retry-section once it is unlocked. Nothing of it is written until then.
func (s *section) protected(err error) error {
	code := onenote.CodeEncryptedSection
	var o limiter.Outcome
	if app := failure.Find(err, failure.GraphProtected); app != nil && app.HasDetails() && app.Details(&o) == nil && o.Code != "" {
		code = o.Code
	}
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(
		"section %q skipped: it is password-protected, which the OneNote API cannot read (Graph error %s, "+
			"\"Encrypted sections are not accessible.\"); unlock it in OneNote, then retry the section "+
			"(starter retry --section %q, or the update %s)", s.in.Section.Path, code, s.in.Section.ID, UpdateRetrySection),
		failure.SectionProtected, err)
}

// pageDone notes that a page finished now, for the notebook's report.
func (s *section) pageDone(ctx workflow.Context) {
	s.lastPage = workflow.Now(ctx)
	s.changes++
}

// givesBack is implemented by a Caller that asks ahead (entity.Client):
// the units of the permits it asked ahead and gave back unsent.
type givesBack interface{ GivenBack() int }

// flush gives the limiter everything this run holds (see Caller.Flush)
// and counts the units given back unsent among the section's unsent ones:
// the limiter granted them, and no request used them.
func (s *section) flush(ctx workflow.Context) error {
	err := s.lim.Flush(ctx)
	s.st.Unsent = s.unsent()
	if g, ok := s.lim.(givesBack); ok {
		s.givenBack = g.GivenBack()
	}
	return err
}

// unsent is the permit units the section gave back unsent: those counted
// in its state and those its caller gave back since.
func (s *section) unsent() int {
	n := s.st.Unsent
	if g, ok := s.lim.(givesBack); ok {
		n += g.GivenBack() - s.givenBack
	}
	return n
}

// finalPulse tells the notebook the counts of a run that fails. A child
// that fails returns no result, so without it the notebook would count
// the run's permits and unsent units as of its last periodic pulse.
func (s *section) finalPulse(ctx workflow.Context) {
	parent := workflow.GetInfo(ctx).ParentWorkflowExecution
	if parent == nil {
		return
	}
	// Sent even when the run was cancelled, and waited for: the notebook
	// must hear it before the run's failure. Best effort: a notebook
	// gone has nobody to tell.
	dctx, _ := workflow.NewDisconnectedContext(ctx)
	_ = workflow.SignalExternalWorkflow(dctx, parent.ID, "", SignalSectionProgress, s.pulse(dctx)).Get(dctx, nil)
}

func (s *section) count(st entity.CallStats) {
	s.st.Permits += st.Attempts
	s.st.Waited += st.Waited
}

func (s *section) result() SectionResult {
	t := s.st.Tally
	return SectionResult{SectionID: s.in.Section.ID, Pages: t.Pages, Done: t.Done, Written: t.Written,
		Skipped: t.Skipped + t.Gone, Failed: t.Failed, FailedPages: t.FailedPages, Linked: t.Linked,
		Losses: t.Losses, Approximations: t.Approximations, LossPageCount: t.LossPageCount, LossPages: t.LossPages,
		Verified: t.Verified, VerifyReads: t.VerifyReads,
		ListCalls: s.st.ListCalls, Permits: s.st.Permits, Waited: s.st.Waited,
		Relisted: s.st.Relisted, Reruns: s.st.Reruns, MostReruns: s.st.MostReruns, UnsentUnits: s.st.Unsent, LinksPending: s.st.LinksPending,
		LastError: s.lastErr}
}

// progress reports the section's progress; Pages counts the pages listed
// so far.
func (s *section) progress(ctx workflow.Context) SectionProgress {
	t := s.st.Tally
	p := SectionProgress{Section: s.in.Section.Path, Phase: s.phase, Pages: t.Pages, Done: t.Done,
		Failed: t.Failed, Skipped: t.Skipped + t.Gone, Remaining: t.Pages - t.Done - t.Failed - t.Gone,
		Permits: s.st.Permits, Waited: s.st.Waited}
	if worked := t.Done - t.Skipped + t.Failed; worked > 0 && p.Remaining > 0 {
		elapsed := workflow.Now(ctx).Sub(s.st.Started)
		p.ETA = (elapsed / time.Duration(worked) * time.Duration(p.Remaining)).Round(time.Second)
	}
	return p
}

func (s *section) details(ctx workflow.Context) {
	p := s.progress(ctx)
	md := fmt.Sprintf("**%s** (%s): %d of %d pages done, %d skipped unchanged, %d failed · permits waited %s",
		s.in.Section.Path, p.Phase, p.Done, p.Pages, p.Skipped, p.Failed, p.Waited.Round(time.Second))
	if p.ETA > 0 {
		md += fmt.Sprintf(" · ETA %s", p.ETA)
	}
	if e := s.lastErr; e != nil {
		md += "\n\nLast upstream error: " + e.String()
	}
	workflow.SetCurrentDetails(ctx, md)
}

func (s *section) upsertStatus(ctx workflow.Context, status string) {
	err := workflow.UpsertTypedSearchAttributes(ctx, AttrUser.ValueSet(s.in.User),
		AttrNotebook.ValueSet(s.in.NotebookID), AttrStatus.ValueSet(status))
	if err != nil {
		workflow.GetLogger(ctx).Warn("Search attributes not upserted", "error", err)
	}
}
