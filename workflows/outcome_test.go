package workflows_test

import (
	"testing"

	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

// TestOutcomeMarkdown: the lines an ended notebook's current details
// add after its counts, for a migration with a report, a sync run that
// kept the report, one whose report was not written, and a dry run.
func TestOutcomeMarkdown(t *testing.T) {
	kinds := []report.KindCount{{Kind: "equation", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "color-approximated", Severity: report.Approximated, Count: 12, Pages: 3}}
	for _, tt := range []struct {
		name string
		rep  workflows.NotebookReport
		want string
	}{
		{"migrated", workflows.NotebookReport{LossKinds: kinds, Verification: &report.Verification{Verified: 16}, ReportPageID: "ab-cd"},
			"\n\n**Lost:** 1 (equation ×1)  \n**Approximated:** 12 (color-approximated ×12)  \n" +
				"**Verification:** 16 of 16 pages verified  \n**Report:** the \"Migration report\" page in Notion, https://www.notion.so/abcd"},
		{"nothing, verification off", workflows.NotebookReport{Verification: &report.Verification{Unverified: 4}, VerifySkipped: true, ReportPageID: "r"},
			"\n\n**Lost:** nothing  \n**Approximated:** nothing  \n**Verification:** skipped (skipVerify)  \n" +
				"**Report:** the \"Migration report\" page in Notion, https://www.notion.so/r"},
		{"sync kept the report", workflows.NotebookReport{ReportKept: true, Sync: &workflows.SyncReport{}},
			"\n\n**Lost, approximated:** as the report says (this sync run changed no page)"},
		{"report not written", workflows.NotebookReport{ReportError: "Notion said 503"},
			"\n\n**Lost, approximated:** not known: the migration report was not written  \n" +
				"**Report:** not written: Notion said 503 (running the migration again writes it)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.rep.Outcome()
			if o == nil {
				t.Fatal("no outcome")
			}
			if got := o.Markdown(); got != tt.want {
				t.Errorf("Markdown:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	if o := (workflows.NotebookReport{DryRun: true}).Outcome(); o != nil {
		t.Errorf("a dry run's outcome %+v, want none", o)
	}
	if o := (workflows.NotebookReport{LossKinds: kinds}).Outcome(); o.Lost != 1 || o.Approximated != 12 {
		t.Errorf("outcome counts %d lost, %d approximated; want 1, 12", o.Lost, o.Approximated)
	}
}
