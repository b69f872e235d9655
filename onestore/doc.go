// Package onestore reads OneNote's own files without Microsoft Graph:
// sections (.one) and tables of contents (.onetoc2) in both layouts, the
// revision store that OneNote 2010 to 2016 write ([MS-ONESTORE] 2.1 to
// 2.7) and the packaged layout that OneDrive and OneNote for Windows 10
// hand out ([MS-ONESTORE] 2.8 over [MS-FSSHTTPB] data elements), with the
// page content of [MS-ONE]; and notebooks exported as packages (.onepkg,
// a cabinet, see package cab). It imports nothing from Temporal.
//
// Both layouts are read into one model: object spaces, their revisions,
// and objects whose property sets are decoded when a page asks for them.
// Open reads a notebook (a .one, .onetoc2 or .onepkg path, or the
// notebook's folder) into a tree of groups and sections, each section with
// its pages in order (GUID, title, level, times, counts of images, files
// and ink); the recycle bin is skipped and a section that cannot be read
// keeps its error (ErrEncrypted for a password-protected one). Section.Page
// returns a page's content: outlines of nested elements holding
// paragraphs of formatted runs, lists, tables, images (with alt and OCR
// text), files and ink strokes, with note tags; binaries are read from the
// file through Resource.Open. What the reader sees but cannot decode is a
// Loss with a kind from the converter's set, never dropped silently.
//
// Page.HTML renders a page as the HTML Graph returns for a page's content
// and Page.InkML its ink as Graph's InkML, so package convert reads a file
// page as it reads a Graph page: one converter, one set of loss kinds.
//
// The reader follows archive/zip: NewReader takes an io.ReaderAt and the
// file's size, reads through io.NewSectionReader, and checks every offset
// and length against the size before it reads or allocates. A damaged
// file gets a *FormatError naming the structure (by the specification's
// name), its offset and what was expected; a OneNote 2007 file gets an
// *UnsupportedError that says what to do. Decoding never panics
// (FuzzReader).
//
// The page GUID is the NotebookManagementEntityGuid of the page's
// jcidPageMetaData ([MS-ONE] 2.2.58), which the specification names as the
// GUID used to construct a hyperlink to the page: the page-id={GUID} of an
// onenote: link and of Graph's links.oneNoteClientUrl.href.
package onestore
