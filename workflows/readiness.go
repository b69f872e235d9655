package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/failure"
	"github.com/notebridge/notebridge/limiter"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/onenote"
)

// The readiness check (package readiness, activity CheckReadiness) runs
// before a migration's first write, and reports in a dry run and a scan.

func readinessOptions(summary string) workflow.ActivityOptions {
	return notionLayoutOptions(summary)
}

// checkReadiness fails the migration, before anything is written, when
// the Notion workspace cannot hold it (a NotionNotReady failure naming
// the limit, the numbers and the options). It asks first without the page
// count, which the migration has not listed yet; only when the connection
// is held to the Free block limit are the sections' pages counted (one
// listing request per 100 pages, in the background lane, as a scan counts
// them) and the check made again with them, so a workspace without the
// limit costs no Graph request. A sync is checked without its pages.
func (nb *notebook) checkReadiness(ctx workflow.Context, lim caller, refs []SectionRef) error {
	actx := workflow.WithActivityOptions(ctx, readinessOptions("Check that the migration can finish in the Notion workspace"))
	in := activities.CheckReadinessInput{Sections: len(refs), SkipAttachments: nb.in.SkipAttachments}
	var res activities.CheckReadinessResult
	if err := workflow.ExecuteActivity(actx, activities.CheckReadinessName, in).Get(ctx, &res); err != nil {
		return err
	}
	if !res.Facts.BlockLimited() || nb.in.Sync != nil {
		// A sync writes only what changed, which is not known before it
		// plans: every page's estimate would refuse syncs that fit.
		return nil
	}
	nb.phase = "counting pages for the Notion block limit"
	nb.details(ctx)
	for _, r := range refs {
		n, err := nb.countPages(ctx, lim, r)
		if err != nil {
			return err
		}
		in.Pages += n
	}
	if in.Pages == 0 {
		return nil
	}
	return workflow.ExecuteActivity(actx, activities.CheckReadinessName, in).Get(ctx, &res)
}

// countPages counts a section's pages from its listing; a
// password-protected section counts none (it is skipped anyway).
func (nb *notebook) countPages(ctx workflow.Context, lim caller, r SectionRef) (int, error) {
	if nb.in.File != "" {
		return nb.countFilePages(ctx, r)
	}
	cur := onenote.PageCursor{SectionID: r.ID}
	n := 0
	for {
		var page activities.ListPagesResult
		_, err := lim.Call(ctx, entity.Call{
			Ask:      entity.AskOptions{User: nb.in.User, Lane: limiter.Background},
			Activity: activities.ListPagesName,
			Args:     []any{activities.ListPagesInput{User: nb.in.User, Cursor: cur}},
			Options:  graphOptions("Count the pages of " + r.Path + " for the Notion block limit"),
		}, &page)
		if failure.Find(err, failure.GraphProtected) != nil {
			return 0, nil
		}
		if err != nil {
			return 0, nb.explain(fmt.Errorf("counting the pages of %q for the Notion block limit: %w", r.Path, err))
		}
		n += len(page.Pages)
		if page.Done {
			return n, nil
		}
		cur = page.Next
	}
}

// readinessReport is the verdict for a run of sections and pages that
// writes nothing (a dry run, a scan): its text, or why it could not be
// made. It never fails the run.
func readinessReport(ctx workflow.Context, sections, pages int, skipAttachments bool) string {
	actx := workflow.WithActivityOptions(ctx, readinessOptions("Check whether the migration would fit the Notion workspace"))
	var res activities.CheckReadinessResult
	if err := workflow.ExecuteActivity(actx, activities.CheckReadinessName, activities.CheckReadinessInput{
		Sections: sections, Pages: pages, SkipAttachments: skipAttachments, ReportOnly: true}).Get(ctx, &res); err != nil {
		return fmt.Sprintf("Notion readiness: not checked (%v).", err)
	}
	return res.Text
}

// countFilePages counts a section's pages from the file's listing (no
// Graph request, no permit).
func (nb *notebook) countFilePages(ctx workflow.Context, r SectionRef) (int, error) {
	actx := workflow.WithActivityOptions(ctx, fileOptions("Count the pages of "+r.Path+" in the file for the Notion block limit"))
	n := 0
	for {
		var page activities.ListFilePagesResult
		err := workflow.ExecuteActivity(actx, activities.ListFilePagesName,
			activities.ListFilePagesInput{File: nb.in.File, SectionID: r.ID, Skip: n, Top: fileBatch}).Get(ctx, &page)
		if failure.Find(err, failure.FileProtected) != nil {
			return 0, nil
		}
		if err != nil {
			return 0, nb.explain(fmt.Errorf("counting the pages of %q in the file for the Notion block limit: %w", r.Path, err))
		}
		n += len(page.Pages)
		if page.Done || len(page.Pages) == 0 {
			return n, nil
		}
	}
}
