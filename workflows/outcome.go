package workflows

import (
	"strings"

	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/report"
)

// Outcome is what an ended migration or sync run lost, approximated and
// verified (the migration report's counts, over every page of the
// notebook), and where the full report is: the progress query's
// "outcome", `starter status --json`'s, and the lines after the counts
// in the notebook's current details in the Web UI.
type Outcome struct {
	// Lost and Approximated count the items (Kinds' sums); Kinds counts
	// them by kind, lost first (report.SortKinds).
	Lost         int                `json:"lost"`
	Approximated int                `json:"approximated"`
	Kinds        []report.KindCount `json:"kinds"`
	// Verification counts the pages' read-back verdicts (nil when not
	// known); VerifySkipped is set when the run turned verification off.
	Verification  *report.Verification `json:"verification,omitempty"`
	VerifySkipped bool                 `json:"verifySkipped,omitempty"`
	// ReportPageID and ReportURL are the notebook's "Migration report"
	// page in Notion; ReportError says why it was not written.
	ReportPageID string `json:"reportPageID,omitempty"`
	ReportURL    string `json:"reportURL,omitempty"`
	ReportError  string `json:"reportError,omitempty"`
	// ReportKept is set when a sync run changed no row: the report and
	// its counts are as the run before left them (not known here).
	ReportKept bool `json:"reportKept,omitempty"`
}

// Outcome is rep's losses, approximations and verification, nil for a
// dry run (nothing written, no report).
func (rep NotebookReport) Outcome() *Outcome {
	if rep.DryRun {
		return nil
	}
	o := &Outcome{Kinds: append([]report.KindCount{}, rep.LossKinds...), Verification: rep.Verification,
		VerifySkipped: rep.VerifySkipped, ReportPageID: rep.ReportPageID, ReportError: rep.ReportError, ReportKept: rep.ReportKept}
	for _, k := range o.Kinds {
		switch k.Severity {
		case report.Lost:
			o.Lost += k.Count
		case report.Skipped:
		default:
			o.Approximated += k.Count
		}
	}
	if o.ReportPageID != "" {
		o.ReportURL = notion.PageURL(o.ReportPageID)
	}
	return o
}

// Lines is o at a glance (report.Glance), and where the full report is.
func (o Outcome) Lines() []report.Line {
	var lines []report.Line
	switch {
	case o.ReportKept:
		lines = append(lines, report.Line{Label: "Lost, approximated", Text: "as the report says (this sync run changed no page)"})
		if t := report.VerificationText(nil, o.VerifySkipped); t != "" {
			lines = append(lines, report.Line{Label: "Verification", Text: t})
		}
	case o.ReportError != "" && o.Verification == nil && len(o.Kinds) == 0:
		lines = append(lines, report.Line{Label: "Lost, approximated", Text: "not known: the migration report was not written"})
	default:
		lines = report.Glance(o.Kinds, o.Verification, o.VerifySkipped)
	}
	switch {
	case o.ReportError != "":
		lines = append(lines, report.Line{Label: "Report", Text: "not written: " + o.ReportError + " (running the migration again writes it)"})
	case o.ReportURL != "":
		lines = append(lines, report.Line{Label: "Report", Text: "the \"" + notion.ReportTitle + "\" page in Notion, " + o.ReportURL})
	}
	return lines
}

// Markdown is o's lines for the current details: a paragraph, each
// label in bold, one line each (Markdown's hard line breaks).
func (o Outcome) Markdown() string {
	var parts []string
	for _, l := range o.Lines() {
		parts = append(parts, "**"+l.Label+":** "+l.Text)
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n\n" + strings.Join(parts, "  \n")
}
