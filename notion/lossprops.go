package notion

import (
	"fmt"
	"strings"

	"github.com/notebridge/notebridge/notion/blocks"
	"github.com/notebridge/notebridge/report"
)

// Entry is the loss as a report entry: an attachment Notion refused is
// lost, the rest is kept in another form.
func (l Loss) Entry() report.Entry {
	sev := report.Approximated
	if l.Kind == LossAttachment {
		sev = report.Lost
	}
	where := l.Location
	if where == PropLink {
		where = "property " + quoteName(PropLink)
	}
	return report.Entry{Kind: string(l.Kind), Severity: sev, What: l.Detail, Where: where, Count: 1}
}

func quoteName(s string) string { return "“" + s + "”" }

// entries returns the writer's losses as report entries.
func entries(ls []Loss) []report.Entry {
	out := make([]report.Entry, 0, len(ls))
	for _, l := range ls {
		out = append(out, l.Entry())
	}
	return out
}

// maxLossRecord bounds a row's loss record (PropLossRecord): a page
// object returns the first 25 items of a rich-text property, each of at
// most blocks.MaxTextLen characters (bytes bound them from above).
const maxLossRecord = 24 * blocks.MaxTextLen

// lossProperties are the row properties of a page's losses: the kinds
// lost (PropLosses), the count of approximations (PropApproximations)
// and the record of every entry (PropLossRecord), which the migration
// report is built from.
func lossProperties(es []report.Entry) map[string]any {
	kinds := []map[string]any{}
	for _, k := range report.LostKinds(es) {
		kinds = append(kinds, map[string]any{"name": k})
	}
	_, approx := report.Counts(es)
	kept, dropped := report.Fit(es, maxLossRecord)
	if dropped > 0 {
		kept = append(kept, report.Entry{Kind: "report-truncated", Severity: report.Approximated,
			What: fmt.Sprintf("%d more entries did not fit on the row", dropped), Count: dropped})
	}
	return map[string]any{
		PropLosses:         map[string]any{"multi_select": kinds},
		PropApproximations: map[string]any{"number": approx},
		PropLossRecord:     map[string]any{"rich_text": text(report.Encode(kept))},
	}
}

// calloutShown is how many lost entries a page's callout names.
const calloutShown = 5

// lossCalloutLead begins the text of a loss callout.
const lossCalloutLead = "Not everything on this page came over from OneNote"

// IsLossCallout reports whether b is the callout the writer puts at the
// top of a page that lost something (see PageInput.Losses), which is
// not part of the OneNote page's content.
func IsLossCallout(b blocks.Block) bool {
	return b.Type == blocks.Callout && strings.HasPrefix(blocks.PlainText(b.RichText), lossCalloutLead)
}

// lossCallout is the callout put at the top of a page that lost
// something visible, naming what ("" entries lost: no callout).
func lossCallout(es []report.Entry) (blocks.Block, bool) {
	var lost []report.Entry
	for _, e := range es {
		if e.Severity == report.Lost {
			lost = append(lost, e)
		}
	}
	if len(lost) == 0 {
		return blocks.Block{}, false
	}
	n, _ := report.Counts(lost)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d %s lost):", lossCalloutLead, n, report.Plural(n, "item", "items"))
	for i, e := range lost {
		if i == calloutShown {
			fmt.Fprintf(&b, "\n… and %d more: see the %s page.", len(lost)-calloutShown, ReportTitle)
			break
		}
		b.WriteString("\n• ")
		b.WriteString(e.String())
	}
	return blocks.Block{Type: blocks.Callout, Icon: "⚠️", Color: "yellow_background", RichText: text(b.String())}, true
}
