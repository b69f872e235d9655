// Package blocks is Note Bridge's model of Notion content: the block tree the
// converter produces from a OneNote page and the Notion writer sends to the
// Notion API. Its JSON form is the Notion API's (version 2022-06-28) block and
// rich-text shapes, so a tree marshals straight into a request body and an
// API response (or the Notion emulator's export) unmarshals back into it for
// comparison.
//
// The package has no dependencies beyond the standard library: the converter
// and the writer both import it, and neither imports the other.
package blocks

// Type names a Notion block type, exactly as the API spells it.
type Type string

// The block types Note Bridge writes.
const (
	Paragraph        Type = "paragraph"
	Heading1         Type = "heading_1"
	Heading2         Type = "heading_2"
	Heading3         Type = "heading_3"
	BulletedListItem Type = "bulleted_list_item"
	NumberedListItem Type = "numbered_list_item"
	ToDo             Type = "to_do"
	Toggle           Type = "toggle"
	Callout          Type = "callout"
	Quote            Type = "quote"
	Code             Type = "code"
	Equation         Type = "equation"
	Divider          Type = "divider"
	Table            Type = "table"
	TableRow         Type = "table_row"
	Image            Type = "image"
	File             Type = "file"
	PDF              Type = "pdf"
	Video            Type = "video"
	Audio            Type = "audio"
	Embed            Type = "embed"
	Bookmark         Type = "bookmark"
)

// Notion's payload rules (reference: shared/reference/notion-api.md §1.2).
const (
	// MaxTextLen is the longest text.content of one rich-text item, counted
	// in UTF-16 code units (see UTF16Len).
	MaxTextLen = 2000
	// MaxRichTextItems is the most items in any rich-text array.
	MaxRichTextItems = 100
	// MaxEquationLen is the longest equation expression.
	MaxEquationLen = 1000
	// MaxURLLen is the longest URL anywhere in a payload.
	MaxURLLen = 2000
	// MaxChildren is the most blocks in any one children array of a request.
	MaxChildren = 100
	// MaxNesting is how many levels of children a request may carry below
	// its top-level blocks.
	MaxNesting = 2
	// MaxBlocksPerRequest is the most block elements in one request.
	MaxBlocksPerRequest = 1000
	// MaxRequestBytes is the largest request body Notion accepts.
	MaxRequestBytes = 500 * 1000
)

// Block is one Notion block. Which fields matter depends on Type; the rest
// stay zero. Children nest as Notion nests them (list items, to-dos,
// toggles, quotes, callouts, paragraphs); a table's rows are its Children,
// each of Type TableRow.
type Block struct {
	// ID is the Notion block ID. It is set on blocks read back from Notion
	// and empty on blocks to be written.
	ID string
	// Type is the Notion block type.
	Type Type

	// RichText is the text of paragraphs, headings, list items, to-dos,
	// toggles, callouts, quotes and code blocks.
	RichText []RichText
	// Children are the nested blocks.
	Children []Block

	// Color is the block colour, one of Notion's named colours ("" means
	// default).
	Color string
	// Checked marks a to_do as done.
	Checked bool
	// Icon is a callout's emoji.
	Icon string
	// Language is a code block's language ("plain text" when unknown).
	Language string
	// Expression is an equation block's LaTeX.
	Expression string

	// TableWidth is a table's column count; every row has that many cells.
	TableWidth int
	// HasColumnHeader and HasRowHeader style a table's first row or column.
	HasColumnHeader bool
	HasRowHeader    bool
	// Cells are a table row's cells, each a rich-text array.
	Cells [][]RichText

	// Media is the content of image, file, pdf, video, audio, embed and
	// bookmark blocks.
	Media *Media
	// Caption is the caption of media and code blocks.
	Caption []RichText
}

// Media says where a media block's content comes from. Exactly one source is
// set when the block is written: a OneNote Resource is what the converter
// knows, and the writer replaces it with a FileUploadID once the bytes are
// uploaded to Notion.
type Media struct {
	// URL is an external URL (videos, embeds, bookmarks, and images or files
	// Notion only links to).
	URL string
	// FileUploadID is a Notion file upload attached to the block.
	FileUploadID string
	// HostedURL is the URL of a file Notion hosts, as a read returns it.
	HostedURL string
	// Resource is the OneNote resource to fetch and upload before writing.
	Resource *Resource
	// Name is the file name shown on file blocks.
	Name string
}

// Resource is a OneNote resource (an image, attachment or printout page) a
// page refers to. Fetching it costs one Graph request.
type Resource struct {
	// ID is the OneNote resource ID: the path segment after /resources/.
	ID string
	// URL is the resource's content URL as the page HTML gives it.
	URL string
	// MIME is the content type the page HTML declares, if any.
	MIME string
	// Name is the file name (attachments) or a generated one (images).
	Name string
}

// RichText is one run of text with one formatting.
type RichText struct {
	// Text is the run's content (text.content).
	Text string
	// Link is the run's link URL, if any. Only a URL LinkAllowed accepts
	// is ever sent to Notion.
	Link string
	// PageRef is the OneNote page ID (the GUID in an onenote: link's
	// page-id) the run links to. The writer writes such a run as plain
	// text and records where it is; the link pass makes it a mention of
	// the migrated Notion page. Link may keep the original onenote: URL,
	// which is never sent.
	PageRef string
	// Equation, when set, makes the run an inline equation instead of text.
	Equation string
	// Mention, when set, makes the run a mention of the Notion page with
	// this ID (how rewritten internal links are written); Text is then the
	// text Notion shows for it.
	Mention string
	// Annotations is the run's formatting.
	Annotations Annotations
}

// Annotations is the formatting of a rich-text run.
type Annotations struct {
	Bold          bool
	Italic        bool
	Strikethrough bool
	Underline     bool
	Code          bool
	// Color is one of Notion's named colours, optionally with the
	// "_background" suffix ("" means default).
	Color string
}

// Colors are Notion's named colours; each also has a "_background" form.
var Colors = []string{"default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink", "red"}

// PlainText joins the text of a rich-text array.
func PlainText(rt []RichText) string {
	n := 0
	for _, r := range rt {
		n += len(r.Text) + len(r.Equation)
	}
	b := make([]byte, 0, n)
	for _, r := range rt {
		if r.Equation != "" {
			b = append(b, r.Equation...)
			continue
		}
		b = append(b, r.Text...)
	}
	return string(b)
}

// UTF16Len is the length of s in UTF-16 code units, the unit Notion's
// 2,000-character limit counts (as JavaScript's String.length does).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Count is the number of blocks in a tree, the blocks themselves and all
// their descendants (Notion's per-request block count).
func Count(bs []Block) int {
	n := len(bs)
	for i := range bs {
		n += Count(bs[i].Children)
	}
	return n
}

// Depth is how many levels of children hang below the top-level blocks
// (0 for a flat list).
func Depth(bs []Block) int {
	d := 0
	for i := range bs {
		if len(bs[i].Children) > 0 {
			if c := 1 + Depth(bs[i].Children); c > d {
				d = c
			}
		}
	}
	return d
}

// SplitUTF16 cuts s into pieces of at most limit UTF-16 code units, never
// inside a character (a surrogate pair stays whole). It returns nil for ""
// and [s] when s fits.
func SplitUTF16(s string, limit int) []string {
	if s == "" {
		return nil
	}
	if len(s) <= limit || UTF16Len(s) <= limit {
		return []string{s}
	}
	var parts []string
	start, units := 0, 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > limit {
			parts = append(parts, s[start:i])
			start, units = i, 0
		}
		units += w
	}
	return append(parts, s[start:])
}
