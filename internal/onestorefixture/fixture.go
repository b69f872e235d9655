// Package onestorefixture writes OneNote files with known content, for
// tests: sections (.one) and tables of contents (.onetoc2) in the revision
// store layout ([MS-ONESTORE] 2.1 to 2.7) or the packaged layout (2.8
// over [MS-FSSHTTPB]), password-protected sections, cabinets, and whole
// notebooks as a folder of files or a .onepkg package. The repository's
// tests build their OneNote files with it, so none needs a third-party
// file. It imports nothing from package onestore: its GUID converts to
// onestore.GUID.
package onestorefixture

import (
	"path"
	"time"
	"unicode/utf16"
)

// Page is the content of a page to write.
type Page struct {
	GUID     GUID // the NotebookManagementEntityGuid
	Title    string
	Level    int // Graph's level: 0 for a page, 1 and 2 for subpages
	Created  time.Time
	Paras    []Para
	Image    []byte // one PNG image after the paragraphs, when set
	ImageAlt string
	Ink      [][2]int64 // one stroke drawn on the page, when set
	File     []byte     // one attached file after the paragraphs, when set
	FileName string
	Conflict bool // a conflict page (IsConflictPage)
	// Equation adds an outline element holding an equation
	// (jcidMathInlineObject), which the reader does not decode: a loss.
	Equation bool
}

// Para is a paragraph of a page, an outline element.
type Para struct {
	Text   string
	Bold   bool
	Link   string // a hyperlink over the whole text, when set
	Todo   *bool  // a to-do tag, checked or not
	Child  string // one paragraph nested under this one, when set
	Number bool   // a numbered list item
}

// Section writes a section file holding pages in order, in the revision
// store layout.
func Section(pages []Page) []byte { return sectionFile(pages, GUID{}).layout(false) }

// SectionPackaged writes a section in the packaged layout.
func SectionPackaged(pages []Page) []byte { return sectionFile(pages, GUID{}).layout(true) }

// EncryptedSection writes a section whose root object space declares an
// encryption key, as a password-protected section does.
func EncryptedSection(pages []Page, packaged bool) []byte {
	w := sectionFile(pages, GUID{})
	w.encrypted = true
	return w.layout(packaged)
}

// TOC writes a table of contents listing names (section files and group
// folders) in the order given; the ordering IDs reverse the order in which
// the entries are stored, so a reader must sort by them.
func TOC(names []string) []byte { return tocFile(names, GUID{}).layout(false) }

// TOCPackaged writes a table of contents in the packaged layout.
func TOCPackaged(names []string) []byte { return tocFile(names, GUID{}).layout(true) }

// TOCNodes writes a table of contents in the form OneNote gives a .onetoc2:
// RevisionManifestStart4FND revisions with their own global ID tables and
// no object groups.
func TOCNodes(names []string) []byte {
	w := tocFile(names, GUID{})
	w.tocNodes = true
	return w.layout(false)
}

// Cab writes a cabinet of files, uncompressed (typeCompress none), in one
// data block per 32 KiB of each file. Names use backslashes as a cabinet's
// do.
func Cab(names []string, contents [][]byte) []byte {
	var files, data []byte
	pos := 0
	for i, n := range names {
		files = append(files, le(uint32(len(contents[i])), uint32(pos), uint16(0), uint16(0), uint16(0), uint16(0))...)
		files = append(files, append([]byte(n), 0)...)
		pos += len(contents[i])
	}
	blocks := 0
	for _, c := range contents {
		for off := 0; off < len(c); off += 32768 {
			chunk := c[off:min(off+32768, len(c))]
			data = append(data, le(uint32(0), uint16(len(chunk)), uint16(len(chunk)))...)
			data = append(data, chunk...)
			blocks++
		}
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

// Notebook is a notebook to write: its name and its root group.
type Notebook struct {
	Name string
	Group
	Packaged bool // write every file in the packaged layout
	// RecycleBin, when set, are deleted pages, written as OneNote keeps
	// them: OneNote_RecycleBin/OneNote_DeletedPages.one, in no table of
	// contents.
	RecycleBin []Page
}

// Group is a notebook or a section group: its sections, then its groups,
// in the order the table of contents lists them.
type Group struct {
	Name     string // the folder's name; unused for the notebook itself
	GUID     GUID   // the guidFile of the folder's table of contents; a fixed one when zero
	Sections []SectionSpec
	Groups   []Group
}

// SectionSpec is a section to write.
type SectionSpec struct {
	Name      string // without .one
	GUID      GUID   // the file's GUID (the header's guidFile); a fixed one when zero
	Pages     []Page
	Encrypted bool
}

// Bytes writes the section file, in the packaged layout when packaged is
// set.
func (s SectionSpec) Bytes(packaged bool) []byte {
	w := sectionFile(s.Pages, s.GUID)
	w.encrypted = s.Encrypted
	return w.layout(packaged)
}

// File is one file of a notebook: its path inside the notebook's folder,
// with forward slashes, and its bytes.
type File struct {
	Path string
	Data []byte
}

// Files returns the notebook's files: in each folder a table of contents
// ("Open Notebook.onetoc2" at the top, as OneNote names it) listing the
// sections then the groups, then the sections and the groups' files.
func (nb Notebook) Files() []File {
	var out []File
	var walk func(dir string, g Group)
	walk = func(dir string, g Group) {
		var names []string
		for _, s := range g.Sections {
			names = append(names, s.Name+".one")
		}
		for _, sub := range g.Groups {
			names = append(names, sub.Name)
		}
		tocName := "Open Notebook.onetoc2"
		if dir != "" {
			tocName = g.Name + ".onetoc2"
		}
		toc := tocFile(names, g.GUID).layout(nb.Packaged)
		out = append(out, File{Path: path.Join(dir, tocName), Data: toc})
		for _, s := range g.Sections {
			out = append(out, File{Path: path.Join(dir, s.Name+".one"), Data: s.Bytes(nb.Packaged)})
		}
		for _, sub := range g.Groups {
			walk(path.Join(dir, sub.Name), sub)
		}
	}
	walk("", nb.Group)
	if nb.RecycleBin != nil {
		out = append(out, File{Path: "OneNote_RecycleBin/OneNote_DeletedPages.one",
			Data: SectionSpec{Pages: nb.RecycleBin, GUID: GUID{0x8B, 0x1D}}.Bytes(nb.Packaged)})
	}
	return out
}

// Package returns the notebook as a .onepkg: a cabinet holding the
// notebook's folder.
func (nb Notebook) Package() []byte {
	var names []string
	var contents [][]byte
	for _, f := range nb.Files() {
		n := nb.Name + "/" + f.Path
		b := []byte(n)
		for i := range b {
			if b[i] == '/' {
				b[i] = '\\'
			}
		}
		names = append(names, string(b))
		contents = append(contents, f.Data)
	}
	return Cab(names, contents)
}

func str16(s string) []byte {
	u := utf16.Encode([]rune(s))
	return le(u, uint16(0))
}

func ftime(t time.Time) []byte {
	return le(uint64(t.UnixNano()/100 + 116444736000000000))
}
