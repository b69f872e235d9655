package activities_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// TestInkIsMigratedInPlace, with Config.Ink set, gives a page the "ink beside text" fixture (its
// HTML and InkML) and migrates it: the Notion page holds each drawing as an
// uploaded SVG image between the paragraphs it was drawn next to, and the
// drawings cost no Graph request beyond the content.
func TestInkIsMigratedInPlace(t *testing.T) {
	f := newFixture(t)
	f.ink = true
	f.setActivities(t, tokens{"alice": f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour)})
	fixture := filepath.Join("..", "convert", "testdata", "ink", "beside-text")
	html, err := os.ReadFile(fixture + ".html")
	if err != nil {
		t.Fatal(err)
	}
	inkML, err := os.ReadFile(fixture + ".inkml")
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	nb := &graph.Notebook{DisplayName: "Ink", CreatedDateTime: when, LastModifiedDateTime: when,
		Sections: []*graph.Section{{DisplayName: "Drawings", CreatedDateTime: when, LastModifiedDateTime: when,
			Pages: []*graph.Page{{Title: "Notes with drawings", CreatedDateTime: when, LastModifiedDateTime: when,
				HTML: string(html), InkML: string(inkML)}}}}}
	f.graph.AddNotebooks("alice", nb)
	sec := nb.Sections[0]
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
	pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
		activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
	if err != nil {
		t.Fatal(err)
	}
	var p activities.PageMeta
	for _, q := range pages.Pages {
		if q.ID == sec.Pages[0].ID {
			p = q
		}
	}
	key := activities.StageKey("ink/" + p.ID)
	before := f.graph.Stats().Users["alice"].Requests
	meta, err := run[activities.ContentMeta](t, f, activities.FetchContentName,
		activities.FetchContentInput{User: "alice", PageID: p.ID, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.Resources) != 0 {
		t.Errorf("resources to fetch %+v: drawn ink is not fetched", meta.Resources)
	}
	if got := f.graph.Stats().Users["alice"].Requests - before; got != 1 {
		t.Errorf("content with ink cost %d Graph requests, want 1", got)
	}
	w, err := run[activities.WritePageResult](t, f, activities.WritePageName,
		activities.WritePageInput{Key: key, DatabaseID: layout.SectionDatabaseIDs[sec.ID], Page: p, SectionPath: "NB / S"})
	if err != nil {
		t.Fatal(err)
	}
	if w.Losses != 1 {
		t.Errorf("losses = %d %q, want only the ink Graph left out of its InkML", w.Losses, w.LossSamples)
	}
	row := findPage(f.notion.Export().Pages, w.NotionPageID)
	if row == nil {
		t.Fatalf("page %s not in the Notion export", w.NotionPageID)
	}
	var got []string
	for _, b := range row.Blocks {
		switch {
		case b.Type == "image" && b.File != nil:
			got = append(got, b.File.Filename+" "+b.File.ContentType)
			// The upload is the converter's rendering, byte for byte.
			svg, err := os.ReadFile(fixture + "-" + strings.TrimSuffix(strings.TrimPrefix(b.File.Filename, "ink-"), ".svg") + ".svg")
			if sum := sha256.Sum256(svg); err != nil || b.File.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("upload %s is not the golden rendering (%v)", b.File.Filename, err)
			}
		case b.Type == "paragraph":
			got = append(got, "paragraph")
		default:
			got = append(got, b.Type)
		}
	}
	// The ink Graph left out of its InkML is lost: the callout says so.
	if len(row.Blocks) == 0 || row.Blocks[0].Type != "callout" || !strings.Contains(fmt.Sprint(row.Blocks[0].Content), "ink") {
		t.Errorf("first block %+v, want the callout naming the lost ink", row.Blocks[:min(1, len(row.Blocks))])
	}
	want := []string{"callout", "paragraph", "paragraph", "ink-1.svg image/svg+xml", "paragraph", "ink-2.svg image/svg+xml",
		"paragraph", "paragraph", "paragraph", "ink-3.svg image/svg+xml"}
	if len(got) != len(want) {
		t.Fatalf("blocks %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("block %d = %q, want %q (all: %q)", i, got[i], want[i], got)
		}
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
