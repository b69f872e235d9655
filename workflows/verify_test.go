package workflows

import (
	"testing"

	"github.com/notebridge/notebridge/activities"
)

// TestVerifyReportAddsSections: the sections' verdicts add up, the
// pages named stay bounded, and the message says each kind once.
func TestVerifyReportAddsSections(t *testing.T) {
	named := func(n int, verdict string) []activities.PageVerdict {
		out := make([]activities.PageVerdict, n)
		for i := range out {
			out[i].Verdict = verdict
		}
		return out
	}
	tests := []struct {
		name     string
		sections []activities.VerifySectionResult
		want     string
		named    int
	}{
		{"all verified", []activities.VerifySectionResult{{Pages: 40, Verified: 40, Reads: 160}, {Pages: 120, Verified: 120, Reads: 480}},
			"160 of 160 pages verified (640 Notion reads)", 0},
		{"one edited", []activities.VerifySectionResult{{Pages: 3, Verified: 2, Edited: 1, Reads: 15, NotVerified: named(1, "edited")}},
			"2 of 3 pages verified, 1 edited in Notion since (15 Notion reads)", 1},
		{"many differ", []activities.VerifySectionResult{
			{Pages: 30, Differs: 15, Unverified: 15, Reads: 50, NotVerified: named(20, "differs")},
			{Pages: 10, Differs: 10, Reads: 40, NotVerified: named(10, "differs")}},
			"0 of 40 pages verified, 25 differ from what was written, 15 not checked (nothing recorded: written before verification existed) (90 Notion reads)", 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r VerifyReport
			for _, s := range tt.sections {
				r.add(s)
			}
			if got := r.summary(); got != tt.want {
				t.Errorf("summary %q, want %q", got, tt.want)
			}
			if len(r.NotVerified) != tt.named {
				t.Errorf("%d pages named, want %d", len(r.NotVerified), tt.named)
			}
		})
	}
}
