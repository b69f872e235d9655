package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
)

// maxResourceCost is the most resources fetched under one permit.
const maxResourceCost = 10

// maxResourceAttempts bounds the permits spent on one group of resources.
const maxResourceAttempts = 20

// page runs the pipeline of one page and records the outcome in the
// ledger: content (one permit), resources (one permit of cost k per group
// of k), convert and write to Notion, clean the staging directory.
func (s *section) page(ctx workflow.Context, p activities.PageMeta, parent string) {
	e := &LedgerEntry{LastModified: p.LastModified}
	parentID := ""
	if parent != "" {
		// Subpages are written after their parent, to nest under it.
		_ = workflow.Await(ctx, func() bool {
			pe := s.st.Ledger[parent]
			return pe != nil && (pe.Status == PageDone || pe.Status == PageFailed)
		})
		if pe := s.st.Ledger[parent]; pe != nil {
			parentID = pe.NotionID
		}
	}
	res, err := s.pipeline(ctx, p, parentID)
	var app *temporal.ApplicationError
	if errors.As(err, &app) && app.Type() == activities.ErrTypeGraphNotFound {
		// Deleted in OneNote since it was listed: nothing to migrate.
		e.Status, e.Error = PageGone, errorText(err)
		s.st.Ledger[p.ID] = e
		return
	}
	if err != nil {
		e.Status, e.Error = PageFailed, errorText(err)
		workflow.GetLogger(ctx).Warn("Page failed", "page", p.ID, "error", err)
	} else {
		e.Status, e.NotionID, e.Written, e.Links = PageDone, res.NotionPageID, !res.Unchanged, res.Links
		if res.Unchanged {
			s.st.Skipped++
		}
	}
	s.st.Ledger[p.ID] = e
}

func (s *section) pipeline(ctx workflow.Context, p activities.PageMeta, parentNotionID string) (activities.WritePageResult, error) {
	sctx := ctx // started from the session's context
	key := activities.StageKey(workflow.GetInfo(ctx).WorkflowExecution.RunID + "/" + p.ID)
	res, err := s.steps(ctx, sctx, key, p, parentNotionID)
	// Clean up whatever happened (no defer: see section.run).
	actx := workflow.WithActivityOptions(sctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{MaximumAttempts: 3}, Summary: "Clean staged page"})
	if cerr := workflow.ExecuteActivity(actx, activities.CleanPageName, key).Get(actx, nil); cerr != nil {
		workflow.GetLogger(ctx).Warn("Staging not cleaned", "page", p.ID, "error", cerr)
	}
	return res, err
}

func (s *section) steps(ctx, sctx workflow.Context, key activities.StageKey, p activities.PageMeta, parentNotionID string) (activities.WritePageResult, error) {
	title := p.Title
	if title == "" {
		title = p.ID
	}
	var meta activities.ContentMeta
	st, err := s.lim.Call(sctx, entity.Call{
		Ask:      entity.AskOptions{User: s.in.User, Lane: limiter.Background},
		Activity: activities.FetchContentName,
		Args:     []any{activities.FetchContentInput{User: s.in.User, PageID: p.ID, Key: key}},
		Options:  workflow.ActivityOptions{StartToCloseTimeout: time.Minute, Summary: "Fetch content: " + clip(title)},
	}, &meta)
	s.count(st)
	if err != nil {
		return activities.WritePageResult{}, fmt.Errorf("content: %w", err)
	}
	for group := range slices.Chunk(meta.Resources, maxResourceCost) {
		if err := s.resources(sctx, key, title, group); err != nil {
			return activities.WritePageResult{}, err
		}
	}
	actx := workflow.WithActivityOptions(sctx, workflow.ActivityOptions{
		StartToCloseTimeout: 15 * time.Minute, HeartbeatTimeout: time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: time.Second, MaximumInterval: time.Minute, MaximumAttempts: 6,
			NonRetryableErrorTypes: []string{activities.ErrTypeStaging}},
		Summary: "Write to Notion: " + clip(title),
	})
	var res activities.WritePageResult
	err = workflow.ExecuteActivity(actx, activities.WritePageName, activities.WritePageInput{
		Key: key, DatabaseID: s.in.DatabaseID, Page: p, SectionPath: s.in.Section.Path, ParentNotionID: parentNotionID,
	}).Get(ctx, &res)
	if err != nil {
		return res, fmt.Errorf("write: %w", err)
	}
	return res, nil
}

// resources fetches a group of resources under one permit of cost k; when
// a download fails mid-way, the next permit covers only the missing ones.
func (s *section) resources(sctx workflow.Context, key activities.StageKey, title string, group []activities.ResourceRef) error {
	missing := slices.Clone(group)
	backoff := time.Second
	for attempt := 0; len(missing) > 0; attempt++ {
		if attempt == maxResourceAttempts {
			return fmt.Errorf("resources: gave up after %d attempts, %d missing", attempt, len(missing))
		}
		var r activities.FetchResourcesResult
		st, err := s.lim.Call(sctx, entity.Call{
			Ask:         entity.AskOptions{User: s.in.User, Lane: limiter.Background, Cost: len(missing), Attempt: attempt},
			Activity:    activities.FetchResourcesName,
			Args:        []any{activities.FetchResourcesInput{User: s.in.User, Key: key, Resources: missing}},
			Options:     workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute, Summary: fmt.Sprintf("Fetch %d resources: %s", len(missing), clip(title))},
			MaxAttempts: 1,
		}, &r)
		s.count(st)
		if err != nil {
			var app *temporal.ApplicationError
			if errors.As(err, &app) && app.NonRetryable() {
				return fmt.Errorf("resources: %w", err)
			}
			if err := workflow.Sleep(sctx, backoff); err != nil {
				return err
			}
			backoff = min(2*backoff, time.Minute)
			continue
		}
		missing = slices.DeleteFunc(missing, func(ref activities.ResourceRef) bool { return slices.Contains(r.Fetched, ref.ID) })
		switch {
		case r.Error == "":
		case r.Fatal:
			return fmt.Errorf("resources: %s", r.Error)
		case r.ErrorType == activities.ErrTypeGraphThrottled:
			// The limiter's breaker holds the next permit back.
		default:
			if err := workflow.Sleep(sctx, backoff); err != nil {
				return err
			}
			backoff = min(2*backoff, time.Minute)
		}
	}
	return nil
}

// clip shortens a title for a summary.
func clip(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return string(r[:59]) + "…"
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
