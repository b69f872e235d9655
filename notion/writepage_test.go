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
