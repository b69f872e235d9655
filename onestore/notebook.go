package onestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/notebridge/notebridge/onestore/cab"
)

// Notebook is a notebook read from files: its sections and section groups
// in the order OneNote shows them.
type Notebook struct {
	Group
	tmp   string // the folder a .onepkg was extracted to, removed by Close
	pkg   string // the .onepkg's path as Open was given it
	root  string // the notebook's folder inside tmp
	files []*os.File
}

// Group is a notebook or a section group: its sections, then its groups.
// GUID is the guidFile of the folder's table of contents (.onetoc2), zero
// when the folder has none (a lone section, a folder without one).
type Group struct {
	Name     string
	GUID     GUID
	Sections []*Section
	Groups   []*Group
}

// Section is one section file. Err is set, and Pages empty, when the
// section cannot be read: a password-protected section (ErrEncrypted), a
// damaged one (*FormatError) or one in a layout this reader does not read
// (*UnsupportedError). The other sections are read all the same.
type Section struct {
	Name string // the file name without .one
	// Path is where the file is read: inside the worker's temporary
	// folder for a section of a package.
	Path string
	// File is how errors name the file: Path, or for a section of a
	// package "<package>.onepkg: <path in the notebook>.one", never the
	// temporary folder it was extracted to.
	File  string
	GUID  GUID // the header's guidFile
	Pages []PageInfo
	Err   error
	r     *Reader
}

// Page reads the content of one of the section's pages.
func (s *Section) Page(guid GUID) (*Page, error) {
	if s.r == nil {
		return nil, s.Err
	}
	p, err := s.r.Page(guid)
	return p, withFile(err, s.File)
}

// recycleBin is the folder OneNote keeps deleted pages and sections in;
// a migration skips it.
const recycleBin = "OneNote_RecycleBin"

// Open reads a notebook from path: a section (.one), a table of contents
// (.onetoc2, read with the sections of its folder), a package (.onepkg)
// or the notebook's folder. Close releases the files it keeps open.
func Open(path string) (*Notebook, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	nb := &Notebook{}
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case st.IsDir():
		nb.Name = filepath.Base(path)
		err = nb.readFolder(&nb.Group, path)
	case ext == ".one":
		nb.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		var s *Section
		s, err = nb.openSection(path)
		if err == nil && s.Err != nil {
			err = s.Err
		}
		nb.Sections = []*Section{s}
	case ext == ".onetoc2":
		dir := filepath.Dir(path)
		nb.Name = filepath.Base(dir)
		err = nb.readFolder(&nb.Group, dir)
	case ext == ".onepkg":
		nb.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		err = nb.readPackage(path)
	default:
		err = &UnsupportedError{Format: "a file named " + filepath.Base(path), Advice: "give a .one, .onetoc2 or .onepkg file, or a notebook's folder"}
	}
	if err != nil {
		nb.Close()
		return nil, withFile(err, path)
	}
	return nb, nil
}

// Close closes the section files and removes an extracted package.
func (nb *Notebook) Close() error {
	var errs []error
	for _, f := range nb.files {
		errs = append(errs, f.Close())
	}
	nb.files = nil
	if nb.tmp != "" {
		errs = append(errs, os.RemoveAll(nb.tmp))
		nb.tmp = ""
	}
	return errors.Join(errs...)
}

func (nb *Notebook) readPackage(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	r, err := cab.NewReader(f, st.Size())
	if err != nil {
		return err
	}
	nb.tmp, err = os.MkdirTemp("", "onepkg-*")
	if err != nil {
		return err
	}
	nb.pkg, nb.root = path, nb.tmp
	if err := r.Extract(nb.tmp); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// This machine's disk, not the package (the cabinet's own
			// faults are format errors): its path is what to look at.
			return fmt.Errorf("extracting the package into the temporary folder: %w", err)
		}
		return err
	}
	// A package holds the notebook's folder, or its files at the top.
	if entries, err := os.ReadDir(nb.root); err == nil && len(entries) == 1 && entries[0].IsDir() {
		nb.root = filepath.Join(nb.root, entries[0].Name())
		nb.Name = entries[0].Name()
	}
	return nb.named(nb.readFolder(&nb.Group, nb.root))
}

// name is how errors name the file at path: path itself, or for a file
// extracted from a package "<package>.onepkg: <path in the notebook>",
// so that no error names the temporary folder, which means nothing to
// whoever gave the package.
func (nb *Notebook) name(path string) string {
	if nb.tmp == "" {
		return path
	}
	rel, err := filepath.Rel(nb.root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		if rel, err = filepath.Rel(nb.tmp, path); err != nil {
			return nb.pkg
		}
	}
	if rel == "." {
		return nb.pkg
	}
	return nb.pkg + ": " + filepath.ToSlash(rel)
}

// named renames the file of an operating system error inside err (a
// *fs.PathError or *os.LinkError) by name.
func (nb *Notebook) named(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		pe.Path = nb.name(pe.Path)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		le.Old, le.New = nb.name(le.Old), nb.name(le.New)
	}
	return err
}

// readFolder reads a notebook or section group folder: the sections and
// groups its table of contents lists, in that order, then any others in
// name order. The recycle bin is skipped.
func (nb *Notebook) readFolder(g *Group, dir string) error {
	return nb.readFolderDepth(g, dir, 0)
}

func (nb *Notebook) readFolderDepth(g *Group, dir string, depth int) error {
	if depth > 32 {
		return fmt.Errorf("onestore: section groups nested more than 32 deep in %s", nb.name(dir))
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	order := map[string]int{}
	for _, e := range entries {
		if strings.EqualFold(filepath.Ext(e.Name()), ".onetoc2") && !e.IsDir() {
			p := filepath.Join(dir, e.Name())
			toc, guid, err := readTOCFile(p, nb.name(p))
			if err != nil {
				return err
			}
			if g.GUID.IsZero() {
				g.GUID = guid
			}
			for i, t := range toc {
				if _, ok := order[t.Name]; !ok {
					order[t.Name] = i
				}
			}
			continue
		}
		if e.Name() == recycleBin || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if e.IsDir() || strings.EqualFold(filepath.Ext(e.Name()), ".one") {
			names = append(names, e.Name())
		}
	}
	sort.SliceStable(names, func(i, j int) bool {
		oi, iok := order[names[i]]
		oj, jok := order[names[j]]
		switch {
		case iok && jok:
			return oi < oj
		case iok != jok:
			return iok
		}
		return names[i] < names[j]
	})
	for _, name := range names {
		path := filepath.Join(dir, name)
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			sub := &Group{Name: name}
			if err := nb.readFolderDepth(sub, path, depth+1); err != nil {
				return err
			}
			g.Groups = append(g.Groups, sub)
			continue
		}
		s, err := nb.openSection(path)
		if err != nil {
			return err
		}
		g.Sections = append(g.Sections, s)
	}
	return nil
}

// readTOCFile reads a table of contents: its entries and its guidFile.
// Errors name the file by name.
func readTOCFile(path, name string) ([]TOCEntry, GUID, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, GUID{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, GUID{}, err
	}
	r, err := NewReader(f, st.Size())
	if err != nil {
		// A table of contents this reader cannot read gives no order;
		// the sections are listed by name.
		var ue *UnsupportedError
		if errors.As(err, &ue) {
			return nil, GUID{}, nil
		}
		return nil, GUID{}, withFile(err, name)
	}
	toc, err := r.TOC()
	return toc, r.FileGUID(), withFile(err, name)
}

// openSection opens a section and lists its pages; a section that cannot
// be read keeps its error in Section.Err. Only a failure to open the file
// is returned.
func (nb *Notebook) openSection(path string) (*Section, error) {
	s := &Section{Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), Path: path, File: nb.name(path)}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	nb.files = append(nb.files, f)
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, st.Size())
	if err != nil {
		s.Err = withFile(err, s.File)
		return s, nil
	}
	s.GUID = r.FileGUID()
	s.Pages, err = r.Pages()
	if err != nil {
		s.Err = withFile(err, s.File)
		return s, nil
	}
	s.r = r
	return s, nil
}

// Walk calls fn for every section in the order OneNote shows them: a
// group's sections before its subgroups, groups names the section groups
// from the notebook down. It stops at the first error fn returns.
func (g *Group) Walk(fn func(groups []string, s *Section) error) error {
	return g.walk(nil, fn)
}

func (g *Group) walk(path []string, fn func([]string, *Section) error) error {
	for _, s := range g.Sections {
		if err := fn(path, s); err != nil {
			return err
		}
	}
	for _, sub := range g.Groups {
		if err := sub.walk(append(path[:len(path):len(path)], sub.Name), fn); err != nil {
			return err
		}
	}
	return nil
}
