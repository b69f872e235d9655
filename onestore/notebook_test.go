package onestore

import (
	"errors"
	fx "github.com/notebridge/notebridge/internal/onestorefixture"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFolder builds a notebook folder (a table of contents, two
// sections, a section group, a recycle bin and a damaged section) and
// reads its tree.
func TestOpenFolder(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("Open Notebook.onetoc2", fx.TOC([]string{"Zeta.one", "Group", "Alpha.one"}))
	write("Alpha.one", fx.Section([]fx.Page{{GUID: fx.GUID{0xA}, Title: "A page"}}))
	write("Zeta.one", fx.Section([]fx.Page{{GUID: fx.GUID{0xB}, Title: "Z page"}, {GUID: fx.GUID{0xC}, Title: "Z sub", Level: 1}}))
	write("Group/Inner.one", fx.Section([]fx.Page{{GUID: fx.GUID{0xD}, Title: "Inner page", Paras: []fx.Para{{Text: "inside"}}}}))
	write("Broken.one", []byte("not a OneNote file"))
	write(recycleBin+"/OneNote_DeletedPages.one", fx.Section([]fx.Page{{GUID: fx.GUID{0xE}, Title: "deleted"}}))

	nb, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	var names []string
	for _, s := range nb.Sections {
		names = append(names, s.Name)
	}
	if want := []string{"Zeta", "Alpha", "Broken"}; !equalStrings(names, want) {
		t.Errorf("sections %q, want %q (table of contents order, then by name)", names, want)
	}
	var fe *FormatError
	if !errors.As(nb.Sections[2].Err, &fe) || fe.File == "" {
		t.Errorf("broken section err = %v, want a FormatError naming the file", nb.Sections[2].Err)
	}
	if len(nb.Groups) != 1 || nb.Groups[0].Name != "Group" || len(nb.Groups[0].Sections) != 1 {
		t.Fatalf("groups %+v, want one group with one section (the recycle bin skipped)", nb.Groups)
	}
	z := nb.Sections[0]
	if len(z.Pages) != 2 || z.Pages[1].Title != "Z sub" || z.Pages[1].Level != 1 {
		t.Errorf("Zeta pages %+v", z.Pages)
	}
	var walked []string
	if err := nb.Walk(func(groups []string, s *Section) error {
		walked = append(walked, strings.Join(append(groups, s.Name), "/"))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"Zeta", "Alpha", "Broken", "Group/Inner"}; !equalStrings(walked, want) {
		t.Errorf("walk %q, want %q", walked, want)
	}
	inner := nb.Groups[0].Sections[0]
	p, err := inner.Page(GUID{0xD})
	if err != nil {
		t.Fatal(err)
	}
	if got := allText(p); got != "Inner page\ninside\n" {
		t.Errorf("inner page text %q", got)
	}
}

func TestOpenRefusesOtherFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.docx")
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(p)
	var ue *UnsupportedError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an UnsupportedError", err)
	}
}

func TestOpenPackage(t *testing.T) {
	names := []string{`Notebook\Open Notebook.onetoc2`, `Notebook\B.one`, `Notebook\A.one`}
	contents := [][]byte{
		fx.TOC([]string{"B.one", "A.one"}),
		fx.Section([]fx.Page{{GUID: fx.GUID{0xB}, Title: "B page"}}),
		fx.Section([]fx.Page{{GUID: fx.GUID{0xA}, Title: "A page", Image: []byte("png bytes")}}),
	}
	p := filepath.Join(t.TempDir(), "Notebook.onepkg")
	if err := os.WriteFile(p, fx.Cab(names, contents), 0o644); err != nil {
		t.Fatal(err)
	}
	nb, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	tmp := nb.tmp
	if nb.Name != "Notebook" || len(nb.Sections) != 2 || nb.Sections[0].Name != "B" || nb.Sections[1].Pages[0].Images != 1 {
		t.Errorf("notebook %q sections %+v", nb.Name, nb.Sections)
	}
	if err := nb.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("extracted folder %s left behind", tmp)
	}
}
