package workflows

import (
	"fmt"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
)

// The readiness check (package readiness, activity CheckReadiness) runs
// before a migration's first write, and reports in a dry run and a scan.
// Each call is behind a version marker, so histories recorded before it
// replay unchanged.
const (
	readinessChange = "notion-readiness"
	readinessMax    = 1
)

func readinessOptions(summary string) workflow.ActivityOptions {
	return notionLayoutOptions(summary)
}

// checkReadiness fails the migration, before anything is written, when
// the Notion workspace cannot hold it (a NotionNotReady failure naming
// the limit, the numbers and the options). The pages are not listed yet,
// so the estimate is the containers' lower bound; the dry run and the
// scan check with the page count.
func (nb *notebook) checkReadiness(ctx workflow.Context, sections int) error {
	if workflow.GetVersion(ctx, readinessChange, workflow.DefaultVersion, readinessMax) == workflow.DefaultVersion {
		return nil
	}
	actx := workflow.WithActivityOptions(ctx, readinessOptions("Check that the migration can finish in the Notion workspace"))
	var res activities.CheckReadinessResult
	return workflow.ExecuteActivity(actx, activities.CheckReadinessName, activities.CheckReadinessInput{
		Sections: sections, SkipAttachments: nb.in.SkipAttachments}).Get(ctx, &res)
}

// readinessReport is the verdict for a run of sections and pages that
// writes nothing (a dry run, a scan): its text, or why it could not be
// made. It never fails the run.
func readinessReport(ctx workflow.Context, sections, pages int, skipAttachments bool) string {
	if workflow.GetVersion(ctx, readinessChange, workflow.DefaultVersion, readinessMax) == workflow.DefaultVersion {
		return ""
	}
	actx := workflow.WithActivityOptions(ctx, readinessOptions("Check whether the migration would fit the Notion workspace"))
	var res activities.CheckReadinessResult
	if err := workflow.ExecuteActivity(actx, activities.CheckReadinessName, activities.CheckReadinessInput{
		Sections: sections, Pages: pages, SkipAttachments: skipAttachments, ReportOnly: true}).Get(ctx, &res); err != nil {
		return fmt.Sprintf("Notion readiness: not checked (%v).", err)
	}
	return res.Text
}
