package activities_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/activities"
	graph "github.com/notebridge/notebridge/emulator/graph"
	notionemu "github.com/notebridge/notebridge/emulator/notion"
	"github.com/notebridge/notebridge/notion"
	"github.com/notebridge/notebridge/onenote"
)

// inkFixture is a convert/testdata/ink fixture: its HTML and InkML.
func inkFixture(t *testing.T, name string) (base string, html, inkML []byte) {
	t.Helper()
	base = filepath.Join("..", "convert", "testdata", "ink", name)
	html, err := os.ReadFile(base + ".html")
	if err != nil {
		t.Fatal(err)
	}
	inkML, err = os.ReadFile(base + ".inkml")
	if err != nil {
		t.Fatal(err)
	}
	return base, html, inkML
}

// inkPage is a notebook of one section holding one page with the given
// content, added to f's Graph emulator for alice, and the Notion database
// its section has.
type inkPage struct {
	page    *graph.Page
	section string
	db      string
}

func addInkPage(t *testing.T, f *fixture, html, inkML []byte) inkPage {
	t.Helper()
	when := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	nb := &graph.Notebook{DisplayName: "Ink", CreatedDateTime: when, LastModifiedDateTime: when,
		Sections: []*graph.Section{{DisplayName: "Drawings", CreatedDateTime: when, LastModifiedDateTime: when,
			Pages: []*graph.Page{{Title: "Notes with drawings", CreatedDateTime: when, LastModifiedDateTime: when,
				HTML: string(html), InkML: string(inkML)}}}}}
	f.graph.AddNotebooks("alice", nb)
	nbs, err := run[activities.ListNotebooksResult](t, f, activities.ListNotebooksName,
		activities.ListNotebooksInput{User: "alice", Match: nb.DisplayName})
	if err != nil {
		t.Fatal(err)
	}
	layout, err := run[notion.Layout](t, f, activities.EnsureLayoutName,
		activities.EnsureLayoutInput{ParentPageID: f.root, Notebook: *nbs.Match})
	if err != nil {
		t.Fatal(err)
	}
	sec := nb.Sections[0]
	return inkPage{page: sec.Pages[0], section: sec.ID, db: layout.SectionDatabaseIDs[sec.ID]}
}

// migrate runs the page's content, then its write, as the workflow does
// (the page has no resources but its drawings), under the stage key
// stage/pageID.
func (ip inkPage) migrate(t *testing.T, f *fixture, stage string) (activities.ContentMeta, activities.WritePageResult) {
	t.Helper()
	return ip.migrateWith(t, f, stage, activities.ContentOptions{})
}

// migrateWith is migrate with the migration's content options.
func (ip inkPage) migrateWith(t *testing.T, f *fixture, stage string, opts activities.ContentOptions) (activities.ContentMeta, activities.WritePageResult) {
	t.Helper()
	p := ip.listed(t, f)
	key := activities.StageKey(stage + "/" + p.ID)
	meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
		activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key, Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Resources) != 0 {
		t.Errorf("resources to fetch %+v: drawn ink is not fetched", meta.Resources)
	}
	w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: ip.db, Page: p, SectionPath: "NB / S", Options: opts})
	if err != nil {
		t.Fatal(err)
	}
	return meta, w
}

// listed is the page as the page listing gives it.
func (ip inkPage) listed(t *testing.T, f *fixture) activities.PageMeta {
	t.Helper()
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: ip.section}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range pages.Pages {
		if q.ID == ip.page.ID {
			return q
		}
	}
	t.Fatalf("page %s not listed", ip.page.ID)
	return activities.PageMeta{}
}

// drawnBlocks lists a Notion page's blocks: paragraphs as "paragraph",
// uploaded images by file name and type, others by type; uploads maps each
// image's file name to its content hash.
func drawnBlocks(t *testing.T, f *fixture, notionPageID string) (got []string, uploads map[string]string) {
	t.Helper()
	row := findPage(f.notion.Export().Pages, notionPageID)
	if row == nil {
		t.Fatalf("page %s not in the Notion export", notionPageID)
	}
	uploads = map[string]string{}
	for _, b := range row.Blocks {
		switch {
		case b.Type == "image" && b.File != nil:
			got = append(got, b.File.Filename+" "+b.File.ContentType)
			uploads[b.File.Filename] = b.File.SHA256
		case b.Type == "paragraph":
			got = append(got, "paragraph")
		default:
			got = append(got, b.Type)
		}
	}
	return got, uploads
}

// TestInkIsMigratedInPlace gives a page the "ink beside text" fixture (its
// HTML and InkML) and migrates it with the default configuration: the
// Notion page holds each drawing as an uploaded SVG image between the
// paragraphs it was drawn next to, and the drawings cost no Graph request
// beyond the content. With the skipInk option the same page costs the same
// one request, without the InkML bytes, and its ink is reported skipped by
// option, one per ink node.
func TestInkIsMigratedInPlace(t *testing.T) {
	base, html, inkML := inkFixture(t, "beside-text")
	tests := []struct {
		name string
		skip bool
		// want is the page's blocks, a callout first when it lost something.
		want []string
		// wantLoss is the one loss entry the page reports, of wantLosses
		// items.
		wantLoss   string
		wantLosses int
	}{
		// Every ink comment's strokes are drawn: nothing is lost.
		{"default", false, []string{"paragraph", "paragraph", "ink-1.svg image/svg+xml", "paragraph", "ink-2.svg image/svg+xml",
			"paragraph", "paragraph", "paragraph", "ink-3.svg image/svg+xml"}, "", 0},
		{"skip-ink", true, []string{"paragraph", "paragraph", "paragraph", "paragraph", "paragraph", "paragraph"},
			"skipped · ink-skipped: ink not migrated (option skipInk), near “Hiring plan” (×4)", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			ip := addInkPage(t, f, html, inkML)
			before := f.graph.Stats().Users["alice"].Requests
			meta, w := ip.migrateWith(t, f, "ink", activities.ContentOptions{SkipInk: tt.skip})
			// The listing is one request, the content one.
			if got := f.graph.Stats().Users["alice"].Requests - before; got != 2 {
				t.Errorf("listing and content cost %d Graph requests, want 2", got)
			}
			if wantBytes := len(html) + len(inkML); !tt.skip && meta.Bytes != wantBytes {
				t.Errorf("content bytes %d, want HTML and InkML, %d", meta.Bytes, wantBytes)
			}
			if tt.skip && meta.Bytes != len(html) {
				t.Errorf("content bytes %d with skipInk, want the HTML alone, %d", meta.Bytes, len(html))
			}
			switch {
			case tt.wantLoss == "" && (w.Losses != 0 || len(w.LossSamples) != 0):
				t.Errorf("losses = %d %q, want none", w.Losses, w.LossSamples)
			case tt.wantLoss != "" && (w.Losses != tt.wantLosses || len(w.LossSamples) != 1 || !strings.Contains(w.LossSamples[0], tt.wantLoss)):
				t.Errorf("losses = %d %q, want %d in one entry: %q", w.Losses, w.LossSamples, tt.wantLosses, tt.wantLoss)
			}
			got, uploads := drawnBlocks(t, f, w.NotionPageID)
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("blocks %q, want %q", got, tt.want)
			}
			for name, sha := range uploads {
				// The upload is the converter's rendering, byte for byte.
				svg, err := os.ReadFile(base + "-" + strings.TrimSuffix(strings.TrimPrefix(name, "ink-"), ".svg") + ".svg")
				if sum := sha256.Sum256(svg); err != nil || sha != hex.EncodeToString(sum[:]) {
					t.Errorf("upload %s is not the golden rendering (%v)", name, err)
				}
			}
		})
	}
}

// TestInkOnlyChangeIsRewritten migrates a page, then changes nothing but
// its ink in OneNote (RedrawInk: same HTML, new InkML, a new
// lastModifiedDateTime): the content hash changes, and the second run
// rewrites the Notion page with the new drawing where the old one was.
func TestInkOnlyChangeIsRewritten(t *testing.T) {
	_, html, inkML := inkFixture(t, "highlighter-over-text")
	f := newFixture(t)
	ip := addInkPage(t, f, html, inkML)
	meta1, w1 := ip.migrate(t, f, "run1")
	blocks1, uploads1 := drawnBlocks(t, f, w1.NotionPageID)
	if len(uploads1) != 2 {
		t.Fatalf("first run: %d drawings uploaded, want the fixture's 2 (%q)", len(uploads1), blocks1)
	}

	// Unchanged in OneNote: the same hash, and the page is left alone.
	meta, w := ip.migrate(t, f, "run2")
	if meta.SHA256 != meta1.SHA256 || !w.Unchanged {
		t.Errorf("unchanged page: hash %s -> %s, unchanged %v", meta1.SHA256, meta.SHA256, w.Unchanged)
	}

	// The ink's second group, the red underline, drawn in blue instead.
	redrawn := strings.Replace(string(inkML), `value="#E71224"`, `value="#2F5597"`, 1)
	if redrawn == string(inkML) {
		t.Fatal("the fixture's red pen is not where the test expects it")
	}
	if err := f.graph.RedrawInk(ip.page.ID, redrawn); err != nil {
		t.Fatal(err)
	}
	meta2, w2 := ip.migrate(t, f, "run3")
	if meta2.SHA256 == meta1.SHA256 {
		t.Errorf("content hash %s did not change with the ink", meta2.SHA256)
	}
	if w2.Unchanged || w2.NotionPageID != w1.NotionPageID {
		t.Fatalf("second run: unchanged %v, page %s (first %s); want the same row rewritten", w2.Unchanged, w2.NotionPageID, w1.NotionPageID)
	}
	blocks2, uploads2 := drawnBlocks(t, f, w2.NotionPageID)
	if strings.Join(blocks2, ",") != strings.Join(blocks1, ",") {
		t.Errorf("blocks %q after the redraw, want the same places %q", blocks2, blocks1)
	}
	if uploads2["ink-1.svg"] != uploads1["ink-1.svg"] || uploads2["ink-2.svg"] == uploads1["ink-2.svg"] {
		t.Errorf("uploads %v after the redraw (before %v): want the first drawing kept, the second new", uploads2, uploads1)
	}
}

// findPage finds a page by ID anywhere in an export's tree.
func findPage(ps []notionemu.Page, id string) *notionemu.Page {
	for i := range ps {
		if ps[i].ID == id {
			return &ps[i]
		}
		if p := findPage(ps[i].Pages, id); p != nil {
			return p
		}
		for _, db := range ps[i].Databases {
			if p := findPage(db.Rows, id); p != nil {
				return p
			}
		}
	}
	return nil
}
