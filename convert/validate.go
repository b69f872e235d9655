package convert

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/notebridge/notebridge/notion/blocks"
)

// ErrInvalid is wrapped by every error Validate returns.
var ErrInvalid = errors.New("block breaks a Notion rule")

// maxReported is how many problems Validate lists.
const maxReported = 10

// Validate checks a block tree against every rule the converter
// guarantees:
//   - block types are ones Notion accepts and the converter writes, with
//     the fields their type needs (a code language, an equation
//     expression, a media source, a table width);
//   - rich-text items are text, an equation or a mention; text is non-empty
//     valid UTF-8 of at most MaxTextLen UTF-16 units; equations at most
//     MaxEquationLen; links at most MaxURLLen, and http or https URLs
//     (blocks.LinkAllowed) unless they are onenote: page links (PageRef);
//   - rich-text arrays (text, captions, table cells) have at most
//     MaxRichTextItems items;
//   - a table has at least one row, only table_row children, and every row
//     exactly TableWidth cells; table_row appears only in tables;
//   - blocks that cannot have children (headings, code, equations, media,
//     dividers) have none;
//   - media URLs are at most MaxURLLen, and resources have an id.
//
// It does not check what the writer handles: children per request, nesting
// depth per request, request size. Each problem is reported with its path,
// e.g. "blocks[3].children[0].rich_text[1]".
func Validate(bs []blocks.Block) error {
	v := validator{path: pathStack{{name: "blocks"}}}
	v.blocks(bs, false)
	return errors.Join(v.errs...)
}

type validator struct {
	path pathStack
	errs []error
}

func (v *validator) fail(format string, args ...any) {
	if len(v.errs) == maxReported {
		v.errs = append(v.errs, fmt.Errorf("%w: more problems not listed", ErrInvalid))
	}
	if len(v.errs) > maxReported {
		return
	}
	v.errs = append(v.errs, fmt.Errorf("%w: %s: %s", ErrInvalid, v.path, fmt.Sprintf(format, args...)))
}

func (v *validator) blocks(bs []blocks.Block, inTable bool) {
	for i := range bs {
		v.path.index(i)
		v.block(&bs[i], inTable)
		v.path.pop(1)
	}
}

func (v *validator) block(b *blocks.Block, inTable bool) {
	switch {
	case b.Type == blocks.TableRow && !inTable:
		v.fail("table_row outside a table")
	case b.Type != blocks.TableRow && inTable:
		v.fail("%s block in a table", b.Type)
	}
	leaf := false
	switch b.Type {
	case blocks.Paragraph, blocks.BulletedListItem, blocks.NumberedListItem, blocks.ToDo,
		blocks.Toggle, blocks.Callout, blocks.Quote:
		v.richText(b.RichText, "rich_text")
	case blocks.Heading1, blocks.Heading2, blocks.Heading3:
		v.richText(b.RichText, "rich_text")
		leaf = true
	case blocks.Code:
		v.richText(b.RichText, "rich_text")
		if b.Language == "" {
			v.fail("code block without a language")
		}
		leaf = true
	case blocks.Equation:
		switch n := blocks.UTF16Len(b.Expression); {
		case n == 0:
			v.fail("empty equation")
		case n > blocks.MaxEquationLen:
			v.fail("equation is %d characters, over %d", n, blocks.MaxEquationLen)
		}
		leaf = true
	case blocks.Divider:
		leaf = true
	case blocks.Table:
		v.table(b)
		return
	case blocks.TableRow:
		for i, cell := range b.Cells {
			v.path.field("cells")
			v.path.index(i)
			v.items(cell)
			v.path.pop(2)
		}
		leaf = true
	case blocks.Image, blocks.File, blocks.PDF, blocks.Video, blocks.Audio, blocks.Embed, blocks.Bookmark:
		v.media(b)
		v.richText(b.Caption, "caption")
		leaf = true
	default:
		v.fail("unknown block type %q", b.Type)
	}
	if leaf && len(b.Children) > 0 {
		v.fail("%s block has children", b.Type)
	}
	v.path.field("children")
	v.blocks(b.Children, false)
	v.path.pop(1)
}

func (v *validator) table(b *blocks.Block) {
	if b.TableWidth < 1 {
		v.fail("table width %d", b.TableWidth)
	}
	if len(b.Children) == 0 {
		v.fail("table without rows")
	}
	v.path.field("children")
	for i := range b.Children {
		if row := &b.Children[i]; row.Type == blocks.TableRow && len(row.Cells) != b.TableWidth {
			v.path.index(i)
			v.fail("row has %d cells, table is %d wide", len(row.Cells), b.TableWidth)
			v.path.pop(1)
		}
	}
	v.blocks(b.Children, true)
	v.path.pop(1)
}

func (v *validator) media(b *blocks.Block) {
	m := b.Media
	switch {
	case m == nil:
		v.fail("%s block without media", b.Type)
	case m.Resource != nil:
		if m.Resource.ID == "" {
			v.fail("resource without an id")
		}
		if b.Type == blocks.Embed || b.Type == blocks.Bookmark {
			v.fail("%s block refers to a resource", b.Type)
		}
	case m.URL != "":
		if len(m.URL) > blocks.MaxURLLen {
			v.fail("URL is %d characters, over %d", len(m.URL), blocks.MaxURLLen)
		}
	case m.FileUploadID == "" && m.HostedURL == "":
		v.fail("%s block without a source", b.Type)
	}
}

func (v *validator) richText(rt []blocks.RichText, field string) {
	v.path.field(field)
	v.items(rt)
	v.path.pop(1)
}

// items checks one rich-text array.
func (v *validator) items(rt []blocks.RichText) {
	if len(rt) > blocks.MaxRichTextItems {
		v.fail("%d rich-text items, over %d", len(rt), blocks.MaxRichTextItems)
	}
	for i := range rt {
		r := &rt[i]
		v.path.index(i)
		switch {
		case r.Equation != "" && r.Mention != "":
			v.fail("both an equation and a mention")
		case r.Equation != "":
			if n := blocks.UTF16Len(r.Equation); n > blocks.MaxEquationLen {
				v.fail("equation is %d characters, over %d", n, blocks.MaxEquationLen)
			}
		case r.Mention == "" && r.Text == "":
			v.fail("empty text")
		}
		if len(r.Text) > blocks.MaxTextLen {
			if n := blocks.UTF16Len(r.Text); n > blocks.MaxTextLen {
				v.fail("text is %d UTF-16 units, over %d", n, blocks.MaxTextLen)
			}
		}
		if !utf8.ValidString(r.Text) {
			v.fail("text is not valid UTF-8")
		}
		if len(r.Link) > blocks.MaxURLLen {
			v.fail("link is %d characters, over %d", len(r.Link), blocks.MaxURLLen)
		}
		if r.Link != "" && r.PageRef == "" && !blocks.LinkAllowed(r.Link) {
			v.fail("link %q is not one Notion accepts", r.Link)
		}
		v.path.pop(1)
	}
}
