package onestorefixture_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"github.com/notebridge/notebridge/onestore"
)

// testNotebook has sections out of name order, a group, a subpage, an
// image, a locked section and a recycle bin (which a reader skips).
func testNotebook(packaged bool) fx.Notebook {
	return fx.Notebook{Name: "Field Notes", Packaged: packaged, RecycleBin: []fx.Page{{GUID: fx.GUID{9}, Title: "deleted"}}, Group: fx.Group{
		Sections: []fx.SectionSpec{
			{Name: "Zeta", GUID: fx.GUID{0x21}, Pages: []fx.Page{{GUID: fx.GUID{1}, Title: "Z one"}, {GUID: fx.GUID{2}, Title: "Z sub", Level: 1}}},
			{Name: "Alpha", GUID: fx.GUID{0x22}, Pages: []fx.Page{{GUID: fx.GUID{3}, Title: "A one", Image: []byte("\x89PNG img")}}},
			{Name: "Locked", GUID: fx.GUID{0x23}, Encrypted: true, Pages: []fx.Page{{GUID: fx.GUID{4}, Title: "secret"}}},
		},
		Groups: []fx.Group{{Name: "Archive", Sections: []fx.SectionSpec{{Name: "Old", Pages: []fx.Page{{GUID: fx.GUID{5}, Title: "Old page"}}}}}},
	}}
}

// outline lists the notebook as onestore reads it: group path, section,
// its GUID's first byte and its pages, or its error.
func outline(t *testing.T, nb *onestore.Notebook) []string {
	var out []string
	err := nb.Walk(func(groups []string, s *onestore.Section) error {
		line := strings.Join(append(groups, s.Name), "/")
		if s.Err != nil {
			if !errors.Is(s.Err, onestore.ErrEncrypted) {
				t.Errorf("section %s: %v, want ErrEncrypted", s.Name, s.Err)
			}
			out = append(out, line+" locked")
			return nil
		}
		for _, p := range s.Pages {
			line += " " + p.Title
		}
		out = append(out, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestNotebookReadsBack(t *testing.T) {
	want := []string{"Zeta Z one Z sub", "Alpha A one", "Locked locked", "Archive/Old Old page"}
	for _, packaged := range []bool{false, true} {
		nbSpec := testNotebook(packaged)
		dir := filepath.Join(t.TempDir(), nbSpec.Name)
		files := nbSpec.Files()
		if last := files[len(files)-1].Path; last != "OneNote_RecycleBin/OneNote_DeletedPages.one" {
			t.Errorf("last file %s, want the recycle bin's", last)
		}
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f.Path))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		pkg := filepath.Join(t.TempDir(), "Field Notes.onepkg")
		if err := os.WriteFile(pkg, nbSpec.Package(), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{dir, pkg} {
			nb, err := onestore.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			got := outline(t, nb)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("packaged=%v %s: read %q, want %q", packaged, filepath.Base(path), got, want)
			}
			if g := nb.Sections[0].GUID; g != (onestore.GUID{0x21}) {
				t.Errorf("first section GUID %s, want the one written", g)
			}
			if err := nb.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
}
