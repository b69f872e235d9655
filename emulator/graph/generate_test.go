package graph

import (
	"runtime"
	"testing"
)

// tenThousandPages is a spec of 10,000 pages in 100 sections.
func tenThousandPages() GenSpec {
	return GenSpec{Seed: 9, Owner: "big", Notebooks: 2, GroupDepth: 1, SectionsPerContainer: 25, PagesPerSection: 100,
		SubpageLevels: 2, ImagesPerPage: 2, AttachmentsPerPage: 1, PrintoutEvery: 10, InkEvery: 7, LinksPerPage: 2}
}

func TestGenerateTenThousandPages(t *testing.T) {
	srv := NewServer(Config{})
	srv.AddNotebooks("big", Generate(tenThousandPages())...)
	if pages := len(srv.PageIDs("big")); pages != 2*(25+25)*100 {
		t.Fatalf("%d pages, want 10000", pages)
	}
}

// BenchmarkGenerateTenThousandPages prints how long a 10,000-page account
// takes to generate and the live heap it holds (page HTML is made lazily,
// so it stays small: 64 MiB was the target).
func BenchmarkGenerateTenThousandPages(b *testing.B) {
	spec := tenThousandPages()
	var heap int64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		srv := NewServer(Config{})
		srv.AddNotebooks("big", Generate(spec)...)
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap = int64(after.HeapAlloc) - int64(before.HeapAlloc)
		runtime.KeepAlive(srv)
	}
	b.ReportMetric(float64(heap)/(1<<20), "live-MiB")
}

func TestGenerateSameSeedSameMetadata(t *testing.T) {
	spec := SmallSpec(4, "alice")
	a, b := Generate(spec), Generate(spec)
	var ia, ib []string
	walk := func(nbs []*Notebook, out *[]string) {
		var secs func([]*Section, []*SectionGroup)
		secs = func(ss []*Section, gs []*SectionGroup) {
			for _, s := range ss {
				*out = append(*out, s.ID, s.DisplayName)
				for _, p := range s.Pages {
					*out = append(*out, p.ID, p.Title, p.GUID, p.LastModifiedDateTime.String())
				}
			}
			for _, g := range gs {
				*out = append(*out, g.ID, g.DisplayName)
				secs(g.Sections, g.SectionGroups)
			}
		}
		for _, nb := range nbs {
			*out = append(*out, nb.ID, nb.DisplayName)
			secs(nb.Sections, nb.SectionGroups)
		}
	}
	walk(a, &ia)
	walk(b, &ib)
	if len(ia) == 0 || len(ia) != len(ib) {
		t.Fatalf("metadata lengths %d and %d", len(ia), len(ib))
	}
	for i := range ia {
		if ia[i] != ib[i] {
			t.Fatalf("item %d: %q vs %q", i, ia[i], ib[i])
		}
	}
}
