package report_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/report"
)

var (
	ink   = report.Entry{Kind: "ink", Severity: report.Lost, What: "ink (drawing or handwriting) is not returned by Graph", Where: "near “Sketch”", Count: 1}
	file  = report.Entry{Kind: "attachment", Severity: report.Lost, What: `"setup.exe" could not be carried over`, Where: "block 2 (file)", Count: 1}
	color = report.Entry{Kind: "color-approximated", Severity: report.Approximated, What: `text colour "#c00000" shown as Notion "red"`, Count: 4}
)

func TestEntryString(t *testing.T) {
	for _, c := range []struct {
		e    report.Entry
		want string
	}{
		{ink, "ink: ink (drawing or handwriting) is not returned by Graph, near “Sketch”"},
		{color, `color-approximated: text colour "#c00000" shown as Notion "red" (×4)`},
		{report.Entry{Kind: "tag", What: "tag kept as text"}, "tag: tag kept as text"},
	} {
		if got := c.e.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
		if strings.Contains(c.e.String(), "{") {
			t.Errorf("%q reads as a Go value", c.e.String())
		}
	}
}

func TestMerge(t *testing.T) {
	later := ink
	later.Where = "near “Other”"
	for _, c := range []struct {
		name string
		in   []report.Entry
		want []report.Entry
	}{
		{"empty", nil, []report.Entry{}},
		{"lost first, in first-seen order", []report.Entry{color, file, ink}, []report.Entry{file, ink, color}},
		{"repeats fold, keeping the first place", []report.Entry{ink, color, later},
			[]report.Entry{{Kind: "ink", Severity: report.Lost, What: ink.What, Where: ink.Where, Count: 2}, color}},
		{"a zero count is one", []report.Entry{{Kind: "k", Severity: report.Lost, What: "w"}},
			[]report.Entry{{Kind: "k", Severity: report.Lost, What: "w", Count: 1}}},
	} {
		if got := report.Merge(c.in); !slices.Equal(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestCountsAndKinds(t *testing.T) {
	es := []report.Entry{file, color, ink, ink}
	lost, approx := report.Counts(es)
	if lost != 3 || approx != 4 {
		t.Errorf("counts %d lost, %d approximated; want 3, 4", lost, approx)
	}
	if got := report.LostKinds(es); !slices.Equal(got, []string{"attachment", "ink"}) {
		t.Errorf("lost kinds %q", got)
	}
}

func TestEncodeDecodeFit(t *testing.T) {
	es := []report.Entry{file, ink, color}
	back, err := report.Decode(report.Encode(es))
	if err != nil || !slices.Equal(back, es) {
		t.Fatalf("round trip: %+v, %v", back, err)
	}
	if _, err := report.Decode("{not json"); err == nil {
		t.Error("a broken record decodes")
	}
	if es, err := report.Decode(""); err != nil || es != nil {
		t.Errorf("empty record: %+v, %v", es, err)
	}
	many := make([]report.Entry, 500)
	for i := range many {
		many[i] = report.Entry{Kind: "color-approximated", Severity: report.Approximated, What: strings.Repeat("x", 100), Count: 1}
	}
	for _, limit := range []int{1 << 20, 10000, 500, 10} {
		kept, dropped := report.Fit(many, limit)
		if len(kept)+dropped != len(many) || (len(kept) > 0 && len(report.Encode(kept)) > limit) {
			t.Errorf("limit %d: kept %d (%d bytes), dropped %d", limit, len(kept), len(report.Encode(kept)), dropped)
		}
		if limit == 1<<20 && dropped != 0 {
			t.Errorf("limit %d: dropped %d of a record that fits", limit, dropped)
		}
	}
}

func TestReportAdd(t *testing.T) {
	var r report.Report
	r.Add(report.Section{Name: "NB / A", DatabaseID: "db1"}, []report.Page{
		{Title: "third", Order: 3, Entries: []report.Entry{color}},
		{Title: "first", Order: 1, Entries: []report.Entry{ink, color}},
		{Title: "second", Order: 2},
	})
	r.Add(report.Section{Name: "NB / B", DatabaseID: "db2"}, []report.Page{{Title: "only", Order: 1, Entries: []report.Entry{file}}})
	if r.Pages != 4 || r.Lost != 2 || r.Approximated != 8 {
		t.Errorf("totals %d pages, %d lost, %d approximated; want 4, 2, 8", r.Pages, r.Lost, r.Approximated)
	}
	var titles []string
	for _, p := range r.LossPages {
		titles = append(titles, p.Title)
	}
	if !slices.Equal(titles, []string{"first", "third", "only"}) {
		t.Errorf("loss pages %q, want section then page order, whole pages left out", titles)
	}
	want := []report.KindCount{{Kind: "attachment", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "ink", Severity: report.Lost, Count: 1, Pages: 1},
		{Kind: "color-approximated", Severity: report.Approximated, Count: 8, Pages: 2}}
	if !slices.Equal(r.Kinds, want) {
		t.Errorf("kinds %+v, want %+v", r.Kinds, want)
	}
	if s := r.Sections[0]; s.Pages != 3 || s.PagesWithLosses != 1 || s.PagesApproximated != 1 {
		t.Errorf("section A %+v", s)
	}
	if got := report.Summary(r.Kinds); got != "lost: attachment ×1, ink ×1; approximated: color-approximated ×8" {
		t.Errorf("summary %q", got)
	}
	if got := report.Summary(nil); got != "" {
		t.Errorf("summary of nothing %q", got)
	}
}

// TestSkipped: entries an option skipped are neither lost nor
// approximated; they sort last, count on their own, do not make a page
// "with losses", and read apart in the summary.
func TestSkipped(t *testing.T) {
	skipped := report.Entry{Kind: "image-skipped", Severity: report.Skipped, What: "image not migrated (option skipImages)", Count: 3}
	if got := report.Merge([]report.Entry{skipped, color, ink}); !slices.Equal(got, []report.Entry{ink, color, skipped}) {
		t.Errorf("merge order %+v, want lost, approximated, skipped", got)
	}
	es := []report.Entry{skipped, ink}
	if lost, approx := report.Counts(es); lost != 1 || approx != 0 {
		t.Errorf("counts %d lost, %d approximated; want 1, 0 (skipped is neither)", lost, approx)
	}
	if n := report.SkippedCount(es); n != 3 {
		t.Errorf("skipped %d, want 3", n)
	}
	var r report.Report
	r.Add(report.Section{Name: "NB / A", DatabaseID: "db1"}, []report.Page{
		{Title: "images left out", Order: 1, Entries: []report.Entry{skipped}},
		{Title: "tinted", Order: 2, Entries: []report.Entry{color, skipped}},
	})
	if r.Skipped != 6 || r.Lost != 0 || r.Approximated != 4 {
		t.Errorf("totals %d skipped, %d lost, %d approximated; want 6, 0, 4", r.Skipped, r.Lost, r.Approximated)
	}
	if s := r.Sections[0]; s.PagesWithLosses != 0 || s.PagesApproximated != 1 {
		t.Errorf("section %+v: a page with only skipped entries lost nothing and approximated nothing", s)
	}
	if got := report.Summary(r.Kinds); got != "approximated: color-approximated ×4; skipped by option: image-skipped ×6" {
		t.Errorf("summary %q", got)
	}
}
