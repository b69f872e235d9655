package verify

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// PageRef names a page in a report.
type PageRef struct {
	// ID is the OneNote page ID.
	ID    string `json:"id"`
	Title string `json:"title,omitempty"`
	// Section is the section's container path ("Group/Section").
	Section string `json:"section,omitempty"`
}

// String names the page for a person: title, section and ID.
func (p PageRef) String() string {
	if p.Title == "" {
		return p.ID
	}
	return fmt.Sprintf("%q (%s, %s)", p.Title, p.Section, p.ID)
}

// Duplicate is a page Notion holds more than once.
type Duplicate struct {
	Page PageRef `json:"page"`
	// Rows are the Notion IDs of the live rows holding it.
	Rows []string `json:"rows"`
}

// Mismatch is a property of a page's row that differs from the source.
type Mismatch struct {
	Page PageRef `json:"page"`
	// Field is "section", "title", "last modified", "parent item" or
	// "migration status".
	Field string `json:"field"`
	Want  string `json:"want"`
	Got   string `json:"got"`
}

// PageDiff is a page whose blocks differ from the converted source.
type PageDiff struct {
	Page PageRef `json:"page"`
	// Missing counts expected blocks Notion lacks, Extra blocks Notion
	// holds that the source has not (a changed block counts once in
	// each).
	Missing int `json:"missing"`
	Extra   int `json:"extra"`
	// Diff is a line diff of the rendered blocks ("-" expected, "+" in
	// Notion), with two lines of context.
	Diff string `json:"diff"`
}

// Report is the judgement of one migrated notebook.
type Report struct {
	Notebook string `json:"notebook"`
	// ExpectedPages counts the source's migrated pages; FoundRows the
	// live rows of the notebook's section databases; Matched the pages
	// held exactly once, done, in place, block for block.
	ExpectedPages int `json:"expectedPages"`
	FoundRows     int `json:"foundRows"`
	Matched       int `json:"matched"`

	Missing    []PageRef   `json:"missing,omitempty"`
	Duplicates []Duplicate `json:"duplicates,omitempty"`
	// Unexpected are rows whose OneNote page ID is not a migrated page.
	Unexpected []PageRef `json:"unexpected,omitempty"`
	// Mismatches are properties of rows that differ from the source,
	// among them rows not marked done (left half-written).
	Mismatches []Mismatch `json:"mismatches,omitempty"`
	// Different are pages whose content differs.
	Different []PageDiff `json:"different,omitempty"`
	// Containers lists problems with the notebook page, section group
	// pages and section databases: missing or duplicated.
	Containers []string `json:"containers,omitempty"`

	// BlocksExpected counts the source's blocks, BlocksFound the blocks
	// of the rows compared, BlockDiffs the missing plus extra blocks over
	// all pages.
	BlocksExpected int `json:"blocksExpected"`
	BlocksFound    int `json:"blocksFound"`
	BlockDiffs     int `json:"blockDiffs"`

	// ArchivedRows counts rows in the trash (e.g. duplicates the writer
	// repaired) and UnattachedUploads file uploads no block uses; both
	// are harmless and reported for information.
	ArchivedRows      int `json:"archivedRows"`
	UnattachedUploads int `json:"unattachedUploads"`
}

// OK reports whether Notion holds exactly the source: every page once,
// done, in place and block for block, and every container once.
func (r *Report) OK() bool {
	return len(r.Missing) == 0 && len(r.Duplicates) == 0 && len(r.Unexpected) == 0 && len(r.Mismatches) == 0 &&
		len(r.Different) == 0 && len(r.Containers) == 0
}

// Summary is the report in one line.
func (r *Report) Summary() string {
	verdict := "equal to the source"
	if !r.OK() {
		verdict = "DIFFERENT from the source"
	}
	return fmt.Sprintf("Notion holds %q %s: %d of %d pages match; %d missing, %d duplicated, %d unexpected, %d property mismatches, %d pages with block differences (%d blocks), %d container problems; %d blocks compared",
		r.Notebook, verdict, r.Matched, r.ExpectedPages, len(r.Missing), len(r.Duplicates), len(r.Unexpected),
		len(r.Mismatches), len(r.Different), r.BlockDiffs, len(r.Containers), r.BlocksExpected)
}

// Diff is a readable account of every difference, at most maxPages block
// diffs in full (0 means all).
func (r *Report) Diff(maxPages int) string {
	var b strings.Builder
	fmt.Fprintln(&b, r.Summary())
	for _, c := range r.Containers {
		fmt.Fprintf(&b, "container: %s\n", c)
	}
	for _, p := range r.Missing {
		fmt.Fprintf(&b, "missing: %s\n", p)
	}
	for _, d := range r.Duplicates {
		fmt.Fprintf(&b, "duplicated: %s in %d rows %v\n", d.Page, len(d.Rows), d.Rows)
	}
	for _, p := range r.Unexpected {
		fmt.Fprintf(&b, "unexpected row: %s\n", p)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(&b, "%s of %s: want %q, got %q\n", m.Field, m.Page, m.Want, m.Got)
	}
	for i, d := range r.Different {
		if maxPages > 0 && i == maxPages {
			fmt.Fprintf(&b, "… and %d more pages with block differences\n", len(r.Different)-i)
			break
		}
		fmt.Fprintf(&b, "blocks of %s: %d missing, %d extra\n%s", d.Page, d.Missing, d.Extra, d.Diff)
	}
	return b.String()
}

// row is a live row found in a section database.
type row struct {
	id, oneNoteID, section string
	page                   notionemu.Page
}

// Compare judges the workspace ws against exp. parentPageID, if not
// empty, is the Notion page the migration wrote under: the notebook page
// must be its child. Only live (not archived) pages, databases and rows
// count.
func Compare(exp *Expected, ws notionemu.Workspace, parentPageID string) *Report {
	r := &Report{Notebook: exp.Title, ExpectedPages: len(exp.Pages)}
	for _, p := range exp.Pages {
		r.BlocksExpected += len(p.Blocks)
	}
	for _, u := range ws.Uploads {
		if !u.Attached {
			r.UnattachedUploads++
		}
	}

	var books []notionemu.Page
	var find func(ps []notionemu.Page)
	find = func(ps []notionemu.Page) {
		for _, p := range ps {
			if p.Archived {
				continue
			}
			if p.Title == exp.Title && (parentPageID == "" || normID(p.Parent.ID) == normID(parentPageID)) {
				books = append(books, p)
				continue
			}
			find(p.Pages)
		}
	}
	find(ws.Pages)
	switch {
	case len(books) == 0 && parentPageID != "":
		r.Containers = append(r.Containers, fmt.Sprintf("no live Notion page titled %q under the parent page %s", exp.Title, parentPageID))
	case len(books) == 0:
		r.Containers = append(r.Containers, fmt.Sprintf("no live Notion page titled %q", exp.Title))
	case len(books) > 1:
		r.Containers = append(r.Containers, fmt.Sprintf("%d live Notion pages titled %q (want 1)", len(books), exp.Title))
	}

	var rows []row
	dbs := map[string]int{}
	var walk func(prefix string, p notionemu.Page)
	walk = func(prefix string, p notionemu.Page) {
		for _, db := range p.Databases {
			if db.Archived {
				continue
			}
			path := prefix + db.Title
			dbs[path]++
			for _, rw := range db.Rows {
				if rw.Archived {
					r.ArchivedRows++
					continue
				}
				rows = append(rows, row{id: rw.ID, oneNoteID: PropText(rw.Properties[notion.PropOneNoteID]), section: path, page: rw})
			}
		}
		for _, g := range p.Pages {
			if !g.Archived {
				walk(prefix+g.Title+"/", g)
			}
		}
	}
	for _, b := range books {
		walk("", b)
	}
	for _, s := range exp.Sections {
		switch n := dbs[s]; {
		case n == 0 && len(books) > 0:
			r.Containers = append(r.Containers, fmt.Sprintf("no live database for section %q", s))
		case n > 1:
			r.Containers = append(r.Containers, fmt.Sprintf("%d live databases for section %q (want 1)", n, s))
		}
	}
	r.FoundRows = len(rows)

	byOneNote := map[string][]row{}
	oneNoteOf := map[string]string{} // normalised Notion row ID -> OneNote page ID
	for _, rw := range rows {
		byOneNote[rw.oneNoteID] = append(byOneNote[rw.oneNoteID], rw)
		oneNoteOf[normID(rw.id)] = rw.oneNoteID
	}
	uploads := map[string]notionemu.Upload{}
	for _, u := range ws.Uploads {
		uploads[normID(u.UploadID)] = u
	}
	actualRun := func(rt blocks.RichText) blocks.RichText {
		if rt.Mention != "" {
			if id, ok := oneNoteOf[normID(rt.Mention)]; ok {
				rt.Mention = id
			} else {
				rt.Mention = "notion:" + rt.Mention
			}
			rt.Text = ""
		}
		return rt
	}
	actualMedia := func(m *blocks.Media) string {
		switch {
		case m.FileUploadID != "":
			u, ok := uploads[normID(m.FileUploadID)]
			if !ok {
				return "unknown upload " + m.FileUploadID
			}
			return fileText(u.SHA256, u.Size)
		case m.URL != "":
			return m.URL
		default:
			return "hosted " + m.HostedURL
		}
	}

	for _, p := range exp.Pages {
		ref := PageRef{ID: p.ID, Title: p.Title, Section: p.Section}
		found := byOneNote[p.ID]
		switch len(found) {
		case 0:
			r.Missing = append(r.Missing, ref)
			continue
		case 1:
		default:
			d := Duplicate{Page: ref}
			for _, f := range found {
				d.Rows = append(d.Rows, f.id)
			}
			r.Duplicates = append(r.Duplicates, d)
		}
		rw := found[0]
		ok := true
		mismatch := func(field, want, got string) {
			r.Mismatches = append(r.Mismatches, Mismatch{Page: ref, Field: field, Want: want, Got: got})
			ok = false
		}
		if st := propSelect(rw.page.Properties[notion.PropStatus]); st != notion.StatusDone {
			mismatch("migration status", notion.StatusDone, st)
		}
		if rw.section != p.Section {
			mismatch("section", p.Section, rw.section)
		}
		if rw.page.Title != p.Title {
			mismatch("title", p.Title, rw.page.Title)
		}
		if got := PropDate(rw.page.Properties[notion.PropLastModified]); !sameInstant(got, p.LastModified) {
			mismatch("last modified", p.LastModified.UTC().Format(time.RFC3339), got)
		}
		gotParent := ""
		if rel := PropRelation(rw.page.Properties[notion.PropParent]); rel != "" {
			if id, known := oneNoteOf[normID(rel)]; known {
				gotParent = id
			} else {
				gotParent = "notion:" + rel
			}
		}
		if gotParent != p.Parent {
			mismatch("parent item", p.Parent, gotParent)
		}

		got, err := readBlocks(rw.page.Blocks)
		var lines []string
		if err != nil {
			lines = []string{"unreadable blocks: " + err.Error()}
		} else {
			if len(got) > 0 && notion.IsLossCallout(got[0]) {
				// The writer's note of what the page lost: not OneNote
				// content (the loss report checks it).
				got = got[1:]
			}
			lines = Lines(got, actualRun, actualMedia)
		}
		r.BlocksFound += len(lines)
		if !slices.Equal(lines, p.Blocks) {
			d := diffLines(p.Blocks, lines)
			r.Different = append(r.Different, PageDiff{Page: ref, Missing: d.missing, Extra: d.extra, Diff: d.text})
			r.BlockDiffs += d.missing + d.extra
			ok = false
		}
		if ok && len(found) == 1 {
			r.Matched++
		}
	}
	for _, rw := range rows {
		if _, ok := exp.byID[rw.oneNoteID]; !ok {
			r.Unexpected = append(r.Unexpected, PageRef{ID: rw.oneNoteID, Title: rw.page.Title, Section: rw.section})
		}
	}
	return r
}

// readBlocks reads the export's blocks back into the converter's model.
func readBlocks(bs []notionemu.Block) ([]blocks.Block, error) {
	raw, err := json.Marshal(bs)
	if err != nil {
		return nil, err
	}
	var out []blocks.Block
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// normID is a Notion ID without dashes, in lower case.
func normID(s string) string { return strings.ToLower(strings.ReplaceAll(s, "-", "")) }

func sameInstant(got string, want time.Time) bool {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.000", "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, got); err == nil {
			// Notion keeps milliseconds; OneNote may have more digits.
			return t.Sub(want).Abs() < time.Millisecond
		}
	}
	return false
}

func propJSON(v any, out any) {
	raw, _ := json.Marshal(v)
	_ = json.Unmarshal(raw, out)
}

// PropText is the plain text of a rich-text property value, as the
// Notion emulator exports it.
func PropText(v any) string {
	var p struct {
		RichText []struct {
			PlainText string `json:"plain_text"`
		} `json:"rich_text"`
	}
	propJSON(v, &p)
	var s strings.Builder
	for _, r := range p.RichText {
		s.WriteString(r.PlainText)
	}
	return s.String()
}

func propSelect(v any) string {
	var p struct {
		Select *struct {
			Name string `json:"name"`
		} `json:"select"`
	}
	propJSON(v, &p)
	if p.Select == nil {
		return ""
	}
	return p.Select.Name
}

// PropDate is the start of a date property value ("" if none).
func PropDate(v any) string {
	var p struct {
		Date *struct {
			Start string `json:"start"`
		} `json:"date"`
	}
	propJSON(v, &p)
	if p.Date == nil {
		return ""
	}
	return p.Date.Start
}

// PropRelation is the first page ID of a relation property value ("" if
// none).
func PropRelation(v any) string {
	var p struct {
		Relation []struct {
			ID string `json:"id"`
		} `json:"relation"`
	}
	propJSON(v, &p)
	if len(p.Relation) == 0 {
		return ""
	}
	return p.Relation[0].ID
}
