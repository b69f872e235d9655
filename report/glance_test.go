package report_test

import (
	"slices"
	"testing"

	"github.com/notebridge/notebridge/report"
)

// TestGlance: a finished migration's losses, approximations and
// verification read one line each, the kinds in the counts' order with
// their totals, "nothing" when there is none, and the verification
// "skipped" when the migration turned it off.
func TestGlance(t *testing.T) {
	kinds := []report.KindCount{
		{Kind: "equation", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "verification", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "ink-as-image", Severity: report.Approximated, Count: 40, Pages: 10},
		{Kind: "color-approximated", Severity: report.Approximated, Count: 12, Pages: 3},
		{Kind: "image-skipped", Severity: report.Skipped, Count: 4, Pages: 2},
	}
	unsorted := []report.KindCount{kinds[4], kinds[3], kinds[1], kinds[2], kinds[0]}
	report.SortKinds(unsorted)
	all := &report.Verification{Verified: 160}
	for _, tt := range []struct {
		name    string
		kinds   []report.KindCount
		v       *report.Verification
		skipped bool
		want    []string
	}{
		{"nothing lost or approximated", nil, all, false,
			[]string{"Lost: nothing", "Approximated: nothing", "Verification: 160 of 160 pages verified"}},
		{"several kinds, sorted", unsorted, &report.Verification{Verified: 158, Differs: 1, Edited: 1}, false,
			[]string{"Lost: 2 (equation ×1, verification ×1)", "Approximated: 52 (ink-as-image ×40, color-approximated ×12)",
				"Skipped by option: 4 (image-skipped ×4)", "Verification: 158 of 160 pages verified, 1 differs, 1 edited in Notion since"}},
		{"only approximated", kinds[2:4], all, false,
			[]string{"Lost: nothing", "Approximated: 52 (ink-as-image ×40, color-approximated ×12)", "Verification: 160 of 160 pages verified"}},
		{"verification skipped", kinds[:1], &report.Verification{Unverified: 16}, true,
			[]string{"Lost: 1 (equation ×1)", "Approximated: nothing", "Verification: skipped (skipVerify)"}},
		{"verification not known", nil, nil, false, []string{"Lost: nothing", "Approximated: nothing"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, l := range report.Glance(tt.kinds, tt.v, tt.skipped) {
				got = append(got, l.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Glance:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	// Summary, the one-line form, says the same kinds in the same words.
	if got, want := report.Summary(unsorted), "lost: equation ×1, verification ×1; approximated: ink-as-image ×40, color-approximated ×12; skipped by option: image-skipped ×4"; got != want {
		t.Errorf("Summary %q, want %q", got, want)
	}
}
