package notion_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	emu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/notion/blocks"
)

// A page as a file import writes it (keyed by its GUID, lower case) and
// as a Graph run writes it (keyed by Graph's page ID, the GUID in upper
// case and braces as OneNote's links carry it).
const (
	importGUID = "a1b2c3d4-0000-4000-8000-00000000c0de"
	graphID    = "1-0a1b2c3d4e5f!12-8C2D6D0B2D7C4E0A!117"
	graphLink  = "{A1B2C3D4-0000-4000-8000-00000000C0DE}"
)

func importedInput(bs []blocks.Block) notion.PageInput {
	in := pageInput(importGUID, bs, resources{})
	in.LinkID, in.Link = importGUID, ""
	return in
}

func graphInput(bs []blocks.Block, modified time.Time) notion.PageInput {
	in := pageInput(graphID, bs, resources{})
	in.LinkID, in.LastModified = graphLink, modified
	in.Link = "https://onedrive.live.com/view.aspx?page=graph"
	return in
}

func paragraphs(label string, n int) []blocks.Block {
	bs := []blocks.Block{nestedList(3, 2, blocks.BulletedListItem, label)}
	for i := range n {
		bs = append(bs, blocks.Block{Type: blocks.Paragraph, RichText: rt(fmt.Sprintf("%s %d", label, i))})
	}
	return bs
}

// liveRows are the live rows of database db.
func liveRows(t *testing.T, e *env, db string) []emu.Page {
	t.Helper()
	d := findDatabase(e.srv.Export().Pages, db)
	if d == nil {
		t.Fatalf("database %s not in the export", db)
	}
	var out []emu.Page
	for _, r := range d.Rows {
		if !r.Archived {
			out = append(out, r)
		}
	}
	return out
}

// queryCounter counts a client's database queries.
type queryCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    int
}

func (q *queryCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if strings.HasSuffix(r.URL.Path, "/query") {
		q.mu.Lock()
		q.n++
		q.mu.Unlock()
	}
	return q.next.RoundTrip(r)
}

// TestWritePageTakesOverAFileImportRow: a Graph write of a page whose
// row a file import wrote (keyed by the page's GUID, which the Graph
// page's link ID carries) finds that row in its one lookup query and
// takes it over: the same Notion page, keyed by Graph's ID from then on,
// with Graph's content when the page changed since the export, and only
// rekeyed when it did not; a half-written import row is replaced, never
// resumed. A second write finds the row by Graph's ID.
func TestWritePageTakesOverAFileImportRow(t *testing.T) {
	exported := time.Date(2024, 3, 2, 11, 30, 15, 0, time.UTC)
	fileBlocks, graphBlocks := paragraphs("file", 4), paragraphs("graph", 6)
	for _, tc := range []struct {
		name string
		// crashAt stops the import's write after that many calls (0:
		// it completes).
		crashAt   int
		modified  time.Time
		unchanged bool
		// sameContent gives Graph the file's blocks: a half-written row
		// is then a prefix of Graph's plan, and must still be replaced
		// (rekeyed), not resumed.
		sameContent bool
	}{
		{name: "edited since the export", modified: exported.Add(48 * time.Hour)},
		{name: "the exported version", modified: exported, unchanged: true},
		{name: "half-written import, same date", crashAt: 3, modified: exported},
		{name: "half-written import, same date and content", crashAt: 3, modified: exported, sameContent: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			graphBlocks := graphBlocks
			if tc.sameContent {
				graphBlocks = fileBlocks
			}
			e := newEnv(t, emu.Config{})
			db := e.section(t, e.client(t, nil))
			file := importedInput(fileBlocks)
			file.LastModified = exported
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			importer := e.client(t, nil)
			if tc.crashAt > 0 {
				ct := &crashTransport{limit: tc.crashAt, cancel: cancel}
				importer = e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
			}
			fileRes, err := importer.WritePage(ctx, db, file)
			if (err != nil) != (tc.crashAt > 0) {
				t.Fatalf("file write: %v", err)
			}
			rows := liveRows(t, e, db)
			if len(rows) != 1 {
				t.Fatalf("after the import: %d rows, want 1", len(rows))
			}
			imported := rows[0].ID
			if fileRes.PageID != "" && !notion.SameID(fileRes.PageID, imported) {
				t.Fatalf("import wrote %s, the row is %s", fileRes.PageID, imported)
			}

			qc := &queryCounter{}
			c := e.client(t, func(next http.RoundTripper) http.RoundTripper { qc.next = next; return qc })
			res, err := c.WritePage(context.Background(), db, graphInput(graphBlocks, tc.modified))
			if err != nil {
				t.Fatal(err)
			}
			if !notion.SameID(res.PageID, imported) || res.Unchanged != tc.unchanged {
				t.Errorf("graph write: row %s unchanged=%v, want the import's row %s unchanged=%v", res.PageID, res.Unchanged, imported, tc.unchanged)
			}
			if qc.n != 1 {
				t.Errorf("graph write made %d database queries, want 1 (the import's key in the same lookup)", qc.n)
			}
			rows = liveRows(t, e, db)
			if len(rows) != 1 || !notion.SameID(rows[0].ID, imported) {
				t.Fatalf("after the graph write: %d rows, want the import's row alone", len(rows))
			}
			row := rows[0]
			if got := prop(row, notion.PropOneNoteID); got != graphID {
				t.Errorf("row keyed %q, want Graph's %q", got, graphID)
			}
			if got := prop(row, notion.PropLinkID); !strings.EqualFold(strings.Trim(got, "{}"), importGUID) {
				t.Errorf("row link ID %q, want the page's GUID", got)
			}
			if link, _ := row.Properties[notion.PropLink].(map[string]any); link["url"] != "https://onedrive.live.com/view.aspx?page=graph" {
				t.Errorf("row link %v, want Graph's web link", link["url"])
			}
			want := graphBlocks
			if tc.unchanged {
				want = fileBlocks // the same version: the file's content is kept
			}
			checkOnePage(t, e, db, graphID, want, resources{})

			again, err := c.WritePage(context.Background(), db, graphInput(graphBlocks, tc.modified))
			if err != nil || !again.Unchanged || !notion.SameID(again.PageID, imported) {
				t.Errorf("second graph write: %+v %v, want the same row unchanged", again.PageID, err)
			}
			if n := len(liveRows(t, e, db)); n != 1 {
				t.Errorf("after the second graph write: %d rows", n)
			}
		})
	}
}

// TestWritePageLeavesOtherRowsAlone: a file import's own write (its key
// is its link ID) and a Graph page whose GUID no import row carries each
// find only their own rows.
func TestWritePageLeavesOtherRowsAlone(t *testing.T) {
	e := newEnv(t, emu.Config{})
	c := e.client(t, nil)
	db := e.section(t, c)
	if _, err := c.WritePage(context.Background(), db, importedInput(paragraphs("file", 2))); err != nil {
		t.Fatal(err)
	}
	other := graphInput(paragraphs("other", 2), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	other.OneNotePageID, other.LinkID = "1-0a1b2c3d4e5f!99-8C2D6D0B2D7C4E0A!117", "{0D0D0D0D-0000-4000-8000-000000000001}"
	res, err := c.WritePage(context.Background(), db, other)
	if err != nil {
		t.Fatal(err)
	}
	rows := liveRows(t, e, db)
	if len(rows) != 2 || res.Unchanged {
		t.Fatalf("%d rows after another page's write, want 2", len(rows))
	}
	checkOnePage(t, e, db, importGUID, paragraphs("file", 2), resources{})
	checkOnePage(t, e, db, other.OneNotePageID, paragraphs("other", 2), resources{})
}

// TestCrashWhileTakingOverAFileImportRow stops a Graph write that takes
// over an imported row after every call (applied or not) and runs it
// again: one row, the import's, keyed by Graph's ID with Graph's content.
func TestCrashWhileTakingOverAFileImportRow(t *testing.T) {
	fileBlocks, graphBlocks := paragraphs("file", 4), paragraphs("graph", 6)
	edited := time.Date(2025, 5, 1, 12, 0, 0, 0, time.UTC)
	imported := func(t *testing.T) (*env, string, string) {
		e := newEnv(t, emu.Config{})
		c := e.client(t, nil)
		db := e.section(t, c)
		r, err := c.WritePage(context.Background(), db, importedInput(fileBlocks))
		if err != nil {
			t.Fatal(err)
		}
		return e, db, r.PageID
	}
	e, db, _ := imported(t)
	counter := &crashTransport{limit: -1}
	c := e.client(t, func(next http.RoundTripper) http.RoundTripper { counter.next = next; return counter })
	if _, err := c.WritePage(context.Background(), db, graphInput(graphBlocks, edited)); err != nil {
		t.Fatal(err)
	}
	calls := counter.calls
	t.Logf("taking the row over makes %d calls", calls)
	want := expectedBlocks(t, graphBlocks, resources{})
	for k := 0; k < calls; k += stride() {
		for _, applied := range []bool{false, true} {
			t.Run(fmt.Sprintf("stop after %d calls, applied %v", k, applied), func(t *testing.T) {
				t.Parallel()
				e, db, row := imported(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ct := &crashTransport{limit: k, applied: applied, cancel: cancel}
				c := e.client(t, func(next http.RoundTripper) http.RoundTripper { ct.next = next; return ct })
				if _, err := c.WritePage(ctx, db, graphInput(graphBlocks, edited)); err == nil {
					t.Fatal("the write survived its crash")
				}
				r, err := e.client(t, nil).WritePage(context.Background(), db, graphInput(graphBlocks, edited))
				if err != nil {
					t.Fatalf("rerun: %v", err)
				}
				if rows := liveRows(t, e, db); len(rows) != 1 || !notion.SameID(r.PageID, row) {
					t.Fatalf("%d rows, written to %s; want the import's row %s alone", len(rows), r.PageID, row)
				}
				checkOneNormalisedPage(t, e, db, graphID, want)
			})
		}
	}
}
