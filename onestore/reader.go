package onestore

import (
	"fmt"
	"io"
	"sort"
)

// Reader reads one OneNote file: a section (.one) or a table of contents
// (.onetoc2), in the revision store layout of OneNote 2010 to 2016 or the
// packaged layout. Its methods may be called concurrently.
type Reader struct {
	s *Store
}

// NewReader opens the file r of size bytes. It reads the header and the
// file's node lists and checks them; property sets and binaries are read
// when a page is asked for. A OneNote 2007 file is refused with an
// *UnsupportedError, a damaged one with a *FormatError.
func NewReader(r io.ReaderAt, size int64) (*Reader, error) {
	if size < 68 {
		return nil, formatErr("Header", 0, fmt.Sprintf("a file of at least 68 bytes, found %d", size))
	}
	s, err := openStore(r, size)
	if err != nil {
		return nil, err
	}
	return &Reader{s: s}, nil
}

// IsSection reports whether the file is a section (.one); otherwise it is
// a table of contents (.onetoc2).
func (r *Reader) IsSection() bool {
	if r.s.header.FileFormat != guidFileFormatPack {
		return r.s.header.FileType == guidFileTypeSection
	}
	// A packaged file names itself a section either way: its root object
	// says what it is.
	sp := r.s.spaces[r.s.root]
	if rev := sp.current(roleContent); rev != nil {
		if id, ok := rev.rootObject(roleContent); ok {
			if e := rev.lookup(id); e != nil {
				return e.jcid == jcidSectionNode
			}
		}
	}
	return true
}

// FileGUID is the header's guidFile: the section's identity, which the
// notebook's table of contents names as FileIdentityGuid.
func (r *Reader) FileGUID() GUID { return r.s.header.File }

// Pages lists the section's pages in order, with their counts of images,
// files and ink. A password-protected section returns an error wrapping
// ErrEncrypted.
func (r *Reader) Pages() ([]PageInfo, error) {
	pages, err := r.pages()
	if err != nil {
		return nil, err
	}
	out := make([]PageInfo, len(pages))
	for i, p := range pages {
		out[i] = p.Info
	}
	return out, nil
}

func (r *Reader) pages() ([]*Page, error) {
	if !r.IsSection() {
		return nil, fmt.Errorf("onestore: the file is a table of contents, not a section")
	}
	spaces, err := r.s.sectionPages()
	if err != nil {
		return nil, err
	}
	pages := make([]*Page, 0, len(spaces))
	for i, id := range spaces {
		p, err := r.s.readPage(id, i)
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// Page reads the content of the page with guid (PageInfo.GUID). It reads
// the pages' metadata to find it, and the content of that page only.
func (r *Reader) Page(guid GUID) (*Page, error) {
	if !r.IsSection() {
		return nil, fmt.Errorf("onestore: the file is a table of contents, not a section")
	}
	spaces, err := r.s.sectionPages()
	if err != nil {
		return nil, err
	}
	for i, id := range spaces {
		g, err := r.s.pageGUID(id)
		if err != nil {
			return nil, err
		}
		if g == guid {
			return r.s.readPage(id, i)
		}
	}
	return nil, fmt.Errorf("onestore: no page %s in the section", guid)
}

// TOCEntry is one entry of a notebook's table of contents: the file name
// of a section (.one) or the folder name of a section group, in the order
// OneNote shows them.
type TOCEntry struct {
	Name  string // FolderChildFilename
	Order int    // NotebookElementOrderingId
}

// TOC lists the entries of a table of contents (.onetoc2) in order. An
// empty table (a notebook OneNote has not written one for) is no error.
func (r *Reader) TOC() ([]TOCEntry, error) {
	if r.IsSection() {
		return nil, fmt.Errorf("onestore: the file is a section, not a table of contents")
	}
	sp := r.s.spaces[r.s.root]
	rev := sp.current(roleContent)
	if rev == nil {
		return nil, nil
	}
	rootID, ok := rev.rootObject(roleContent)
	if !ok {
		return nil, nil
	}
	ps := &pageSpace{s: r.s, rev: rev, page: &Page{}}
	root, err := ps.object(rootID)
	if err != nil {
		return nil, err
	}
	var out []TOCEntry
	for _, id := range root.Props.refs(propTocChildren) {
		child, err := ps.object(id)
		if err != nil {
			return nil, err
		}
		name := child.Props.str(propFolderChildFilename)
		if name == "" {
			continue
		}
		order, ok := child.Props.u32(propNotebookElementOrderingID)
		if !ok {
			order = uint32(len(out))
		}
		out = append(out, TOCEntry{Name: name, Order: int(int32(order))})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Order < out[j].Order })
	return out, nil
}

// PropertyIDs of the table of contents, [MS-ONE] 2.1.12.
const (
	propTocChildren               = 0x24001CF6
	propFolderChildFilename       = 0x1C001D6B
	propNotebookElementOrderingID = 0x14001CB9
)
