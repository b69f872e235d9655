package notion

import (
	"testing"
	"time"
)

func TestPickRowPrefersDoneThenOldest(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := []row{
		{ID: "new-writing", Status: StatusWriting, Created: t0.Add(2 * time.Hour)},
		{ID: "old-writing", Status: StatusWriting, Created: t0},
		{ID: "done", Status: StatusDone, Created: t0.Add(time.Hour)},
	}
	keep, extra := pickRow(rows)
	if keep.ID != "done" || len(extra) != 2 || extra[0].ID != "old-writing" {
		t.Errorf("kept %s, extra %v", keep.ID, extra)
	}
	keep, extra = pickRow(rows[:2])
	if keep.ID != "old-writing" || len(extra) != 1 {
		t.Errorf("kept %s, extra %v", keep.ID, extra)
	}
	if keep, _ := pickRow(nil); keep != nil {
		t.Error("a row from nothing")
	}
}

// TestPickRowSameMinute: Notion rounds created_time down to the minute,
// so rows made in one minute tie; every order of the same rows (as a
// query may return them) keeps the same row, and a time within the
// minute never decides.
func TestPickRowSameMinute(t *testing.T) {
	minute := time.Date(2026, 1, 1, 10, 7, 0, 0, time.UTC)
	tests := []struct {
		name string
		rows []row
		keep string
	}{
		{"two writing rows of one minute: lower ID", []row{
			{ID: "bbbbbbbb-0000-4000-8000-000000000002", Status: StatusWriting, Created: minute},
			{ID: "aaaaaaaa-0000-4000-8000-000000000001", Status: StatusWriting, Created: minute},
		}, "aaaaaaaa-0000-4000-8000-000000000001"},
		{"seconds within the minute do not count", []row{
			{ID: "bbbbbbbb-0000-4000-8000-000000000002", Status: StatusWriting, Created: minute.Add(5 * time.Second)},
			{ID: "aaaaaaaa-0000-4000-8000-000000000001", Status: StatusWriting, Created: minute.Add(50 * time.Second)},
		}, "aaaaaaaa-0000-4000-8000-000000000001"},
		{"IDs compare without dashes or case", []row{
			{ID: "AAAAAAAA00004000800000000000000F", Status: StatusWriting, Created: minute},
			{ID: "aaaaaaaa-0000-4000-8000-000000000003", Status: StatusWriting, Created: minute},
		}, "aaaaaaaa-0000-4000-8000-000000000003"},
		{"done wins the tie", []row{
			{ID: "aaaaaaaa-0000-4000-8000-000000000001", Status: StatusWriting, Created: minute},
			{ID: "bbbbbbbb-0000-4000-8000-000000000002", Status: StatusDone, Created: minute},
		}, "bbbbbbbb-0000-4000-8000-000000000002"},
		{"an earlier minute wins", []row{
			{ID: "aaaaaaaa-0000-4000-8000-000000000001", Status: StatusWriting, Created: minute},
			{ID: "bbbbbbbb-0000-4000-8000-000000000002", Status: StatusWriting, Created: minute.Add(-time.Second)},
		}, "bbbbbbbb-0000-4000-8000-000000000002"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]row{tt.rows, {tt.rows[1], tt.rows[0]}} {
				keep, extra := pickRow(order)
				if keep.ID != tt.keep || len(extra) != 1 || extra[0].ID == tt.keep {
					t.Errorf("order %v: kept %s, extra %v; want %s", rowIDs(order), keep.ID, extra, tt.keep)
				}
			}
		})
	}
}

func rowIDs(rows []row) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out
}

func TestSameTime(t *testing.T) {
	lm := time.Date(2024, 3, 2, 11, 30, 15, 250e6, time.UTC)
	for stored, want := range map[string]bool{
		"2024-03-02T11:30:15.250Z":      true,
		"2024-03-02T11:30:15.000+00:00": true,
		"2024-03-02T12:30:15.250+01:00": true,
		"2024-03-02T11:30:16.000Z":      false,
		"":                              false,
	} {
		if got := sameTime(stored, lm); got != want {
			t.Errorf("sameTime(%q) = %v, want %v", stored, got, want)
		}
	}
}
