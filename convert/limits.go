package convert

import "github.com/notebridge/notebridge/notion/blocks"

// fitLimits applies Notion's payload rules to a block tree: rich-text items
// at most MaxTextLen UTF-16 units (split at rune boundaries, so never inside
// a surrogate pair), rich-text arrays at most MaxRichTextItems items (a
// text block with more becomes several blocks of the same type, its
// children under the last; a table cell keeps its text and loses the
// formatting of the excess). It changes bs in place and returns it, or a
// new slice when a block had to be split.
func fitLimits(bs []blocks.Block, losses *lossLog) []blocks.Block {
	if len(bs) == 0 {
		return nil
	}
	split := false
	for i := range bs {
		b := &bs[i]
		b.Children = fitLimits(b.Children, losses)
		b.RichText = splitLongItems(b.RichText)
		b.Caption = capItems(splitLongItems(b.Caption), losses)
		for j, cell := range b.Cells {
			b.Cells[j] = capItems(splitLongItems(cell), losses)
		}
		split = split || len(b.RichText) > blocks.MaxRichTextItems
	}
	if !split {
		return bs
	}
	out := make([]blocks.Block, 0, len(bs)+1)
	for _, b := range bs {
		if len(b.RichText) <= blocks.MaxRichTextItems {
			out = append(out, b)
			continue
		}
		losses.add(LossSplit, Mapped, "text too long for one Notion block split into several "+string(b.Type)+" blocks",
			blocks.PlainText(b.RichText[:1]))
		rt, children := b.RichText, b.Children
		for len(rt) > 0 {
			n := min(len(rt), blocks.MaxRichTextItems)
			piece := b
			piece.RichText, piece.Children = rt[:n:n], nil
			rt = rt[n:]
			if len(rt) == 0 {
				piece.Children = children
			}
			out = append(out, piece)
		}
	}
	return out
}

// splitLongItems splits text items longer than MaxTextLen UTF-16 units.
func splitLongItems(rt []blocks.RichText) []blocks.RichText {
	long := false
	for _, r := range rt {
		if len(r.Text) > blocks.MaxTextLen && blocks.UTF16Len(r.Text) > blocks.MaxTextLen {
			long = true
			break
		}
	}
	if !long {
		return rt
	}
	out := make([]blocks.RichText, 0, len(rt)+2)
	for _, r := range rt {
		for _, chunk := range splitText(r.Text, blocks.MaxTextLen) {
			piece := r
			piece.Text = chunk
			out = append(out, piece)
		}
	}
	return out
}

// splitText cuts s into pieces of at most limit UTF-16 units, at rune
// boundaries. It returns [s] when s fits, [""] for "".
func splitText(s string, limit int) []string {
	if s == "" {
		return []string{""}
	}
	return blocks.SplitUTF16(s, limit)
}

// capItems keeps a rich-text array within MaxRichTextItems by dropping the
// formatting of the items at its end, and reports it. Text beyond what 100
// items can hold is cut, and reported.
func capItems(rt []blocks.RichText, losses *lossLog) []blocks.RichText {
	if len(rt) <= blocks.MaxRichTextItems {
		return rt
	}
	for keep := blocks.MaxRichTextItems - 1; keep >= 0; keep-- {
		rest := splitText(blocks.PlainText(rt[keep:]), blocks.MaxTextLen)
		if keep+len(rest) > blocks.MaxRichTextItems {
			continue
		}
		losses.add(LossSplit, Degraded, "formatting dropped from a table cell with too many formatted runs", blocks.PlainText(rt[:1]))
		out := append([]blocks.RichText{}, rt[:keep]...)
		for _, s := range rest {
			out = append(out, blocks.RichText{Text: s})
		}
		return out
	}
	all := splitText(blocks.PlainText(rt), blocks.MaxTextLen)[:blocks.MaxRichTextItems]
	losses.add(LossSplit, Dropped, "table cell text longer than Notion allows cut", all[0])
	out := make([]blocks.RichText, len(all))
	for i, s := range all {
		out[i] = blocks.RichText{Text: s}
	}
	return out
}
