package activities_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/notebridge/notebridge/activities"
	"github.com/notebridge/notebridge/convert"
	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/onenote"
)

// TestInternalLinksResolveThroughClientURLGUID: an internal onenote: link
// names its target by the page-id GUID of the target's
// links.oneNoteClientUrl, which is not the Graph page ID
// (graph-reality.md #17). PageMeta.LinkID carries that GUID, so every
// internal link of the notebook resolves to a listed page, and none would
// through the Graph IDs.
func TestInternalLinksResolveThroughClientURLGUID(t *testing.T) {
	f := newFixture(t)
	var sections []*graph.Section
	var walk func(ss []*graph.Section, gs []*graph.SectionGroup)
	walk = func(ss []*graph.Section, gs []*graph.SectionGroup) {
		sections = append(sections, ss...)
		for _, g := range gs {
			walk(g.Sections, g.SectionGroups)
		}
	}
	walk(f.nb.Sections, f.nb.SectionGroups)
	byLinkID := map[string]string{} // lower-case link GUID -> Graph page ID
	byGraphID := map[string]bool{}
	var listed []activities.PageMeta
	for _, sec := range sections {
		pages, err := run[activities.ListPagesResult](t, f, activities.ListPagesName,
			activities.ListPagesInput{User: "alice", Cursor: onenote.PageCursor{SectionID: sec.ID}})
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range pages.Pages {
			if p.LinkID == "" || strings.EqualFold(p.LinkID, p.ID) || strings.Contains(p.ID, p.LinkID) {
				t.Fatalf("page %s: link ID %q must be its client URL's GUID, not its Graph ID", p.ID, p.LinkID)
			}
			if gen := sec.Pages[i]; gen.ID == p.ID && !strings.EqualFold(strings.Trim(gen.GUID, "{}"), p.LinkID) {
				t.Errorf("page %s: link ID %q, want the GUID %q of its client URL", p.ID, p.LinkID, gen.GUID)
			}
			byLinkID[strings.ToLower(p.LinkID)] = p.ID
			byGraphID[strings.ToLower(p.ID)] = true
			listed = append(listed, p)
		}
	}
	c, err := onenote.New(onenote.Config{BaseURL: f.graphURL, Tokens: onenote.StaticToken(f.graph.IssueToken("alice", []string{"Notes.Read"}, time.Hour))})
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, p := range listed[:20] {
		pc, _, err := c.GetPageContent(context.Background(), p.ID, onenote.ContentOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := convert.Page(pc.HTML, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range res.Links {
			if l.PageID == "" {
				continue
			}
			links++
			target, ok := byLinkID[strings.ToLower(l.PageID)]
			if !ok {
				t.Errorf("page %s links to page-id %s, which no listed page's link ID matches", p.ID, l.PageID)
			}
			if byGraphID[strings.ToLower(l.PageID)] || target == l.PageID {
				t.Errorf("page-id %s is a Graph page ID; the test proves nothing", l.PageID)
			}
		}
	}
	if links == 0 {
		t.Fatal("no internal links in the first 20 pages; the test proves nothing")
	}
}
