package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/notebridge/notebridge/activities"
)

// VerifyNotebookName is the registered name of VerifyNotebook.
const VerifyNotebookName = "VerifyNotebook"

// VerifyInput is what an operator types to check a finished migration or
// sync again:
//
//	temporal workflow start --task-queue notebridge --type VerifyNotebook \
//	  --workflow-id verify/<notebook page id> --input '{"notebookPageID":"<notebook page id>"}'
type VerifyInput struct {
	// NotebookPageID is the notebook's Notion page (the migration's
	// result names it: notebookPageID).
	NotebookPageID string `json:"notebookPageID"`
	// Sections, if set, are the section databases to check; by default
	// every database under the notebook page (and its group pages) is.
	Sections []activities.ReportSection `json:"sections,omitempty"`
}

// VerifyReport is VerifyNotebook's result.
type VerifyReport struct {
	NotebookPageID string `json:"notebookPageID"`
	Sections       int    `json:"sections"`
	// Pages counts the migrated pages checked; the verdicts add up to it.
	Pages      int `json:"pages"`
	Verified   int `json:"verified"`
	Differs    int `json:"differs"`
	Edited     int `json:"edited"`
	Unverified int `json:"unverified"`
	// Reads counts the Notion reads of the checks.
	Reads int `json:"reads"`
	// NotVerified names up to 20 pages that are not verified, differing
	// ones first.
	NotVerified []activities.PageVerdict `json:"notVerified,omitempty"`
	Message     string                   `json:"message"`
}

// maxNamedVerdicts is how many pages a VerifyReport names.
const maxNamedVerdicts = 20

// verifyOptions are for checking one section's pages: one paced read per
// page and per block with children, hours for a very large section, a
// heartbeat per page; retried, as checking changes nothing.
func verifyOptions(summary string) workflow.ActivityOptions {
	return workflow.ActivityOptions{StartToCloseTimeout: 4 * time.Hour, HeartbeatTimeout: heartbeatTimeout,
		RetryPolicy: notionRetry(notionAttempts), Summary: summary}
}

// VerifyNotebook checks a migrated notebook again, at any time after its
// migration or sync: every migrated page is read back from Notion and
// compared with what its row records was written. A page a person edited
// in Notion since is reported as edited, not as differing. It changes
// nothing in Notion; one section is checked at a time (the reads share
// the integration's pace with any migration running).
func (w *Workflows) VerifyNotebook(ctx workflow.Context, in VerifyInput) (VerifyReport, error) {
	rep := VerifyReport{NotebookPageID: in.NotebookPageID}
	if in.NotebookPageID == "" && len(in.Sections) == 0 {
		return rep, invalid("notebookPageID", "is empty: give the notebook's Notion page (the migration's result names it), or sections")
	}
	secs := in.Sections
	if len(secs) == 0 {
		actx := workflow.WithActivityOptions(ctx, notionReportOptions("Find the notebook's section databases"))
		if err := workflow.ExecuteActivity(actx, activities.FindSectionsName,
			activities.FindSectionsInput{NotebookPageID: in.NotebookPageID}).Get(ctx, &secs); err != nil {
			return rep, err
		}
	}
	rep.Sections = len(secs)
	for i, s := range secs {
		workflow.SetCurrentDetails(ctx, fmt.Sprintf("Checking section %d of %d, **%s**: %d pages checked so far", i+1, len(secs), s.Path, rep.Pages))
		actx := workflow.WithActivityOptions(ctx, verifyOptions("Check the pages of "+clip(s.Path)))
		var res activities.VerifySectionResult
		if err := workflow.ExecuteActivity(actx, activities.VerifySectionName, activities.VerifySectionInput{Section: s}).Get(ctx, &res); err != nil {
			return rep, fmt.Errorf("section %q: %w", s.Path, err)
		}
		rep.add(res)
	}
	rep.Message = rep.summary()
	workflow.SetCurrentDetails(ctx, rep.Message)
	return rep, nil
}

// add counts a section's verdicts.
func (r *VerifyReport) add(s activities.VerifySectionResult) {
	r.Pages += s.Pages
	r.Verified += s.Verified
	r.Differs += s.Differs
	r.Edited += s.Edited
	r.Unverified += s.Unverified
	r.Reads += s.Reads
	for _, p := range s.NotVerified {
		if len(r.NotVerified) < maxNamedVerdicts {
			r.NotVerified = append(r.NotVerified, p)
		}
	}
}

// summary reads "159 of 160 pages verified, 1 edited in Notion since
// (642 Notion reads)".
func (r VerifyReport) summary() string {
	s := fmt.Sprintf("%d of %d pages verified", r.Verified, r.Pages)
	if r.Differs > 0 {
		s += fmt.Sprintf(", %d differ from what was written", r.Differs)
	}
	if r.Edited > 0 {
		s += fmt.Sprintf(", %d edited in Notion since", r.Edited)
	}
	if r.Unverified > 0 {
		s += fmt.Sprintf(", %d not checked (nothing recorded: written before verification existed)", r.Unverified)
	}
	return s + fmt.Sprintf(" (%d Notion reads)", r.Reads)
}
