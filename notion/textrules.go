package notion

import (
	"fmt"
	"strconv"

	"github.com/notebridge/notebridge/notion/blocks"
)

// fitText returns a copy of bs whose text obeys Notion's rich-text rules:
// at most 2000 characters per item (longer runs are split), 100 items per
// array (adjacent runs with the same formatting are merged; a text block
// still longer is split into several blocks of its type, and a caption or
// table cell keeps the rest as plain text), links and media URLs that are
// http or https (blocks.LinkAllowed: another is kept as text with its
// target shown) of at most 2000 characters, and equations of at most 1000 characters (a
// longer block equation becomes a LaTeX code block, a longer inline one
// code-formatted text). What changes visibly is reported as a Loss.
func fitText(bs []blocks.Block) ([]blocks.Block, []Loss) {
	var losses []Loss
	return fitBlocks(bs, "", &losses), losses
}

func fitBlocks(bs []blocks.Block, prefix string, losses *[]Loss) []blocks.Block {
	if bs == nil {
		return nil
	}
	out := make([]blocks.Block, 0, len(bs))
	for i, b := range bs {
		loc := prefix + strconv.Itoa(i+1)
		where := fmt.Sprintf("block %s (%s)", loc, b.Type)
		b.Children = fitBlocks(b.Children, loc+".", losses)
		if b.Type == blocks.Equation && blocks.UTF16Len(b.Expression) > blocks.MaxEquationLen {
			*losses = append(*losses, Loss{Kind: LossText, Location: where,
				Detail: fmt.Sprintf("equation of %d characters (Notion allows %d) kept as LaTeX code", blocks.UTF16Len(b.Expression), blocks.MaxEquationLen)})
			b = blocks.Block{Type: blocks.Code, Language: "latex", RichText: text(b.Expression)}
		}
		if b.Media != nil && blocks.UTF16Len(b.Media.URL) > blocks.MaxURLLen {
			*losses = append(*losses, Loss{Kind: LossText, Location: where,
				Detail: fmt.Sprintf("%s URL of %d characters (Notion allows %d) kept as text", b.Type, blocks.UTF16Len(b.Media.URL), blocks.MaxURLLen)})
			b = blocks.Block{Type: blocks.Paragraph, RichText: text(b.Media.URL), Children: b.Children}
		}
		if b.Media != nil && b.Media.URL != "" && !blocks.IsWebURL(b.Media.URL) {
			*losses = append(*losses, Loss{Kind: LossLink, Location: where,
				Detail: fmt.Sprintf("%s with a %s: URL kept as text with its target shown: Notion takes only http and https URLs", b.Type, blocks.LinkScheme(b.Media.URL))})
			b = blocks.Block{Type: blocks.Paragraph, RichText: text(b.Media.URL), Children: b.Children}
		}
		b.Caption = fitArray(fitRuns(b.Caption, where+" caption", losses), where+" caption", losses)
		if b.Cells != nil {
			cells := make([][]blocks.RichText, len(b.Cells))
			for j, cell := range b.Cells {
				cw := fmt.Sprintf("%s cell %d", where, j+1)
				cells[j] = fitArray(fitRuns(cell, cw, losses), cw, losses)
			}
			b.Cells = cells
		}
		runs := mergeRuns(fitRuns(b.RichText, where, losses))
		if len(runs) <= blocks.MaxRichTextItems {
			b.RichText = runs
			out = append(out, b)
			continue
		}
		// Split the block: every part but the last without children.
		for len(runs) > 0 {
			n := min(len(runs), blocks.MaxRichTextItems)
			part := b
			part.RichText = runs[:n:n]
			runs = runs[n:]
			if len(runs) > 0 {
				part.Children = nil
			}
			out = append(out, part)
		}
	}
	return out
}

// fitRuns splits long text runs and fixes over-long links and equations.
func fitRuns(rt []blocks.RichText, where string, losses *[]Loss) []blocks.RichText {
	if rt == nil {
		return nil
	}
	out := make([]blocks.RichText, 0, len(rt))
	for _, r := range rt {
		if r.Equation != "" && blocks.UTF16Len(r.Equation) > blocks.MaxEquationLen {
			*losses = append(*losses, Loss{Kind: LossText, Location: where,
				Detail: fmt.Sprintf("inline equation of %d characters kept as code text", blocks.UTF16Len(r.Equation))})
			r = blocks.RichText{Text: r.Equation, Annotations: r.Annotations}
			r.Annotations.Code = true
		}
		if r.Link != "" && r.PageRef == "" && !blocks.IsWebURL(r.Link) {
			// Notion refuses the whole request for one such link.
			*losses = append(*losses, Loss{Kind: LossLink, Location: where,
				Detail: fmt.Sprintf("%s: link on %q kept as text with its target shown: Notion links only to http and https URLs", blocks.LinkScheme(r.Link), short(r.Text))})
			if r.Text != r.Link {
				r.Text += " (" + r.Link + ")"
			}
			r.Link = ""
		}
		if r.Link != "" && blocks.UTF16Len(r.Link) > blocks.MaxURLLen {
			*losses = append(*losses, Loss{Kind: LossText, Location: where,
				Detail: fmt.Sprintf("link of %d characters on %q dropped (Notion allows %d)", blocks.UTF16Len(r.Link), short(r.Text), blocks.MaxURLLen)})
			r.Link = ""
		}
		if r.Equation != "" || r.Mention != "" || blocks.UTF16Len(r.Text) <= blocks.MaxTextLen {
			out = append(out, r)
			continue
		}
		for _, part := range blocks.SplitUTF16(r.Text, blocks.MaxTextLen) {
			p := r
			p.Text = part
			out = append(out, p)
		}
	}
	return out
}

// mergeRuns joins adjacent text runs of the same formatting while the
// array is longer than Notion allows and the joined text fits one item.
func mergeRuns(rt []blocks.RichText) []blocks.RichText {
	if len(rt) <= blocks.MaxRichTextItems {
		return rt
	}
	out := make([]blocks.RichText, 0, len(rt))
	for _, r := range rt {
		if n := len(out); n > 0 {
			last := &out[n-1]
			if plainRun(*last) && plainRun(r) && last.Link == r.Link && last.Annotations == r.Annotations &&
				blocks.UTF16Len(last.Text)+blocks.UTF16Len(r.Text) <= blocks.MaxTextLen {
				last.Text += r.Text
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func plainRun(r blocks.RichText) bool { return r.Equation == "" && r.Mention == "" && r.PageRef == "" }

// fitArray caps an array that cannot be split into blocks (a caption, a
// table cell) at 100 items: the rest is kept as plain text.
func fitArray(rt []blocks.RichText, where string, losses *[]Loss) []blocks.RichText {
	rt = mergeRuns(rt)
	if len(rt) <= blocks.MaxRichTextItems {
		return rt
	}
	rest := blocks.PlainText(rt[blocks.MaxRichTextItems-1:])
	parts := blocks.SplitUTF16(rest, blocks.MaxTextLen)
	*losses = append(*losses, Loss{Kind: LossText, Location: where,
		Detail: fmt.Sprintf("%d text runs (Notion allows %d); the formatting of the last %d was dropped", len(rt), blocks.MaxRichTextItems, len(rt)-blocks.MaxRichTextItems+1)})
	out := append([]blocks.RichText(nil), rt[:blocks.MaxRichTextItems-1]...)
	out = append(out, blocks.RichText{Text: parts[0]})
	if len(parts) > 1 {
		*losses = append(*losses, Loss{Kind: LossText, Location: where,
			Detail: fmt.Sprintf("%d characters of text beyond what one item holds were dropped", blocks.UTF16Len(rest)-blocks.UTF16Len(parts[0]))})
	}
	return out
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
