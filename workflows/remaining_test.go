package workflows

import "testing"

// TestSectionRemaining checks the estimate the section's Graph permits
// carry for the limiter's water-filling (entity.AskOptions.Remaining).
func TestSectionRemaining(t *testing.T) {
	tests := []struct {
		name string
		st   SectionState
		want int
	}{
		{"nothing listed yet: the listing call", SectionState{}, 1},
		{"listed, nothing fetched: three requests a page, and the listing goes on",
			SectionState{Tally: Tally{Pages: 100}}, 301},
		{"the pages fetched say what a page takes",
			SectionState{Tally: Tally{Pages: 100, Done: 20}, ListDone: true, Fetched: 20, FetchedUnits: 30}, 120},
		{"failed, gone and unchanged pages need nothing",
			SectionState{Tally: Tally{Pages: 100, Done: 20, Failed: 5, Gone: 5}, ListDone: true, Fetched: 20, FetchedUnits: 40,
				Existing: map[string]string{"a": "n1", "b": "n2"}}, 136},
		{"all done: at least the request being asked for",
			SectionState{Tally: Tally{Pages: 10, Done: 10}, ListDone: true, Fetched: 10, FetchedUnits: 30}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &section{st: &tc.st}
			if got := s.remaining(); got != tc.want {
				t.Errorf("remaining = %d, want %d", got, tc.want)
			}
		})
	}
}
