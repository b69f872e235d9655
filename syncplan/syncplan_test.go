package syncplan

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Page IDs shaped as real ones (graph-reality.md fact 19).
const (
	secA = "!s0123456789abcdef0123456789abcdef"
	secB = "!sfedcba9876543210fedcba9876543210"
)

func pid(n int, sec string) string {
	return fmt.Sprintf("0-%032x!%d-5A3F9C2E1B7D4E60%s", n, n, sec)
}

var t0 = time.Date(2026, 8, 19, 14, 38, 36, 0, time.UTC)

func rec(n int, sec, title string, at time.Time, hash string) Recorded {
	return Recorded{PageID: pid(n, sec), LinkID: fmt.Sprintf("link-%d", n), Title: title, LastModified: at,
		ContentHash: hash, SectionID: sec, Row: fmt.Sprintf("row-%d", n), Done: true}
}

func lst(n int, sec, title string, at time.Time) Listed {
	return Listed{PageID: pid(n, sec), LinkID: fmt.Sprintf("link-%d", n), Title: title, LastModified: at, SectionID: sec}
}

// outcome is a change in short: kind, the listed page (or the record for
// a deleted one) and what matched it.
type outcome struct {
	Kind            Kind
	Page, Row, By   string
	Retitle, Rewrte bool
}

func short(cs []Change) []outcome {
	var out []outcome
	for _, c := range cs {
		o := outcome{Kind: c.Kind, Page: c.Now.PageID, Row: c.Was.Row, By: c.By, Retitle: c.Retitled, Rewrte: c.Rewrite}
		if c.Kind == Deleted {
			o.Page = c.Was.PageID
		}
		out = append(out, o)
	}
	return out
}

func TestPageGUID(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{pid(7, secA), fmt.Sprintf("0-%032x!7-5A3F9C2E1B7D4E60", 7)},
		{"no-suffix", "no-suffix"},
		{"", ""},
	} {
		if got := PageGUID(tc.id); got != tc.want {
			t.Errorf("PageGUID(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
	if PageGUID(pid(7, secA)) != PageGUID(pid(7, secB)) {
		t.Error("the same page in two sections has two GUIDs")
	}
}

func TestClassifyAndResolve(t *testing.T) {
	noLink := func(l Listed) Listed { l.LinkID = ""; return l }
	newID := func(l Listed, n int) Listed { l.PageID = pid(n, l.SectionID); return l }
	cases := []struct {
		name   string
		record []Recorded
		listed []Listed
		hashes map[string]string
		checks []Check
		want   []outcome
	}{
		{name: "unchanged",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0)},
			want:   []outcome{{Kind: Unchanged, Page: pid(1, secA), Row: "row-1"}}},
		{name: "milliseconds do not count",
			record: []Recorded{rec(1, secA, "A", t0.Add(400*time.Millisecond), "h1")},
			listed: []Listed{lst(1, secA, "A", t0)},
			want:   []outcome{{Kind: Unchanged, Page: pid(1, secA), Row: "row-1"}}},
		{name: "edited",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(time.Hour))},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "renamed with the same timestamp",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A2", t0)},
			want:   []outcome{{Kind: Renamed, Page: pid(1, secA), Row: "row-1"}}},
		{name: "renamed and edited is edited",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A2", t0.Add(time.Minute))},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "half-written row is written again",
			record: []Recorded{func() Recorded { r := rec(1, secA, "A", t0, ""); r.Done = false; return r }()},
			listed: []Listed{lst(1, secA, "A", t0)},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "wobble with the same content agrees",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(time.Second))},
			hashes: map[string]string{pid(1, secA): "h1"},
			checks: []Check{{PageID: pid(1, secA), Wobble: true}},
			want:   []outcome{{Kind: WobbleAgreed, Page: pid(1, secA), Row: "row-1"}}},
		{name: "wobble backwards agrees",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(-time.Second))},
			hashes: map[string]string{pid(1, secA): "h1"},
			checks: []Check{{PageID: pid(1, secA), Wobble: true}},
			want:   []outcome{{Kind: WobbleAgreed, Page: pid(1, secA), Row: "row-1"}}},
		{name: "one second with new content is an edit",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(time.Second))},
			hashes: map[string]string{pid(1, secA): "h2"},
			checks: []Check{{PageID: pid(1, secA), Wobble: true}},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "wobble whose content could not be fetched is written again",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(time.Second))},
			checks: []Check{{PageID: pid(1, secA), Wobble: true}},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "two seconds is an edit without a fetch",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0.Add(2*time.Second))},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "one second on a row without a hash is an edit",
			record: []Recorded{rec(1, secA, "A", t0, "")},
			listed: []Listed{lst(1, secA, "A", t0.Add(time.Second))},
			want:   []outcome{{Kind: Edited, Page: pid(1, secA), Row: "row-1"}}},
		{name: "moved to another section, same page GUID",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{noLink(lst(1, secB, "A", t0))},
			want:   []outcome{{Kind: Moved, Page: pid(1, secB), Row: "row-1", By: "page GUID"}}},
		{name: "moved with a completely new ID, same link GUID",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{newID(lst(1, secB, "A", t0), 99)},
			want:   []outcome{{Kind: Moved, Page: pid(99, secB), Row: "row-1", By: "link GUID"}}},
		{name: "imported from a file: the row keyed by the page GUID, Graph's link GUID in another case",
			record: []Recorded{func() Recorded { r := rec(1, secA, "A", t0, "h1"); r.PageID, r.LinkID = "link-1", "link-1"; return r }()},
			listed: []Listed{func() Listed { l := lst(1, secA, "A", t0); l.LinkID = "LINK-1"; return l }()},
			want:   []outcome{{Kind: Moved, Page: pid(1, secA), Row: "row-1", By: "link GUID"}}},
		{name: "moved, known only by content: one fetch",
			record: []Recorded{rec(1, secA, "A", t0, "h1"), rec(2, secA, "B", t0, "h2")},
			listed: []Listed{noLink(newID(lst(1, secB, "A", t0), 99)), lst(2, secA, "B", t0)},
			hashes: map[string]string{pid(99, secB): "h1"},
			checks: []Check{{PageID: pid(99, secB), Candidates: []string{"row-1"}}},
			want: []outcome{{Kind: Unchanged, Page: pid(2, secA), Row: "row-2"},
				{Kind: Moved, Page: pid(99, secB), Row: "row-1", By: "content"}}},
		{name: "same second, other content: new, and the old one deleted",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{noLink(newID(lst(1, secB, "A", t0), 99))},
			hashes: map[string]string{pid(99, secB): "other"},
			checks: []Check{{PageID: pid(99, secB), Candidates: []string{"row-1"}}},
			want: []outcome{{Kind: New, Page: pid(99, secB)},
				{Kind: Deleted, Page: pid(1, secA), Row: "row-1"}}},
		{name: "moved and renamed",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{newID(lst(1, secB, "A moved", t0), 99)},
			want:   []outcome{{Kind: Moved, Page: pid(99, secB), Row: "row-1", By: "link GUID", Retitle: true}}},
		{name: "moved and edited",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{newID(lst(1, secB, "A", t0.Add(time.Hour)), 99)},
			want:   []outcome{{Kind: Moved, Page: pid(99, secB), Row: "row-1", By: "link GUID", Rewrte: true}}},
		{name: "deleted",
			record: []Recorded{rec(1, secA, "A", t0, "h1"), rec(2, secA, "B", t0, "h2")},
			listed: []Listed{lst(2, secA, "B", t0)},
			want: []outcome{{Kind: Unchanged, Page: pid(2, secA), Row: "row-2"},
				{Kind: Deleted, Page: pid(1, secA), Row: "row-1"}}},
		{name: "new with a fresh timestamp costs no fetch",
			record: []Recorded{rec(1, secA, "A", t0, "h1")},
			listed: []Listed{lst(1, secA, "A", t0), lst(5, secA, "E", t0.Add(time.Hour))},
			want: []outcome{{Kind: Unchanged, Page: pid(1, secA), Row: "row-1"},
				{Kind: New, Page: pid(5, secA)}}},
		{name: "first sync of an empty record: everything new",
			listed: []Listed{lst(1, secA, "A", t0), lst(2, secA, "B", t0)},
			want:   []outcome{{Kind: New, Page: pid(1, secA)}, {Kind: New, Page: pid(2, secA)}}},
		{name: "duplicate record rows of one page count once",
			record: []Recorded{rec(1, secA, "A", t0, "h1"), func() Recorded { r := rec(1, secA, "A", t0, "h1"); r.Row = "dup"; return r }()},
			listed: []Listed{lst(1, secA, "A", t0)},
			want:   []outcome{{Kind: Unchanged, Page: pid(1, secA), Row: "row-1"}}},
		{name: "two moved pages with the same content and second each find one",
			record: []Recorded{rec(1, secA, "A", t0, "same"), rec(2, secA, "A", t0, "same")},
			listed: []Listed{noLink(newID(lst(1, secB, "A", t0), 91)), noLink(newID(lst(2, secB, "A", t0), 92))},
			hashes: map[string]string{pid(91, secB): "same", pid(92, secB): "same"},
			checks: []Check{{PageID: pid(91, secB), Candidates: []string{"row-1", "row-2"}},
				{PageID: pid(92, secB), Candidates: []string{"row-1", "row-2"}}},
			want: []outcome{{Kind: Moved, Page: pid(91, secB), Row: "row-1", By: "content"},
				{Kind: Moved, Page: pid(92, secB), Row: "row-2", By: "content"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plan := Classify(tc.record, tc.listed)
			if !slices.EqualFunc(plan.Checks, tc.checks, func(a, b Check) bool {
				return a.PageID == b.PageID && a.Wobble == b.Wobble && slices.Equal(a.Candidates, b.Candidates)
			}) {
				t.Fatalf("checks = %+v, want %+v", plan.Checks, tc.checks)
			}
			got := short(Resolve(plan, tc.hashes))
			if !slices.Equal(got, tc.want) {
				t.Errorf("changes:\n got  %+v\n want %+v", got, tc.want)
			}
		})
	}
}

// TestScenario is the scenario between two sync runs: 3 edited,
// 2 renamed without a timestamp change, 2 moved, 1 deleted, 1 new, 1
// wobble; only the wobble costs a content check (the moves are known by
// their link GUID, the new page by its fresh timestamp).
func TestScenario(t *testing.T) {
	var record []Recorded
	var listed []Listed
	for n := 1; n <= 12; n++ {
		record = append(record, rec(n, secA, fmt.Sprintf("P%d", n), t0, fmt.Sprintf("h%d", n)))
	}
	later := t0.Add(10 * time.Minute)
	for n := 1; n <= 12; n++ {
		l := lst(n, secA, fmt.Sprintf("P%d", n), t0)
		switch n {
		case 1, 2, 3:
			l.LastModified = later
		case 4, 5:
			l.Title += " renamed"
		case 6, 7:
			l.PageID, l.SectionID = pid(100+n, secB), secB
		case 8:
			continue
		case 9:
			l.LastModified = t0.Add(time.Second)
		}
		listed = append(listed, l)
	}
	listed = append(listed, lst(13, secB, "P13", later))
	plan := Classify(record, listed)
	if len(plan.Checks) != 1 || plan.Checks[0].PageID != pid(9, secA) {
		t.Fatalf("checks = %+v, want only the wobble of page 9", plan.Checks)
	}
	changes := Resolve(plan, map[string]string{pid(9, secA): "h9"})
	got := Count(changes, true)
	want := Counts{Unchanged: 3, Added: 1, Updated: 3, Renamed: 2, Moved: 2, Archived: 1, WobbleAgreed: 1}
	if got != want {
		t.Errorf("counts = %+v, want %+v", got, want)
	}
	if kept := Count(changes, false); kept.KeptDeleted != 1 || kept.Archived != 0 {
		t.Errorf("with deletes kept: %+v", kept)
	}
	if len(changes) != 13 {
		t.Errorf("%d changes for 13 recorded or listed pages", len(changes))
	}
}

// TestUnchangedNeedsNoContent: a large unchanged notebook asks for no
// content at all.
func TestUnchangedNeedsNoContent(t *testing.T) {
	var record []Recorded
	var listed []Listed
	for n := range 1000 {
		record = append(record, rec(n, secA, fmt.Sprint(n), t0, fmt.Sprint(n)))
		listed = append(listed, lst(n, secA, fmt.Sprint(n), t0))
	}
	plan := Classify(record, listed)
	if len(plan.Checks) != 0 {
		t.Fatalf("%d content checks on an unchanged notebook", len(plan.Checks))
	}
	if c := Count(Resolve(plan, nil), false); c.Unchanged != 1000 || c != (Counts{Unchanged: 1000}) {
		t.Errorf("counts = %+v", c)
	}
}
