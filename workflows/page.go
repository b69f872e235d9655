package workflows

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// maxResourceCost is the most resources fetched under one permit.
const maxResourceCost = 10

// maxResourceAttempts bounds the permits spent on one group of resources.
const maxResourceAttempts = 20

// maxLossNotes is how many losses a ledger entry names.
const maxLossNotes = 3

// page runs the pipeline of one page and records the outcome in the
// ledger: content (one permit), resources (one permit of cost k per group
// of k), convert and write to Notion, clean the staging directory. It
// runs again on a new session if its worker is lost.
func (s *section) page(ctx workflow.Context, p activities.PageMeta, parent string) {
	e := &LedgerEntry{}
	parentID := ""
	if parent != "" {
		// Subpages are written after their parent, to nest under it (a
		// parent deleted in OneNote since the listing leaves them at the
		// top).
		_ = workflow.Await(ctx, func() bool { return s.ledger[parent] != nil })
		pe := s.ledger[parent]
		if pe != nil {
			parentID = pe.NotionID
		}
		if pe != nil && pe.Status == PageFailed {
			// Written now, it would land outside its parent for good: a
			// retry of the section skips pages already done. Fail with
			// the parent; the retry writes both, nested.
			e.Status, e.Error = PageFailed, "its parent page failed: "+pe.Error
			s.record(p, e)
			return
		}
	}
	res, err := s.renewing(ctx, p, parentID, e)
	app, decision := failure.Of(err)
	switch {
	case err != nil && decision == failure.SkipPage:
		// Deleted in OneNote since it was listed: nothing to migrate.
		e.Status, e.Error = PageGone, errorText(err)
	case err != nil:
		e.Status, e.Error = PageFailed, errorText(err)
		workflow.GetLogger(ctx).Warn("Page failed", "page", p.ID, "error", err)
		if u := upstreamOf("", err, limiter.Outcome{}, workflow.Now(ctx), s.in.Section.Path); u != nil && u.Service == ServiceNotion {
			// Graph's errors were seen attempt by attempt (observe).
			s.upstream(u)
		}
		if (decision == failure.Stop || decision == failure.SkipSection) && s.stop == "" {
			// No page can be written until a person acts (or the
			// section was locked since it was listed, and is then
			// skipped): stop starting pages.
			s.stop, s.stopType, s.stopErr = app.Message(), app.Type(), err
			if app.Type() == failure.NotionBlockLimit {
				s.stop = StopBlockLimit
			}
		}
	default:
		s.recovered(ServiceNotion)
		e.Status, e.NotionID, e.Written, e.Links = PageDone, res.NotionPageID, !res.Unchanged, res.Links
		e.Losses, e.Approximations, e.LossNotes = res.Losses, res.Approximations, res.LossSamples
		e.Verification, e.VerifyReads = res.Verification, res.VerifyReads
		if len(e.LossNotes) > maxLossNotes {
			e.LossNotes = e.LossNotes[:maxLossNotes]
		}
		if res.Unchanged {
			s.st.Tally.Skipped++
		}
	}
	s.record(p, e)
}

// record keeps page p's outcome e for this run and counts it.
func (s *section) record(p activities.PageMeta, e *LedgerEntry) {
	s.ledger[p.ID] = e
	s.st.Tally.add(p, e)
}

// renewing runs the pipeline on the section's session; when the worker
// holding the page is lost (the session failed, or the staged data is
// gone), it runs the whole page again on a new session, as far as
// rerunAfterLoss allows (rerun.go: lost runs are not the page's fault,
// but they are bounded and spaced). The Notion write
// is idempotent (the row is found by OneNote page ID, a half-written one
// is completed), so a page that was being written when its worker died
// still lands exactly once.
func (s *section) renewing(ctx workflow.Context, p activities.PageMeta, parentID string, e *LedgerEntry) (activities.WritePageResult, error) {
	for run := 1; ; run++ {
		sctx, err := s.sess.get(ctx)
		if err != nil {
			return activities.WritePageResult{}, fmt.Errorf("no worker session: %w", err)
		}
		// Only a goroutine started from the session context may block
		// on it.
		var res activities.WritePageResult
		finished := false
		s.staged[p.ID] = false
		workflow.Go(sctx, func(gctx workflow.Context) {
			res, err = s.pipeline(gctx, p, parentID)
			finished = true
		})
		if aerr := workflow.Await(ctx, func() bool { return finished }); aerr != nil {
			// Cancelled: the pipeline ends at once; wait for it, so
			// its permits are released before the section ends.
			dctx, _ := workflow.NewDisconnectedContext(ctx)
			_ = workflow.Await(dctx, func() bool { return finished })
			return res, aerr
		}
		if !workerLost(sctx, err) || ctx.Err() != nil {
			return res, err
		}
		again, wait := rerunAfterLoss(run, s.staged[p.ID])
		if !again {
			return res, fmt.Errorf("the worker running this page was lost %d times in a row (last: %w); "+
				"check the workers, then retry the section", run, err)
		}
		e.Reruns++
		s.st.Reruns++
		s.st.MostReruns = max(s.st.MostReruns, e.Reruns)
		workflow.GetLogger(ctx).Warn("Worker lost mid-page; running the page again on a new session", "page", p.ID, "run", run,
			"staged", s.staged[p.ID], "wait", wait, "error", err)
		if wait > 0 {
			if err := workflow.NewTimerWithOptions(ctx, wait, workflow.TimerOptions{
				Summary: fmt.Sprintf("Wait %s before running %s again (its worker was lost %d times)", wait, clip(cmp.Or(p.Title, p.ID)), run)}).Get(ctx, nil); err != nil {
				return res, err
			}
		}
	}
}

func (s *section) pipeline(sctx workflow.Context, p activities.PageMeta, parentNotionID string) (activities.WritePageResult, error) {
	key := activities.StageKey(workflow.GetInfo(sctx).WorkflowExecution.RunID + "/" + p.ID)
	res, err := s.steps(sctx, key, p, parentNotionID)
	// Clean up whatever happened (no defer: see section.run).
	actx := workflow.WithActivityOptions(sctx, housekeepingOptions("Clean staged page"))
	if cerr := workflow.ExecuteActivity(actx, activities.CleanPageName, key).Get(actx, nil); cerr != nil {
		workflow.GetLogger(sctx).Warn("Staging not cleaned", "page", p.ID, "error", cerr)
	}
	return res, err
}

func (s *section) steps(sctx workflow.Context, key activities.StageKey, p activities.PageMeta, parentNotionID string) (activities.WritePageResult, error) {
	title := p.Title
	if title == "" {
		title = p.ID
	}
	if s.in.File != "" {
		lost, err := s.fetchFile(sctx, key, p, title)
		if err != nil {
			return activities.WritePageResult{}, err
		}
		return s.write(sctx, key, p, parentNotionID, title, lost)
	}
	var lost []activities.LostResource
	var meta activities.ContentMeta
	st, err := s.lim.Call(sctx, entity.Call{
		Ask:       entity.AskOptions{User: s.in.User, Lane: limiter.Background, Remaining: s.remaining()},
		Activity:  activities.FetchContentName,
		Args:      []any{activities.FetchContentInput{User: s.in.User, PageID: p.ID, Key: key, Options: s.in.Content}},
		Options:   graphOptions("Fetch content: " + clip(title)),
		OnAttempt: s.observe,
	}, &meta)
	s.count(st)
	if err != nil {
		return activities.WritePageResult{}, fmt.Errorf("content: %w", err)
	}
	s.staged[p.ID] = true
	s.st.Fetched++
	s.st.FetchedUnits += 1 + len(meta.Resources)
	for group := range slices.Chunk(meta.Resources, maxResourceCost) {
		l, err := s.resources(sctx, key, title, group)
		if err != nil {
			return activities.WritePageResult{}, err
		}
		lost = append(lost, l...)
	}
	return s.write(sctx, key, p, parentNotionID, title, lost)
}

// write converts the staged page and writes it to Notion: the one write
// step of both sources.
func (s *section) write(sctx workflow.Context, key activities.StageKey, p activities.PageMeta, parentNotionID, title string,
	lost []activities.LostResource) (activities.WritePageResult, error) {
	actx := workflow.WithActivityOptions(sctx, notionWriteOptions("Write to Notion: "+clip(title)))
	var res activities.WritePageResult
	err := workflow.ExecuteActivity(actx, activities.WritePageName, activities.WritePageInput{
		Key: key, DatabaseID: s.in.DatabaseID, Page: p, SectionPath: s.in.Section.Path, ParentNotionID: parentNotionID,
		Lost: lost, Options: s.in.Content,
	}).Get(sctx, &res)
	if err != nil {
		return res, fmt.Errorf("write: %w", err)
	}
	return res, nil
}

// resources fetches a group of resources under one permit of cost k; when
// a download fails mid-way, the next permit covers only the missing ones.
// The permit is divisible: when only j < k requests fit the limits now,
// the first j resources go at once and the next permit covers the rest, so a page's last resources never hold back
// units that would otherwise wait unused. Only failures count as
// attempts. Resources that can never be had are returned as lost: the
// page is written without them.
func (s *section) resources(sctx workflow.Context, key activities.StageKey, title string, group []activities.ResourceRef) ([]activities.LostResource, error) {
	missing := slices.Clone(group)
	var lost []activities.LostResource
	backoff := time.Second
	for attempt := 0; len(missing) > 0; attempt++ {
		if attempt == maxResourceAttempts {
			return lost, fmt.Errorf("resources: gave up after %d attempts, %d missing", attempt, len(missing))
		}
		input := func(refs []activities.ResourceRef) []any {
			return []any{activities.FetchResourcesInput{User: s.in.User, Key: key, Resources: refs}}
		}
		granted := len(missing)
		call := entity.Call{
			Ask: entity.AskOptions{User: s.in.User, Lane: limiter.Background, Cost: len(missing), MinCost: 1, Attempt: attempt,
				Remaining: s.remaining()},
			Activity: activities.FetchResourcesName,
			Args:     input(missing),
			ArgsFor: func(p entity.Permit) []any {
				granted = min(len(missing), max(1, p.Cost))
				return input(missing[:granted])
			},
			Options:     graphResourcesOptions(fmt.Sprintf("Fetch %d resources: %s", len(missing), clip(title))),
			MaxAttempts: 1,
			OnAttempt:   s.observe,
		}
		var r activities.FetchResourcesResult
		st, err := s.lim.Call(sctx, call, &r)
		s.count(st)
		if err != nil {
			var app *temporal.ApplicationError
			if errors.As(err, &app) && app.NonRetryable() {
				return lost, fmt.Errorf("resources: %w", err)
			}
			if err := s.backoff(sctx, backoff, title); err != nil {
				return lost, err
			}
			backoff = min(2*backoff, time.Minute)
			continue
		}
		// The permit covered granted requests; fewer left when an error
		// stopped the sequence.
		s.st.Unsent += max(0, granted-r.Requests)
		lost = append(lost, r.Lost...)
		missing = slices.DeleteFunc(missing, func(ref activities.ResourceRef) bool {
			return slices.Contains(r.Fetched, ref.ID) || slices.ContainsFunc(r.Lost, func(l activities.LostResource) bool { return l.ID == ref.ID })
		})
		switch {
		case r.Error == "":
			attempt-- // progress, not a failure
		case r.Fatal:
			// Typed, so the page's caller can tell a stop (a locked
			// section, the sign-in gone) from a page failure.
			return lost, fmt.Errorf("resources: %w", temporal.NewNonRetryableApplicationError(r.Error, r.ErrorType, nil))
		case r.ErrorType == failure.GraphThrottled:
			// The limiter's breaker holds the next permit back.
		default:
			s.upstream(&UpstreamError{Service: ServiceGraph, Type: r.ErrorType, Code: outcomeCode(r.Outcome),
				Message: clipText(r.Error, maxHealthText), Section: s.in.Section.Path, At: workflow.Now(sctx), Ongoing: true})
			if err := s.backoff(sctx, backoff, title); err != nil {
				return lost, err
			}
			backoff = min(2*backoff, time.Minute)
		}
	}
	return lost, nil
}

// backoff waits d before the next permit for the resources of page title.
func (s *section) backoff(ctx workflow.Context, d time.Duration, title string) error {
	return workflow.NewTimerWithOptions(ctx, d, workflow.TimerOptions{
		Summary: fmt.Sprintf("Back off %s before fetching the resources of %s again", d, clip(title))}).Get(ctx, nil)
}

// clip shortens a title for a summary.
func clip(s string) string { return clipText(s, 60) }

// clipText cuts s to n runes, an ellipsis marking the cut.
func clipText(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// errorText is an error's message for a report.
func errorText(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return fmt.Sprintf("%s (%s)", err.Error(), app.Type())
	}
	return err.Error()
}
