package report

import "testing"

func TestVerificationCounts(t *testing.T) {
	tests := []struct {
		name   string
		states []string
		want   Verification
		line   string
	}{
		{"all verified", []string{"verified", "verified"}, Verification{Verified: 2}, "2 of 2 pages verified"},
		{"one of each", []string{"verified", "differs", "edited", ""}, Verification{Verified: 1, Differs: 1, Edited: 1, Unverified: 1},
			"1 of 4 pages verified, 1 differs, 1 edited in Notion since, 1 not checked"},
		{"two differ", []string{"differs", "differs"}, Verification{Differs: 2}, "0 of 2 pages verified, 2 differ"},
		{"none", nil, Verification{}, "0 of 0 pages verified"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Report
			var pages []Page
			for i, s := range tt.states {
				pages = append(pages, Page{Order: i + 1, Verification: s})
			}
			r.Add(Section{Name: "S"}, pages)
			if r.Verification != tt.want {
				t.Errorf("counts %+v, want %+v", r.Verification, tt.want)
			}
			if got := r.Verification.String(); got != tt.line {
				t.Errorf("String() = %q, want %q", got, tt.line)
			}
		})
	}
}
