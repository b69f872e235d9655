package onestore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/notebridge/notebridge/convert"
)

// fixtureDir is the shared folder of real OneNote files; tests that need
// it skip when it is absent (CI's standalone check).
const fixtureDir = "../../shared/fixtures/onestore"

func fixtureFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(fixtureDir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".one" || ext == ".onetoc2") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Skipf("no fixtures in %s: %v", fixtureDir, err)
	}
	return files
}

func openFixture(t testing.TB, path string) (*Reader, error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return NewReader(bytesReaderAt(b), int64(len(b)))
}

// allText is every paragraph's text of a page, title included.
func allText(p *Page) string {
	var b strings.Builder
	var walk func(els []*Element)
	walk = func(els []*Element) {
		for _, el := range els {
			for _, c := range el.Content {
				switch {
				case c.Paragraph != nil:
					b.WriteString(c.Paragraph.Text())
					b.WriteString("\n")
				case c.Table != nil:
					for _, row := range c.Table.Rows {
						for _, cell := range row {
							walk(cell.Elements)
						}
					}
				}
			}
			walk(el.Children)
		}
	}
	walk(p.Title)
	for _, o := range p.Outlines {
		walk(o.Elements)
	}
	return b.String()
}

func TestFixtures(t *testing.T) {
	type want struct {
		pages   int
		texts   []string
		authors []string
		refused bool // a FormatError
	}
	wants := map[string]want{
		"tika/testOneNote2016.one":                        {pages: 1, texts: []string{"So good", "This is one note 2016"}},
		"tika/testOneNote1.one":                           {pages: -1, authors: []string{"Olya Veselova", "Microsoft", "Scott", "Scott H. W. Snyder"}},
		"tika/testOneNote-fuzz1.one":                      {refused: true},
		"tika/testOneNote.one":                            {pages: -1},
		"tika/testOneNoteFromOffice365.one":               {pages: 2, texts: []string{"Section1Page1", "Section1Page2"}},
		"onenote-rs/New Section 1.one":                    {pages: 1, texts: []string{"Test Page", "ABCDEFGH", "http://example.com/"}, authors: []string{"Markus Siemens"}},
		"onenote-rs/non-legacy/New Section 1 2.one":       {pages: 2},
		"onenote-rs/non-legacy/New Section 2.one":         {pages: 2},
		"onenote-rs/non-legacy/New Section 3.one":         {pages: 1, texts: []string{"Sunday, 28. December 2025", "13:58"}},
		"onenote-rs/Schnelle Notizen.one":                 {pages: 1},
		"onenote-rs/recycle-bin/OneNote_DeletedPages.one": {pages: 1},
	}
	for _, path := range fixtureFiles(t) {
		rel, _ := filepath.Rel(fixtureDir, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			w, known := wants[rel]
			if !known && !strings.HasSuffix(rel, ".onetoc2") {
				t.Fatalf("no expectations for %s", rel)
			}
			r, err := openFixture(t, path)
			var fe *FormatError
			switch {
			case w.refused:
				if !errors.As(err, &fe) {
					t.Fatalf("err = %v, want a FormatError", err)
				}
				t.Logf("refused: %v", err)
				return
			case err != nil:
				t.Fatal(err)
			}
			if !r.IsSection() {
				toc, err := r.TOC()
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("table of contents: %d entries %v", len(toc), toc)
				return
			}
			pages, err := r.pages()
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			var authors []string
			t.Logf("%-5s %-5s %-40s %-38s %6s %5s %3s %s", "order", "level", "title", "guid", "images", "files", "ink", "losses")
			for _, p := range pages {
				t.Logf("%-5d %-5d %-40q %-38s %6d %5d %3d %d", p.Info.Order, p.Info.Level, p.Info.Title, p.Info.GUID, p.Info.Images, p.Info.Files, p.Info.Ink, len(p.Losses))
				text.WriteString(allText(p))
				res, err := convert.Page(p.HTML(), convert.Options{InkML: p.InkML()})
				if err != nil {
					t.Errorf("page %q: convert: %v", p.Info.Title, err)
				} else {
					t.Logf("      %d blocks, %d resources, %d drawings, converter losses %v, reader losses %v", len(res.Blocks), len(res.Resources), len(res.Ink), convertLossKinds(res.Losses), lossKinds(p.Losses))
				}
				for _, res := range p.Resources {
					n, err := io.Copy(io.Discard, res.Open())
					if err != nil || n != res.Size || n == 0 {
						t.Errorf("resource %s: read %d of %d bytes: %v", res.ID, n, res.Size, err)
					}
				}
				for _, a := range p.Info.Authors {
					if !slices.Contains(authors, a) {
						authors = append(authors, a)
					}
				}
			}
			if w.pages > 0 && len(pages) != w.pages {
				t.Errorf("%d pages, want %d", len(pages), w.pages)
			}
			if len(pages) == 0 {
				t.Errorf("no pages")
			}
			for _, s := range w.texts {
				if !strings.Contains(text.String(), s) {
					t.Errorf("text %q not found in %q", s, text.String())
				}
			}
			for _, a := range w.authors {
				if !slices.Contains(authors, a) {
					t.Errorf("author %q not found in %q", a, authors)
				}
			}
		})
	}
}

// lossKinds counts losses by kind.
func lossKinds(ls []Loss) map[string]int {
	m := map[string]int{}
	for _, l := range ls {
		m[l.Kind]++
	}
	return m
}

func convertLossKinds(ls []convert.Loss) map[string]int {
	m := map[string]int{}
	for _, l := range ls {
		m[string(l.Kind)]++
	}
	return m
}

// TestFixtureNotebooks opens the fixture folders as notebooks and prints
// their trees: groups, sections (in table of contents order) and pages.
func TestFixtureNotebooks(t *testing.T) {
	fixtureFiles(t) // skips without the fixtures
	for _, dir := range []string{"onenote-rs", "onenote-rs/non-legacy", "tika"} {
		t.Run(dir, func(t *testing.T) {
			nb, err := Open(filepath.Join(fixtureDir, dir))
			if err != nil {
				t.Fatal(err)
			}
			defer nb.Close()
			sections := logTree(t, &nb.Group, "")
			if sections == 0 {
				t.Error("no sections")
			}
		})
	}
}

func logTree(t *testing.T, g *Group, indent string) int {
	n := 0
	for _, s := range g.Sections {
		n++
		if s.Err != nil {
			t.Logf("%ssection %q: %v", indent, s.Name, s.Err)
			continue
		}
		t.Logf("%ssection %q (%d pages)", indent, s.Name, len(s.Pages))
		for _, p := range s.Pages {
			t.Logf("%s  %d. %s%q images %d files %d ink %d", indent, p.Order+1, strings.Repeat("  ", p.Level), p.Title, p.Images, p.Files, p.Ink)
		}
	}
	for _, sub := range g.Groups {
		t.Logf("%sgroup %q", indent, sub.Name)
		n += logTree(t, sub, indent+"  ")
	}
	return n
}
