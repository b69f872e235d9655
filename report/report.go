// Package report is a migration's loss report: what could not be carried
// over from OneNote to Notion, page by page, in words a person reads.
// Each Entry says its kind, whether the content is gone (Lost), there
// in another form (Approximated) or left out by the migration's options
// (Skipped), what it was, where, and how often.
//
// The converter and the Notion writer each report losses in their own
// terms; activities turn them into Entries, the writer stores a page's
// Entries on its row, and the notebook's "Migration report" page and the
// JSON report (docs/report.schema.json) are built from the rows. The
// package is pure: it imports nothing of Temporal, Graph or Notion.
package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Severity says whether a reader of the Notion page misses something.
type Severity string

// The severities.
const (
	// Lost means the content is not on the Notion page (ink, an
	// attachment Notion refused, content Graph could not export).
	Lost Severity = "lost"
	// Approximated means the content is there in another form (a named
	// colour for an RGB one, a link kept as text, a flattened cell).
	Approximated Severity = "approximated"
	// Skipped means the content was left out because the migration's
	// options asked for it (skipImages, skipAttachments, skipInk): the
	// operator's choice, counted apart from what was lost.
	Skipped Severity = "skipped"
)

// Entry is one thing on a page that could not be carried over exactly.
type Entry struct {
	// Kind names the kind of content, e.g. "ink", "attachment",
	// "color-approximated".
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	// What says what it was and what happened to it.
	What string `json:"what"`
	// Where says where on the page: a block position or the text near
	// the first occurrence ("" when the page as a whole).
	Where string `json:"where,omitempty"`
	// Count is how many times it occurred on the page (at least 1).
	Count int `json:"count"`
}

// String is the entry as a line of text: `ink: ink (drawing or
// handwriting) is not returned by Graph, near "Sketch" (×2)`.
func (e Entry) String() string {
	var b strings.Builder
	b.WriteString(e.Kind)
	b.WriteString(": ")
	b.WriteString(e.What)
	if e.Where != "" {
		b.WriteString(", ")
		b.WriteString(e.Where)
	}
	if e.Count > 1 {
		fmt.Fprintf(&b, " (×%d)", e.Count)
	}
	return b.String()
}

// Merge returns entries with repeats (same kind, severity and what)
// folded into one whose Count is their sum and whose Where is the first
// one's, lost entries first, each group in first-seen order.
func Merge(entries []Entry) []Entry {
	out := make([]Entry, 0, len(entries))
	index := make(map[string]int, len(entries))
	for _, e := range entries {
		e.Count = max(e.Count, 1)
		key := string(e.Severity) + "\x00" + e.Kind + "\x00" + e.What
		if i, ok := index[key]; ok {
			out[i].Count += e.Count
			continue
		}
		index[key] = len(out)
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return rank(a.Severity) - rank(b.Severity) })
	return out
}

func rank(s Severity) int {
	switch s {
	case Lost:
		return 0
	case Skipped:
		return 2
	}
	return 1
}

// Counts sums entries: the occurrences lost and approximated. Skipped
// entries are neither (SkippedCount).
func Counts(entries []Entry) (lost, approximated int) {
	for _, e := range entries {
		switch e.Severity {
		case Lost:
			lost += max(e.Count, 1)
		case Skipped:
		default:
			approximated += max(e.Count, 1)
		}
	}
	return lost, approximated
}

// SkippedCount sums the occurrences of skipped entries.
func SkippedCount(entries []Entry) int {
	n := 0
	for _, e := range entries {
		if e.Severity == Skipped {
			n += max(e.Count, 1)
		}
	}
	return n
}

// LostKinds returns the kinds of the lost entries, each once, in order.
func LostKinds(entries []Entry) []string {
	var kinds []string
	for _, e := range entries {
		if e.Severity == Lost && !slices.Contains(kinds, e.Kind) {
			kinds = append(kinds, e.Kind)
		}
	}
	return kinds
}

// Encode writes entries as the compact record a row stores.
func Encode(entries []Entry) string {
	if len(entries) == 0 {
		return ""
	}
	raw, _ := json.Marshal(entries) // plain strings and ints: cannot fail
	return string(raw)
}

// Decode reads a record Encode wrote ("" is no entries).
func Decode(record string) ([]Entry, error) {
	if record == "" {
		return nil, nil
	}
	var entries []Entry
	if err := json.Unmarshal([]byte(record), &entries); err != nil {
		return nil, fmt.Errorf("report: reading a loss record: %w", err)
	}
	return entries, nil
}

// Fit drops approximated entries from the end, then lost ones, until
// Encode(entries) is at most maxLen bytes. It returns what is kept and
// how many entries were dropped: a page with thousands of distinct
// losses keeps what its row can hold, and says how many it left out.
func Fit(entries []Entry, maxLen int) (kept []Entry, dropped int) {
	kept = entries
	for len(kept) > 0 && len(Encode(kept)) > maxLen {
		n := max(1, len(kept)/8)
		kept = kept[:len(kept)-n]
	}
	return kept, len(entries) - len(kept)
}

// Page is one migrated page with what it lost.
type Page struct {
	Title string `json:"title"`
	// Section is the section's path ("Notebook / Group / Section").
	Section string `json:"section"`
	// Order is the page's position in its section, from 1.
	Order         int    `json:"order"`
	OneNotePageID string `json:"oneNotePageID"`
	NotionPageID  string `json:"notionPageID"`
	// Entries are its losses, lost first.
	Entries []Entry `json:"entries"`
	// Verification is the page's read-back verdict (readback.State:
	// "verified", "differs", "edited"; "" when not verified).
	Verification string `json:"verification,omitempty"`
}

// Verification counts the read-back verdicts of a report's pages.
type Verification struct {
	// Verified counts pages read back as written; Differs those that
	// still differ after two writes (each has a verification loss);
	// Edited those a person changed in Notion since (not compared);
	// Unverified those not checked (verification off, or written before
	// it existed).
	Verified   int `json:"verified"`
	Differs    int `json:"differs"`
	Edited     int `json:"edited"`
	Unverified int `json:"unverified"`
}

// String reads "158 of 160 pages verified, 1 differs, 1 edited since".
func (v Verification) String() string {
	total := v.Verified + v.Differs + v.Edited + v.Unverified
	s := fmt.Sprintf("%d of %d pages verified", v.Verified, total)
	if v.Differs > 0 {
		s += fmt.Sprintf(", %d %s", v.Differs, Plural(v.Differs, "differs", "differ"))
	}
	if v.Edited > 0 {
		s += fmt.Sprintf(", %d edited in Notion since", v.Edited)
	}
	if v.Unverified > 0 {
		s += fmt.Sprintf(", %d not checked", v.Unverified)
	}
	return s
}

// Plural is one when n is 1, else many: the one rule for the words a
// person reads beside a count.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// count adds a page's verdict.
func (v *Verification) count(state string) {
	switch state {
	case "verified":
		v.Verified++
	case "differs":
		v.Differs++
	case "edited":
		v.Edited++
	default:
		v.Unverified++
	}
}

// Section is a section of the report: its pages and how many lost
// something.
type Section struct {
	Name       string `json:"name"`
	DatabaseID string `json:"databaseID"`
	Pages      int    `json:"pages"`
	// PagesWithLosses counts its pages with a lost entry;
	// PagesApproximated those with only approximations.
	PagesWithLosses   int `json:"pagesWithLosses"`
	PagesApproximated int `json:"pagesApproximated"`
}

// KindCount is how often a kind of loss occurred, on how many pages.
type KindCount struct {
	Kind     string   `json:"kind"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`
	Pages    int      `json:"pages"`
}

// String reads "ink lost ×3 on 2 pages".
func (k KindCount) String() string {
	pages := "pages"
	if k.Pages == 1 {
		pages = "page"
	}
	return fmt.Sprintf("%s %s ×%d on %d %s", k.Kind, k.Severity, k.Count, k.Pages, pages)
}

// Report is a notebook's loss report.
type Report struct {
	Notebook       string `json:"notebook"`
	NotebookPageID string `json:"notebookPageID"`
	// ReportPageID is the "Migration report" page ("" before it is
	// written).
	ReportPageID string    `json:"reportPageID,omitempty"`
	Sections     []Section `json:"sections"`
	// Pages counts every page migrated.
	Pages        int `json:"pages"`
	Lost         int `json:"lost"`
	Approximated int `json:"approximated"`
	// Skipped counts the occurrences left out by the migration's options.
	Skipped int `json:"skipped"`
	// Kinds counts the entries by kind and severity, lost first.
	Kinds []KindCount `json:"kinds"`
	// LossPages are the pages with at least one entry, in section and
	// page order.
	LossPages []Page `json:"lossPages"`
	// Verification counts the pages' read-back verdicts.
	Verification Verification `json:"verification"`
}

// Add counts a section's migrated pages (all of them, with or without
// losses) into the report.
func (r *Report) Add(s Section, pages []Page) {
	slices.SortStableFunc(pages, func(a, b Page) int { return cmp.Compare(a.Order, b.Order) })
	s.Pages = len(pages)
	for _, p := range pages {
		r.Verification.count(p.Verification)
		if len(p.Entries) == 0 {
			continue
		}
		switch lost, approx := Counts(p.Entries); {
		case lost > 0:
			s.PagesWithLosses++
		case approx > 0:
			s.PagesApproximated++
		}
		r.LossPages = append(r.LossPages, p)
	}
	r.Sections = append(r.Sections, s)
	r.Pages += s.Pages
	r.tally()
}

// tally recomputes the totals from LossPages.
func (r *Report) tally() {
	r.Lost, r.Approximated, r.Skipped, r.Kinds = 0, 0, 0, nil
	index := map[string]int{}
	for _, p := range r.LossPages {
		seen := map[int]bool{}
		for _, e := range p.Entries {
			key := string(e.Severity) + "\x00" + e.Kind
			i, ok := index[key]
			if !ok {
				i = len(r.Kinds)
				index[key] = i
				r.Kinds = append(r.Kinds, KindCount{Kind: e.Kind, Severity: e.Severity})
			}
			r.Kinds[i].Count += max(e.Count, 1)
			if !seen[i] {
				seen[i] = true
				r.Kinds[i].Pages++
			}
		}
		lost, approx := Counts(p.Entries)
		r.Lost += lost
		r.Approximated += approx
		r.Skipped += SkippedCount(p.Entries)
	}
	SortKinds(r.Kinds)
}

// SortKinds orders counts lost first, then by count (most first), then
// by kind.
func SortKinds(ks []KindCount) {
	slices.SortFunc(ks, func(a, b KindCount) int {
		return cmp.Or(rank(a.Severity)-rank(b.Severity), cmp.Compare(b.Count, a.Count), strings.Compare(a.Kind, b.Kind))
	})
}

// Summary is the counts by kind as one line: "lost: ink ×2, attachment
// ×1; approximated: color-approximated ×7; skipped by option:
// image-skipped ×4", or "" when nothing was lost.
func Summary(ks []KindCount) string {
	var parts []string
	for _, sev := range []Severity{Lost, Approximated, Skipped} {
		if list, _ := kindList(ks, sev); list != "" {
			parts = append(parts, strings.ToLower(severityLabel[sev])+": "+list)
		}
	}
	return strings.Join(parts, "; ")
}

// severityLabel names each severity's line.
var severityLabel = map[Severity]string{Lost: "Lost", Approximated: "Approximated", Skipped: "Skipped by option"}

// kindList is the kinds of severity sev in ks's order, "equation ×1,
// verification ×1", and their total. An unknown severity reads as
// approximated (as Counts counts it).
func kindList(ks []KindCount, sev Severity) (string, int) {
	var list []string
	n := 0
	for _, k := range ks {
		s := k.Severity
		if s != Lost && s != Skipped {
			s = Approximated
		}
		if s == sev {
			list = append(list, fmt.Sprintf("%s ×%d", k.Kind, k.Count))
			n += k.Count
		}
	}
	return strings.Join(list, ", "), n
}

// Line is one line of a migration's outcome at a glance: "Lost" and
// "2 (equation ×1, verification ×1)".
type Line struct {
	Label string
	Text  string
}

// String reads "Lost: 2 (equation ×1, verification ×1)".
func (l Line) String() string { return l.Label + ": " + l.Text }

// Glance is a finished migration's losses, approximations and
// verification at a glance, one Line each, as the notebook workflow's
// current details and the demo's summary show them (the one home of the
// wording):
//
//	Lost: nothing                    Lost: 2 (equation ×1, verification ×1)
//	Approximated: nothing            Approximated: 52 (ink-as-image ×40, color-approximated ×12)
//	Skipped by option: 4 (image-skipped ×4)            (only when some)
//	Verification: 160 of 160 pages verified            or "skipped (skipVerify)"
//
// ks are the counts by kind (SortKinds' order); v the verdicts, nil
// when not known (then there is no verification line unless
// verifySkipped).
func Glance(ks []KindCount, v *Verification, verifySkipped bool) []Line {
	var lines []Line
	for _, sev := range []Severity{Lost, Approximated, Skipped} {
		list, n := kindList(ks, sev)
		switch {
		case list != "":
			lines = append(lines, Line{severityLabel[sev], fmt.Sprintf("%d (%s)", n, list)})
		case sev != Skipped:
			lines = append(lines, Line{severityLabel[sev], "nothing"})
		}
	}
	if t := VerificationText(v, verifySkipped); t != "" {
		lines = append(lines, Line{"Verification", t})
	}
	return lines
}

// VerificationText is the read-back verdicts, "160 of 160 pages
// verified", "skipped (skipVerify)" when the migration turned
// verification off, or "" when not known.
func VerificationText(v *Verification, skipped bool) string {
	switch {
	case skipped:
		return "skipped (skipVerify)"
	case v == nil:
		return ""
	}
	return v.String()
}
