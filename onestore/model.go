package onestore

import (
	"io"
	"time"
)

// PageInfo describes a page without its content: what a listing of a
// section needs.
type PageInfo struct {
	// GUID is the page's NotebookManagementEntityGuid ([MS-ONE] 2.2.58,
	// on jcidPageMetaData), the GUID OneNote puts in page hyperlinks and
	// Graph in links.oneNoteClientUrl.href as page-id={GUID}.
	GUID     GUID
	Title    string
	Level    int // 0 for a page, 1 and 2 for subpages (Graph's level)
	Order    int // position in the section, from 0
	Created  time.Time
	Modified time.Time
	Images   int
	Files    int
	Ink      int
	Conflict bool // a conflict page ([MS-ONE] IsConflictPage)
	Authors  []string
}

// Page is a page's content as a tree: the title and the outlines in
// reading order, and the binaries its images and files refer to.
type Page struct {
	Info      PageInfo
	Title     []*Element // the title's paragraphs
	Outlines  []*Outline
	Resources []*Resource
	Losses    []Loss // what the reader could not decode, by kind
}

// Loss names content the reader saw but could not decode. Kind is one of
// the converter's loss kinds ("ink", "equation", "unsupported-content",
// ...), so a page read from a file and one read from Graph report alike.
type Loss struct {
	Kind string
	What string
}

// Outline is a box on the page ([MS-ONE] jcidOutlineNode) and its
// elements. X, Y and Width are in points from the page's top left corner.
type Outline struct {
	X, Y, Width float32
	Elements    []*Element
}

// Element is one outline element ([MS-ONE] jcidOutlineElementNode): its
// content (paragraphs, a table, images, files, ink), its list marker, its
// note tags and the elements nested under it.
type Element struct {
	Content  []Content
	List     *ListMarker // nil when the element is not a list item
	Tags     []NoteTag
	Children []*Element

	titleDateTime bool // the date or time under a page's title
}

// Content is one piece of an element's content: exactly one field is set.
type Content struct {
	Paragraph *Paragraph
	Table     *Table
	Image     *Image
	File      *EmbeddedFile
	Ink       *Ink
}

// Paragraph is a rich text paragraph ([MS-ONE] jcidRichTextOENode).
type Paragraph struct {
	Style string // ParagraphStyleId: "p", "h1" ... "h6", "PageTitle", "code", "quote", "cite"
	Runs  []Run
}

// Text is the paragraph's plain text.
func (p *Paragraph) Text() string {
	s := ""
	for _, r := range p.Runs {
		s += r.Text
	}
	return s
}

// Run is text with one formatting.
type Run struct {
	Text                   string
	Bold, Italic           bool
	Underline, Strike      bool
	Superscript, Subscript bool
	Color, Highlight       string // "#rrggbb", or "" for automatic
	Font                   string
	Size                   float32 // points, 0 when not set
	Link                   string  // the hyperlink's target, or ""
}

// ListMarker is an element's list marker ([MS-ONE] jcidNumberListNode).
type ListMarker struct {
	Ordered bool
	Format  string // the bullet character, or the numbering format
	Restart int    // ListRestart: the number the list restarts at, or 0
}

// NoteTag is a note tag on an element ([MS-ONE] NoteTagSharedDefinition).
type NoteTag struct {
	Label     string
	Shape     int  // NoteTagShape; the to-do shapes are check boxes
	Checkable bool // a to-do
	Checked   bool // NoteTagCompleted is set
}

// Table is a table ([MS-ONE] jcidTableNode).
type Table struct {
	Rows    [][]*Cell
	Borders bool
}

// Cell is a table cell and its elements.
type Cell struct {
	Elements []*Element
	Shading  string // CellBackgroundColor as "#rrggbb", or ""
}

// Image is a picture ([MS-ONE] jcidImageNode) and its binary.
type Image struct {
	Resource string // the Resource's ID, "" when the picture has no data
	Alt      string // ImageAltText, a person's alt text
	OCR      string // the text OneNote recognised in the picture (RichEditTextUnicode)
	Filename string // ImageFilename
	Width    float32
	Height   float32
}

// EmbeddedFile is an attached file or printout ([MS-ONE] jcidEmbeddedFileNode).
type EmbeddedFile struct {
	Resource string
	Name     string
	Source   string // SourceFilepath
}

// Ink is a drawing or handwriting ([MS-ONE] jcidInkContainer) and its
// strokes.
type Ink struct {
	Strokes []Stroke
}

// Resource is a binary of the page: an image or a file, read from the
// section file when opened.
type Resource struct {
	ID        string // stable within the page, URL-safe: the object's GUID and number
	Name      string // file name, when the file has one
	Extension string // from the file data declaration, e.g. ".png"
	Size      int64
	section   *io.SectionReader
}

// Open returns a reader of the resource's bytes.
func (r *Resource) Open() io.Reader {
	return io.NewSectionReader(r.section, 0, r.Size)
}
