package notion

import (
	"context"
	"errors"
)

// errNotAPrefix means a half-written page's content is not what the write
// plan would have produced so far; the page is then cleared and rewritten.
var errNotAPrefix = errors.New("notion: content is not a prefix of the write plan")

// resume finishes a half-written page. A row marked writing whose "Last
// modified in OneNote" equals the input holds the result of a prefix of
// the write plan's requests: each request is atomic, requests run in plan
// order (a batch, then the children it left for later, depth first, then
// the next batch), and the content is only ever cleared while that date
// is unset. So at each level every batch but the last one present is
// complete, and resume only needs to look inside the last one.
func (w *pageWriter) resume(ctx context.Context, pageID string, batches []batch) error {
	kids, err := w.c.listChildren(ctx, pageID)
	if err != nil {
		return err
	}
	return w.resumeInto(ctx, pageID, batches, kids, 0)
}

// resumeInto continues the batches planned for parent, whose children
// beyond the first base are present.
func (w *pageWriter) resumeInto(ctx context.Context, parent string, batches []batch, present []childBlock, base int) error {
	done := 0
	for i, b := range batches {
		n := len(b.blocks)
		if done == len(present) {
			w.counts[parent] = base + done
			return w.appendBatches(ctx, parent, batches[i:])
		}
		if done+n > len(present) {
			return errNotAPrefix
		}
		created := present[done : done+n]
		for j, k := range created {
			if k.Type != string(b.blocks[j].Type) {
				return errNotAPrefix
			}
		}
		done += n
		if done == len(present) {
			// The last batch present: what it left for later may be
			// partly written.
			w.counts[parent] = base + done
			if err := w.resumeLater(ctx, b, ids(created)); err != nil {
				return err
			}
			return w.appendBatches(ctx, parent, batches[i+1:])
		}
		// An earlier batch is complete, its later children included.
	}
	if done != len(present) {
		return errNotAPrefix
	}
	return nil
}

// resumeLater continues the children batch b left for later. They are
// written block by block in order, so the last block that has more than
// the children it was created with is where the write stopped: those
// before it are complete and those after it not started.
func (w *pageWriter) resumeLater(ctx context.Context, b batch, created []string) error {
	started := -1
	var present []childBlock
	for i := len(b.later) - 1; i >= 0; i-- {
		if len(b.later[i]) == 0 {
			continue
		}
		kids, err := w.c.listChildren(ctx, created[i])
		if err != nil {
			return err
		}
		withBlock := len(b.blocks[i].Children)
		if len(kids) < withBlock {
			return errNotAPrefix
		}
		if len(kids) > withBlock {
			started, present = i, kids[withBlock:]
			break
		}
	}
	for i, later := range b.later {
		if len(later) == 0 || i < started {
			continue
		}
		sub, err := splitBatches(later, w.c.limits)
		if err != nil {
			return err
		}
		withBlock := len(b.blocks[i].Children)
		if i == started {
			if err := w.resumeInto(ctx, created[i], sub, present, withBlock); err != nil {
				return err
			}
			continue
		}
		w.counts[created[i]] = withBlock
		if err := w.appendBatches(ctx, created[i], sub); err != nil {
			return err
		}
	}
	return nil
}
