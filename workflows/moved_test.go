package workflows

import (
	"testing"

	"github.com/notebridge/notebridge/activities"
)

// TestMovedSummary: a migration re-run names its moves in the summary,
// in the singular for one page, with the rows Notion refused and the pages
// held twice, and says nothing when nothing moved.
func TestMovedSummary(t *testing.T) {
	tests := []struct {
		name string
		r    *activities.ReconcileStructureResult
		want string
	}{
		{"first migration", nil, ""},
		{"nothing moved", &activities.ReconcileStructureResult{}, ""},
		{"one page", &activities.ReconcileStructureResult{Moved: 1}, "; 1 page moved to another section in OneNote: its row moved with it"},
		{"three pages, one refused, one held twice", &activities.ReconcileStructureResult{Moved: 3, Failed: []string{"x"}, Duplicates: []string{"y"}},
			"; 3 pages moved to another section in OneNote: their rows moved with them (1 row Notion refused to change: see structure.failed); 1 page held by more than one row (see structure.duplicates)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := movedSummary(tt.r); got != tt.want {
				t.Errorf("movedSummary:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}
