package onestore

import (
	"errors"
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
	write("Open Notebook.onetoc2", buildTOC([]string{"Zeta.one", "Group", "Alpha.one"}))
	write("Alpha.one", buildSection([]testPage{{guid: GUID{0xA}, title: "A page"}}))
	write("Zeta.one", buildSection([]testPage{{guid: GUID{0xB}, title: "Z page"}, {guid: GUID{0xC}, title: "Z sub", level: 1}}))
	write("Group/Inner.one", buildSection([]testPage{{guid: GUID{0xD}, title: "Inner page", paras: []testPara{{text: "inside"}}}}))
	write("Broken.one", []byte("not a OneNote file"))
	write(recycleBin+"/OneNote_DeletedPages.one", buildSection([]testPage{{guid: GUID{0xE}, title: "deleted"}}))

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

// storedCab writes a cabinet of files, uncompressed, in one block per
// file; test-only (package cab tests MSZIP).
func storedCab(names []string, contents [][]byte) []byte {
	var files, data []byte
	pos := 0
	for i, n := range names {
		files = append(files, le(uint32(len(contents[i])), uint32(pos), uint16(0), uint16(0), uint16(0), uint16(0))...)
		files = append(files, append([]byte(n), 0)...)
		pos += len(contents[i])
	}
	for _, c := range contents {
		for off := 0; off < len(c); off += 32768 {
			chunk := c[off:min(off+32768, len(c))]
			data = append(data, le(uint32(0), uint16(len(chunk)), uint16(len(chunk)))...)
			data = append(data, chunk...)
		}
	}
	blocks := 0
	for _, c := range contents {
		blocks += (len(c) + 32767) / 32768
	}
	coffFiles := 36 + 8
	coffData := coffFiles + len(files)
	out := []byte("MSCF")
	out = append(out, le(uint32(0), uint32(coffData+len(data)), uint32(0), uint32(coffFiles), uint32(0), uint8(3), uint8(1))...)
	out = append(out, le(uint16(1), uint16(len(names)), uint16(0), uint16(0), uint16(0))...)
	out = append(out, le(uint32(coffData), uint16(blocks), uint16(0))...)
	out = append(out, files...)
	return append(out, data...)
}

func TestOpenPackage(t *testing.T) {
	names := []string{`Notebook\Open Notebook.onetoc2`, `Notebook\B.one`, `Notebook\A.one`}
	contents := [][]byte{
		buildTOC([]string{"B.one", "A.one"}),
		buildSection([]testPage{{guid: GUID{0xB}, title: "B page"}}),
		buildSection([]testPage{{guid: GUID{0xA}, title: "A page", image: []byte("png bytes")}}),
	}
	p := filepath.Join(t.TempDir(), "Notebook.onepkg")
	if err := os.WriteFile(p, storedCab(names, contents), 0o644); err != nil {
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
