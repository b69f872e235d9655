package notion

import (
	"testing"

	"github.com/notebridge/notebridge/report"
)

// TestReportIntro checks the report page's first sentence reads true for
// every mix: nothing lost or approximated, approximations alone (no
// "more" or "other" pages when no page lost anything), both, and one of
// each in the singular.
func TestReportIntro(t *testing.T) {
	section := func(lost, approx int) report.Section {
		return report.Section{PagesWithLosses: lost, PagesApproximated: approx}
	}
	tests := []struct {
		name string
		rep  report.Report
		want string
	}{
		{"whole", report.Report{Pages: 3, Sections: []report.Section{section(0, 0)}},
			"3 pages migrated from OneNote. Nothing was lost."},
		{"approximations alone", report.Report{Pages: 160, Approximated: 442, Sections: []report.Section{section(0, 100), section(0, 60)}},
			"160 pages migrated from OneNote. Nothing was lost. 442 items kept in another form, on 160 pages."},
		{"both", report.Report{Pages: 10, Lost: 3, Approximated: 5, Sections: []report.Section{section(2, 4)}},
			"10 pages migrated from OneNote. 3 items lost, on 2 pages (each has a callout at its top). 5 items kept in another form, on 4 other pages."},
		{"singular", report.Report{Pages: 1, Lost: 1, Sections: []report.Section{section(1, 0)}},
			"1 page migrated from OneNote. 1 item lost, on 1 page (each has a callout at its top)."},
		{"skipped", report.Report{Pages: 2, Skipped: 2, Sections: []report.Section{section(0, 0)}},
			"2 pages migrated from OneNote. Nothing was lost. 2 items were left out by the migration's options (skipImages, skipAttachments, skipInk)."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reportIntro(tt.rep); got != tt.want {
				t.Errorf("reportIntro:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
