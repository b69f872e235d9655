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

// TestPackageErrorsNameThePackage: a damaged file inside a .onepkg is
// named "<package>.onepkg: <path in the notebook>" with the structure
// where reading stopped, never by the temporary folder the package was
// extracted to; a damaged section leaves the others readable, a damaged
// table of contents refuses the package.
func TestPackageErrorsNameThePackage(t *testing.T) {
	page := func(g byte, title string) []fx.Page {
		return []fx.Page{{GUID: fx.GUID{0xD0, g}, Title: title, Paras: []fx.Para{{Text: "text of " + title}}}}
	}
	good := fx.Section(page(1, "ok"))
	// Where packages are extracted (os.MkdirTemp's pattern in readPackage).
	extracted := filepath.Join(os.TempDir(), "onepkg-")
	tests := []struct {
		name    string
		file    string // the damaged file, its path in the notebook
		damaged []byte
		// section is the damaged section's name; "" when Open itself
		// must fail.
		section string
	}{
		{"truncated body", "Broken.one", good[:len(good)/2], "Broken"},
		{"truncated header", "Broken.one", good[:500], "Broken"},
		{"not a OneNote file", "Broken.one", []byte("MSCF is not a section"), "Broken"},
		{"in a section group", "Group/Inner.one", good[:len(good)/2], "Inner"},
		{"packaged layout, truncated", "Broken.one", fx.SectionPackaged(page(2, "p"))[:300], "Broken"},
		{"table of contents", "Open Notebook.onetoc2", fx.TOC([]string{"Alpha.one", "Broken.one", "Group"})[:400], ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := fx.Notebook{Name: "Field Notes", Group: fx.Group{
				Sections: []fx.SectionSpec{{Name: "Alpha", GUID: fx.GUID{0xE1}, Pages: page(1, "Alpha page")},
					{Name: "Broken", GUID: fx.GUID{0xE2}, Pages: page(3, "Broken page")}},
				Groups: []fx.Group{{Name: "Group", Sections: []fx.SectionSpec{{Name: "Inner", GUID: fx.GUID{0xE3}, Pages: page(4, "Inner page")}}}},
			}}
			var names []string
			var contents [][]byte
			replaced := false
			for _, f := range spec.Files() {
				if f.Path == tc.file {
					f.Data, replaced = tc.damaged, true
				}
				names = append(names, strings.ReplaceAll(spec.Name+"/"+f.Path, "/", `\`))
				contents = append(contents, f.Data)
			}
			if !replaced {
				t.Fatalf("the notebook has no file %s", tc.file)
			}
			pkg := filepath.Join(t.TempDir(), "Field Notes.onepkg")
			if err := os.WriteFile(pkg, fx.Cab(names, contents), 0o644); err != nil {
				t.Fatal(err)
			}
			want := pkg + ": " + tc.file
			nb, err := Open(pkg)
			var fe *FormatError
			if tc.section == "" {
				if err == nil {
					nb.Close()
					t.Fatal("a package with a damaged table of contents was opened")
				}
				if !errors.As(err, &fe) || fe.File != want || fe.Structure == "" || !strings.HasPrefix(err.Error(), want+": ") {
					t.Fatalf("err = %v, want a FormatError of %q naming the structure", err, want)
				}
				if strings.Contains(err.Error(), extracted) {
					t.Errorf("err = %v names the temporary folder", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("one damaged section refused the package: %v", err)
			}
			defer nb.Close()
			var broken *Section
			var readable []string
			if err := nb.Walk(func(_ []string, s *Section) error {
				if s.Name == tc.section {
					broken = s
				} else if s.Err == nil && len(s.Pages) == 1 {
					readable = append(readable, s.Name)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if broken == nil || broken.Err == nil {
				t.Fatalf("section %s: %+v, want it with an error", tc.section, broken)
			}
			msg := broken.Err.Error()
			t.Log(msg)
			if !errors.As(broken.Err, &fe) || fe.File != want || broken.File != want || fe.Structure == "" ||
				!strings.HasPrefix(msg, want+": "+fe.Structure+" at offset ") {
				t.Errorf("section error %q, want a FormatError starting %q with the structure", msg, want)
			}
			if strings.Contains(msg, nb.tmp) || strings.Contains(msg, extracted) {
				t.Errorf("section error %q names the temporary folder %s", msg, nb.tmp)
			}
			if len(readable) != 2 {
				t.Errorf("readable sections %q, want the two others", readable)
			}
			// A section that cannot be read answers every page with its
			// error.
			if _, err := broken.Page(GUID{0xD0, 3}); err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Errorf("page of the damaged section: %v, want its error", err)
			}
		})
	}
}

// TestPackagePageErrorNamesThePackage: an error reading a page of a
// package's section names the package and the section file too.
func TestPackagePageErrorNamesThePackage(t *testing.T) {
	spec := fx.Notebook{Name: "N", Group: fx.Group{Sections: []fx.SectionSpec{
		{Name: "Only", GUID: fx.GUID{0xE9}, Pages: []fx.Page{{GUID: fx.GUID{0xD9}, Title: "p"}}}}}}
	pkg := filepath.Join(t.TempDir(), "N.onepkg")
	if err := os.WriteFile(pkg, spec.Package(), 0o644); err != nil {
		t.Fatal(err)
	}
	nb, err := Open(pkg)
	if err != nil {
		t.Fatal(err)
	}
	defer nb.Close()
	s := nb.Sections[0]
	if want := pkg + ": Only.one"; s.File != want {
		t.Errorf("section file %q, want %q", s.File, want)
	}
	_, err = s.Page(GUID{0x77})
	if err == nil || !strings.HasPrefix(err.Error(), pkg+": Only.one: ") || strings.Contains(err.Error(), nb.tmp) {
		t.Errorf("page not in the section: %v, want an error naming %s: Only.one and not %s", err, pkg, nb.tmp)
	}
}
