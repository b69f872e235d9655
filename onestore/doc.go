// Package onestore reads OneNote's own files without Microsoft Graph: the
// sections (.one) and tables of contents (.onetoc2) that OneNote 2010 to
// 2016 write in the revision store layout ([MS-ONESTORE]), with the page
// content of [MS-ONE], and notebooks exported as packages (.onepkg, a
// cabinet; see package cab). It imports nothing from Temporal.
//
// Open reads a notebook (a .one, .onetoc2 or .onepkg path, or the
// notebook's folder) into a tree of groups and sections, each section
// with its pages in order (GUID, title, level, times, counts of images,
// files and ink). Section.Page returns one page's content: outlines of
// nested elements holding paragraphs of formatted runs, lists, tables,
// images and files (their bytes through Resource.Open) and note tags.
// What the reader sees but cannot decode yet is a Loss with a kind
// string from the converter's set, never dropped silently.
//
// The reader follows archive/zip: NewReader takes an io.ReaderAt and the
// file's size, reads through io.NewSectionReader, and checks every offset
// and length against the size before it reads or allocates. A damaged
// file gets a *FormatError naming the structure (by the specification's
// name), its offset and what was expected; a file in a format the reader
// does not read (OneNote 2007, the [MS-FSSHTTPB] packaged layout that
// OneDrive and OneNote for Windows 10 hand out) gets an *UnsupportedError
// that says what to do. Decoding never panics (FuzzReader).
//
// The page GUID is the NotebookManagementEntityGuid of the page's
// jcidPageMetaData ([MS-ONE] 2.2.58), which the specification says is
// the GUID used to construct a hyperlink to the page: the page-id={GUID}
// of an onenote: link and of Graph's links.oneNoteClientUrl.href.
package onestore
