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

// LedgerEntry is the durable record of one page.
type LedgerEntry struct {
	Status       string `json:"status"`
	NotionID     string `json:"notionID,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	Error        string `json:"error,omitempty"`
	// Written is set when this migration wrote the page (not skipped).
	Written bool `json:"written,omitempty"`
	Links   int  `json:"links,omitempty"`
	// Losses counts what could not be carried over (the page's loss
	// report); LossNotes names the first few.
	Losses    int      `json:"losses,omitempty"`
	LossNotes []string `json:"lossNotes,omitempty"`
	// Reruns counts the times the page ran again because the worker
	// holding it was lost.
	Reruns int `json:"reruns,omitempty"`
}

// SectionState is a section's progress: the listing, and the ledger of
// every page handled (page ID -> entry).
type SectionState struct {
	Listed    bool                    `json:"listed"`
	Pages     []activities.PageMeta   `json:"pages,omitempty"`
	Ledger    map[string]*LedgerEntry `json:"ledger,omitempty"`
	Skipped   int                     `json:"skipped"`
	ListCalls int                     `json:"listCalls"`
	Permits   int                     `json:"permits"`
	Waited    time.Duration           `json:"waited"`
	Started   time.Time               `json:"started"`
	Runs      int                     `json:"runs"`
	// Relisted is set when the listing was read again following
	// @odata.nextLink because Graph ignored $skip.
	Relisted bool `json:"relisted,omitempty"`
	// Reruns counts page runs repeated because a worker was lost.
	Reruns int `json:"reruns,omitempty"`
	// Unsent counts permit units granted for resource requests that were
	// never sent (a download sequence stopped early). The limiter gives
	// them back (limiter.Outcome.Unsent) since limiter-settle-sent.
	Unsent int `json:"unsent,omitempty"`
	// LinksPending: see SectionResult.
	LinksPending int `json:"linksPending,omitempty"`
}

// PageFailure names a page that failed and why.
type PageFailure struct {
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	Error string `json:"error"`
}

// PageLoss names a page written without some of its content, and what.
type PageLoss struct {
	ID     string   `json:"id"`
	Title  string   `json:"title,omitempty"`
	Losses int      `json:"losses"`
	Notes  []string `json:"notes,omitempty"`
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
	// FailedPages lists up to 20 failures.
	FailedPages []PageFailure `json:"failedPages,omitempty"`
	// Linked counts the pages written now that hold internal links.
	Linked int `json:"linked,omitempty"`
	// Losses counts everything not carried over, over all pages, and
	// LossPageCount the pages written with losses; LossPages names up to
	// 20 of them.
	Losses        int        `json:"losses,omitempty"`
	LossPageCount int        `json:"lossPageCount,omitempty"`
	LossPages     []PageLoss `json:"lossPages,omitempty"`
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
	// Relisted, Reruns and UnsentUnits: see SectionState.
	Relisted    bool `json:"relisted,omitempty"`
	Reruns      int  `json:"reruns,omitempty"`
	UnsentUnits int  `json:"unsentUnits,omitempty"`
}

// SectionProgress answers the progress query of a section.
type SectionProgress struct {
	Section   string        `json:"section"`
	Phase     string        `json:"phase"`
	Pages     int           `json:"pages"`
	Done      int           `json:"done"`
	Failed    int           `json:"failed"`
	Skipped   int           `json:"skipped"`
	Remaining int           `json:"remaining"`
	Permits   int           `json:"permits"`
	Waited    time.Duration `json:"permitsWaited"`
	ETA       time.Duration `json:"eta"`
}

// section is one MigrateSection run.
type section struct {
	w        *Workflows
	in       SectionInput
	st       *SectionState
	lim      caller
	phase    string
	inflight int
	handled  int // pages started in this run
	sess     *sessions
	// staged says, per page running in this run, whether its content is
	// staged on its session's worker (so losing that worker cost it work).
	staged map[string]bool
	// stop, when set, stops the section before its next page; stopType
	// is the error type that stopped it, and stopErr the error.
	stop, stopType string
	stopErr        error
}

// MigrateSection migrates one section: it lists the section's pages (one
// permit per 100), then runs the page pipeline for each page, a few at a
// time, keeping a ledger. It continues as new every PagesPerRun pages or
// when Temporal suggests it, carrying the ledger.
func (w *Workflows) MigrateSection(ctx workflow.Context, in SectionInput) (SectionResult, error) {
	spec, err := limiter.Profile(in.Limits)
	if err != nil {
		return SectionResult{}, invalid("limits", "%v", err)
	}
	in.PageParallelism = max(1, in.PageParallelism)
	if in.PagesPerRun <= 0 {
		in.PagesPerRun = DefaultPagesPerRun
	}
	s := &section{w: w, in: in, st: in.State, phase: "listing", staged: map[string]bool{}}
	if s.st == nil {
		s.st = &SectionState{Ledger: map[string]*LedgerEntry{}, Started: workflow.Now(ctx)}
	}
	if s.st.Ledger == nil {
		s.st.Ledger = map[string]*LedgerEntry{}
	}
	s.st.Runs++
	if err := workflow.SetQueryHandler(ctx, QueryProgress, func() (SectionProgress, error) { return s.progress(ctx), nil }); err != nil {
		return SectionResult{}, err
	}
	s.upsertStatus(ctx, "migrating")
	s.lim = w.caller(ctx, spec)
	res, err := s.run(ctx)
	if ferr := s.lim.Flush(ctx); ferr != nil && err == nil {
		err = ferr
	}
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
	case !workflow.IsContinueAsNewError(err):
		s.upsertStatus(ctx, "failed")
	}
	return res, err
}

func (s *section) run(ctx workflow.Context) (SectionResult, error) {
	if !s.st.Listed {
		if err := s.list(ctx); err != nil {
			return SectionResult{}, err
		}
	}
	s.details(ctx)
	if s.in.DryRun {
		return s.result(), nil
	}
	s.phase = "migrating"
	s.sess = newSessions(ctx)
	parents := parentsOf(s.st.Pages)
	stopped := false
	for _, p := range s.st.Pages {
		if e := s.st.Ledger[p.ID]; e != nil && (e.Status != PageDone || e.LastModified == p.LastModified) {
			// Done, gone, or failed in an earlier run of this execution
			// (a retry-section runs it again).
			continue
		}
		if s.stop != "" {
			break
		}
		if s.handled >= s.in.PagesPerRun || workflow.GetInfo(ctx).GetContinueAsNewSuggested() {
			stopped = true
			break
		}
		if err := workflow.Await(ctx, func() bool { return s.inflight < s.in.PageParallelism }); err != nil {
			s.windDown(ctx)
			return SectionResult{}, err
		}
		if s.stop != "" {
			break
		}
		p := p
		s.inflight++
		s.handled++
		workflow.Go(ctx, func(ctx workflow.Context) {
			// No defer: deferred code also runs when the SDK evicts the
			// workflow from its cache, outside the workflow's control.
			s.page(ctx, p, parents[p.ID])
			s.details(ctx)
			s.inflight--
		})
	}
	if err := workflow.Await(ctx, func() bool { return s.inflight == 0 }); err != nil {
		s.windDown(ctx)
		return SectionResult{}, err
	}
	s.sess.complete(ctx)
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
		if err := s.lim.Flush(ctx); err != nil {
			return SectionResult{}, err
		}
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

// list reads the whole page listing, one permit per request of 100, and
// marks the pages Notion already holds unchanged as done.
func (s *section) list(ctx workflow.Context) error {
	cur := onenote.PageCursor{SectionID: s.in.Section.ID}
	seen := map[string]bool{}
	for {
		var r activities.ListPagesResult
		st, err := s.lim.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: s.in.User, Lane: limiter.Background},
			Activity: activities.ListPagesName,
			Args:     []any{activities.ListPagesInput{User: s.in.User, Cursor: cur}},
			Options:  graphOptions(fmt.Sprintf("List pages of %s from %d", s.in.Section.Name, cur.Skip)),
		}, &r)
		s.count(st)
		if err != nil {
			if failure.Find(err, failure.GraphProtected) != nil {
				return s.protected(err)
			}
			return fmt.Errorf("listing the pages of section %q: %w", s.in.Section.Path, err)
		}
		s.st.ListCalls++
		for _, p := range r.Pages {
			if !seen[p.ID] {
				seen[p.ID] = true
				s.st.Pages = append(s.st.Pages, p)
			}
		}
		if r.Repeated && !cur.UseNextLink {
			// Graph ignored $skip and sent a batch again: pages after
			// the first batches may be missing. List again from the
			// start without $top, following @odata.nextLink; pages
			// already seen are not added twice.
			workflow.GetLogger(ctx).Warn("Graph ignored $skip; listing the section again with nextLink", "section", s.in.Section.ID)
			s.st.Relisted = true
			cur = onenote.PageCursor{SectionID: s.in.Section.ID, UseNextLink: true}
			continue
		}
		if r.Done {
			break
		}
		cur = r.Next
	}
	slices.SortStableFunc(s.st.Pages, func(a, b activities.PageMeta) int { return a.Order - b.Order })
	s.st.Listed = true
	if s.in.DryRun || s.in.DatabaseID == "" || len(s.st.Pages) == 0 {
		return nil
	}
	want := make(map[string]string, len(s.st.Pages))
	for _, p := range s.st.Pages {
		want[p.ID] = p.LastModified
	}
	actx := workflow.WithActivityOptions(ctx, notionReadOptions("Find pages already in Notion"))
	var ex activities.ExistingRowsResult
	if err := workflow.ExecuteActivity(actx, activities.ExistingRowsName,
		activities.ExistingRowsInput{DatabaseID: s.in.DatabaseID, Pages: want}).Get(ctx, &ex); err != nil {
		return fmt.Errorf("reading section %q in Notion: %w", s.in.Section.Path, err)
	}
	s.st.LinksPending = ex.LinksPending
	for _, p := range s.st.Pages {
		if id, ok := ex.Done[p.ID]; ok {
			s.st.Ledger[p.ID] = &LedgerEntry{Status: PageDone, NotionID: id, LastModified: p.LastModified}
			s.st.Skipped++
		}
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

func (s *section) count(st entity.CallStats) {
	s.st.Permits += st.Attempts
	s.st.Waited += st.Waited
}

// parentsOf maps each subpage to its parent page: the nearest earlier page
// (in section order) with a smaller level.
func parentsOf(pages []activities.PageMeta) map[string]string {
	out := map[string]string{}
	var stack []activities.PageMeta
	for _, p := range pages {
		for len(stack) > 0 && stack[len(stack)-1].Level >= p.Level {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			out[p.ID] = stack[len(stack)-1].ID
		}
		stack = append(stack, p)
	}
	return out
}

func (s *section) counts() (done, failed, gone int) {
	for _, p := range s.st.Pages {
		if e := s.st.Ledger[p.ID]; e != nil {
			switch e.Status {
			case PageDone:
				done++
			case PageFailed:
				failed++
			case PageGone:
				gone++
			}
		}
	}
	return done, failed, gone
}

func (s *section) result() SectionResult {
	r := SectionResult{SectionID: s.in.Section.ID, Pages: len(s.st.Pages), Skipped: s.st.Skipped,
		ListCalls: s.st.ListCalls, Permits: s.st.Permits, Waited: s.st.Waited,
		Relisted: s.st.Relisted, Reruns: s.st.Reruns, UnsentUnits: s.st.Unsent, LinksPending: s.st.LinksPending}
	for _, p := range s.st.Pages {
		e := s.st.Ledger[p.ID]
		switch {
		case e == nil:
		case e.Status == PageDone:
			r.Done++
			if e.Written {
				r.Written++
				if e.Links > 0 {
					r.Linked++
				}
				if e.Losses > 0 {
					r.Losses += e.Losses
					r.LossPageCount++
					if len(r.LossPages) < 20 {
						r.LossPages = append(r.LossPages, PageLoss{ID: p.ID, Title: p.Title, Losses: e.Losses, Notes: e.LossNotes})
					}
				}
			}
		case e.Status == PageGone:
			r.Skipped++
		case e.Status == PageFailed:
			r.Failed++
			if len(r.FailedPages) < 20 {
				r.FailedPages = append(r.FailedPages, PageFailure{ID: p.ID, Title: p.Title, Error: e.Error})
			}
		}
	}
	return r
}

func (s *section) progress(ctx workflow.Context) SectionProgress {
	done, failed, gone := s.counts()
	p := SectionProgress{Section: s.in.Section.Path, Phase: s.phase, Pages: len(s.st.Pages), Done: done,
		Failed: failed, Skipped: s.st.Skipped + gone, Remaining: len(s.st.Pages) - done - failed - gone,
		Permits: s.st.Permits, Waited: s.st.Waited}
	if worked := done - s.st.Skipped + failed; worked > 0 && p.Remaining > 0 {
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
	workflow.SetCurrentDetails(ctx, md)
}

func (s *section) upsertStatus(ctx workflow.Context, status string) {
	err := workflow.UpsertTypedSearchAttributes(ctx, AttrUser.ValueSet(s.in.User),
		AttrNotebook.ValueSet(s.in.NotebookID), AttrStatus.ValueSet(status))
	if err != nil {
		workflow.GetLogger(ctx).Warn("Search attributes not upserted", "error", err)
	}
}
