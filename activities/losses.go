package activities

import (
	"context"
	"errors"

	"github.com/notebridge/notebridge/convert"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/report"
)

// WriteReportName is the registered name of WriteReport.
const WriteReportName = "WriteReport"

// contentEntries turns the converter's losses into report entries:
// content missing from the page is lost, content an option left out
// skipped, content kept in another form (mapped or degraded)
// approximated.
func contentEntries(ls []convert.Loss) []report.Entry {
	out := make([]report.Entry, 0, len(ls))
	for _, l := range ls {
		sev := report.Approximated
		switch l.Severity {
		case convert.Dropped:
			sev = report.Lost
		case convert.Skipped:
			sev = report.Skipped
		}
		e := report.Entry{Kind: string(l.Kind), Severity: sev, What: l.Detail, Count: max(l.Count, 1)}
		if l.Near != "" {
			e.Where = "near “" + l.Near + "”"
		}
		out = append(out, e)
	}
	return out
}

// lossSummary is a page's losses as a workflow carries them: exact
// counts, and the first few entries as text, lost first.
func lossSummary(es []report.Entry) (lost, approximated int, samples []string) {
	lost, approximated = report.Counts(es)
	for _, e := range es[:min(len(es), maxLossSamples)] {
		samples = append(samples, string(e.Severity)+" · "+e.String())
	}
	return lost, approximated, samples
}

// ReportSection is a section of the notebook the report reads.
type ReportSection struct {
	// Path is "Notebook / Group / Section".
	Path       string `json:"path"`
	DatabaseID string `json:"databaseID"`
}

// WriteReportInput asks for a notebook's migration report.
type WriteReportInput struct {
	Notebook       string          `json:"notebook"`
	NotebookPageID string          `json:"notebookPageID"`
	Sections       []ReportSection `json:"sections"`
}

// WriteReportResult is what the report holds, in counts: the entries
// themselves are on the report page and the rows, not in the workflow.
type WriteReportResult struct {
	ReportPageID string `json:"reportPageID"`
	Pages        int    `json:"pages"`
	Lost         int    `json:"lost"`
	Approximated int    `json:"approximated"`
	// Kinds counts the entries by kind and severity, lost first.
	Kinds []report.KindCount `json:"kinds,omitempty"`
	// Verification counts the pages' read-back verdicts.
	Verification *report.Verification `json:"verification,omitempty"`
}

// WriteReport reads the loss records of every migrated page of the
// notebook and writes its "Migration report" page and the notebook page's
// summary (see notion.Client.WriteReport). Running it again rewrites
// both.
func (a *Activities) WriteReport(ctx context.Context, in WriteReportInput) (WriteReportResult, error) {
	if a.cfg.Notion == nil {
		return WriteReportResult{}, errors.New("activities: no Notion client configured")
	}
	secs := make([]notion.ReportSection, 0, len(in.Sections))
	for _, s := range in.Sections {
		secs = append(secs, notion.ReportSection{Name: s.Path, DatabaseID: s.DatabaseID})
	}
	ctx, watch := a.watchNotion(ctx)
	defer a.heartbeat(ctx, watch)()
	rep, err := a.cfg.Notion.CollectReport(ctx, in.Notebook, in.NotebookPageID, secs)
	if err != nil {
		return WriteReportResult{}, notionError(err)
	}
	if err := a.cfg.Notion.WriteReport(ctx, &rep); err != nil {
		return WriteReportResult{}, notionError(err)
	}
	return WriteReportResult{ReportPageID: rep.ReportPageID, Pages: rep.Pages, Lost: rep.Lost,
		Approximated: rep.Approximated, Kinds: rep.Kinds, Verification: &rep.Verification}, nil
}
