package workflows

import (
	"testing"

	graph "github.com/notebridge/notebridge/emulator/graph"
)

// TestScanRangeHoldsOnTheDemoNotebook generates the demo's notebook (the
// Graph emulator as cmd/demo starts it: 4 sections of 40 pages, subpages,
// an image, an attachment and a link a page, the emulator's default PDF
// printout every 5th page and ink every 4th), counts the Graph requests a
// migration of it needs (the tree, a listing per section, a content
// request a page and one per resource), and prints the error of the
// scan's estimate, which assumes one resource a page, and checks that the
// range the scan states holds the real count.
func TestScanRangeHoldsOnTheDemoNotebook(t *testing.T) {
	spec := graph.GenSpec{Seed: 1, Owner: "alice", Notebooks: 1, GroupDepth: 1, GroupsPerLevel: 1, SectionsPerContainer: 2,
		PagesPerSection: 40, SubpageLevels: 2, ImagesPerPage: 1, AttachmentsPerPage: 1, LinksPerPage: 1,
		PrintoutEvery: 5, InkEvery: 4}
	srv := graph.NewServer(graph.Config{Seed: 1, Limits: graph.UnlimitedLimits()})
	nbs := graph.Generate(spec)
	srv.AddNotebooks("alice", nbs...)
	var sections []*graph.Section
	var walk func(ss []*graph.Section, gs []*graph.SectionGroup)
	walk = func(ss []*graph.Section, gs []*graph.SectionGroup) {
		sections = append(sections, ss...)
		for _, g := range gs {
			walk(g.Sections, g.SectionGroups)
		}
	}
	walk(nbs[0].Sections, nbs[0].SectionGroups)
	pages, resources := 0, 0
	for _, s := range sections {
		for _, p := range s.Pages {
			pages++
			resources += len(srv.PageResources(p.ID))
		}
	}
	fixed := 1 + len(sections) // the tree (two levels deep: one request) and a listing per section
	real := fixed + pages + resources
	estimate := fixed + pages + perPages(pages, 1)
	low, high := requestRange(fixed, pages)
	t.Logf("demo notebook: %d sections, %d pages, %.2f resources a page: %d Graph requests", len(sections), pages,
		float64(resources)/float64(pages), real)
	t.Logf("the scan's estimate (1 resource a page): %d requests, error %+.0f%%; its range %d to %d",
		estimate, 100*float64(estimate-real)/float64(real), low, high)
	if real < low || real > high {
		t.Errorf("the demo notebook needs %d requests, outside the scan's range %d to %d", real, low, high)
	}
}
