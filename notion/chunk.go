package notion

import (
	"encoding/json"
	"fmt"

	"github.com/notebridge/notebridge/notion/blocks"
)

// Limits are the payload rules every request that carries blocks obeys.
type Limits struct {
	// MaxChildren is the most blocks in any children array.
	MaxChildren int
	// MaxNesting is how many levels of children may hang below a
	// request's top-level blocks.
	MaxNesting int
	// MaxBlocks is the most blocks in one request.
	MaxBlocks int
	// MaxBytes is the most bytes of blocks in one request; the rest of
	// the request body (properties, wrapping) must fit in the margin up to
	// Notion's 500 KB.
	MaxBytes int
}

// DefaultLimits returns Notion's rules, with 16 KB of the byte budget
// kept for the rest of the body.
func DefaultLimits() Limits {
	return Limits{
		MaxChildren: blocks.MaxChildren,
		MaxNesting:  blocks.MaxNesting,
		MaxBlocks:   blocks.MaxBlocksPerRequest,
		MaxBytes:    blocks.MaxRequestBytes - 16*1000,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxChildren > 0 {
		d.MaxChildren = l.MaxChildren
	}
	if l.MaxNesting > 0 {
		d.MaxNesting = l.MaxNesting
	}
	if l.MaxBlocks > 0 {
		d.MaxBlocks = l.MaxBlocks
	}
	if l.MaxBytes > 0 {
		d.MaxBytes = l.MaxBytes
	}
	return d
}

// batch is the blocks of one request appended to one parent.
//
// Only a batch's top-level blocks may leave children for later: each
// top-level block carries a prefix of its children whose subtrees fit
// whole in the request, and its remaining children are appended to its ID
// (which the request returns) afterwards. Nested blocks are always sent
// complete, so no ID below the top level is ever needed.
type batch struct {
	// blocks are the top-level blocks as sent.
	blocks []blocks.Block
	// later[i] are the children of blocks[i] left for later requests.
	later [][]blocks.Block
	// bareHeading[i] marks a heading sent without its children, which
	// must still be created toggleable to accept them.
	bareHeading []bool
}

// count is the number of blocks the batch sends.
func (b batch) count() int { return blocks.Count(b.blocks) }

// hasLater reports whether some block of the batch has children left.
func (b batch) hasLater() bool {
	for _, l := range b.later {
		if len(l) > 0 {
			return true
		}
	}
	return false
}

// MarshalJSON writes the batch's blocks as a children array.
func (b batch) MarshalJSON() ([]byte, error) {
	raws := make([]json.RawMessage, len(b.blocks))
	for i, bl := range b.blocks {
		raw, err := json.Marshal(bl)
		if err != nil {
			return nil, err
		}
		if b.bareHeading[i] {
			if raw, err = markToggleable(raw, bl.Type); err != nil {
				return nil, err
			}
		}
		raws[i] = raw
	}
	return json.Marshal(raws)
}

// markToggleable sets is_toggleable on a heading's JSON. The block model
// sets it only on headings that carry children, but a heading whose
// children follow in a later request must be created toggleable too.
func markToggleable(raw []byte, t blocks.Type) ([]byte, error) {
	var outer map[string]json.RawMessage
	if err := json.Unmarshal(raw, &outer); err != nil {
		return nil, err
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(outer[string(t)], &body); err != nil {
		return nil, err
	}
	body["is_toggleable"] = json.RawMessage("true")
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	outer[string(t)] = b
	return json.Marshal(outer)
}

func isHeading(t blocks.Type) bool {
	return t == blocks.Heading1 || t == blocks.Heading2 || t == blocks.Heading3
}

// splitBatches cuts the blocks to append to one parent into requests that
// obey l. It fails only if a single block, without its children, breaks a
// rule on its own.
func splitBatches(bs []blocks.Block, l Limits) ([]batch, error) {
	var out []batch
	cur := batch{}
	roomBlocks, roomBytes := l.MaxBlocks, l.MaxBytes-2 // the array's brackets
	flush := func() {
		if len(cur.blocks) > 0 {
			out = append(out, cur)
		}
		cur = batch{}
		roomBlocks, roomBytes = l.MaxBlocks, l.MaxBytes-2
	}
	for i := 0; i < len(bs); {
		if len(cur.blocks) == l.MaxChildren {
			flush()
		}
		comma := 0
		if len(cur.blocks) > 0 {
			comma = 1
		}
		sent, later, n, size, err := trim(bs[i], l, roomBlocks, roomBytes-comma)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			if len(cur.blocks) == 0 {
				return nil, fmt.Errorf("%w: block %d (%s) alone exceeds the request limits", ErrValidation, i, bs[i].Type)
			}
			flush()
			continue
		}
		cur.blocks = append(cur.blocks, sent)
		cur.later = append(cur.later, later)
		cur.bareHeading = append(cur.bareHeading, isHeading(sent.Type) && len(sent.Children) == 0 && len(later) > 0)
		roomBlocks -= n
		roomBytes -= size + comma
		i++
	}
	flush()
	return out, nil
}

// trim fits b into a request with roomBlocks blocks and roomBytes bytes
// left: b itself, then as many of its children, in order, as fit whole
// (within the nesting rule, the children rule and the room). It returns
// the block as sent, the children left for later, the number of blocks
// and bytes sent, or n == 0 if not even b fits.
func trim(b blocks.Block, l Limits, roomBlocks, roomBytes int) (sent blocks.Block, later []blocks.Block, n, size int, err error) {
	bare := b
	bare.Children = nil
	size, err = jsonSize(bare)
	if err != nil {
		return blocks.Block{}, nil, 0, 0, err
	}
	if isHeading(b.Type) && len(b.Children) > 0 {
		size += len(`,"is_toggleable":true`)
	}
	if roomBlocks < 1 || size > roomBytes {
		return blocks.Block{}, nil, 0, 0, nil
	}
	n = 1
	kids := b.Children
	k := 0
	if len(kids) > 0 {
		size += len(`,"children":[]`)
	}
	for k < len(kids) && k < l.MaxChildren {
		c := kids[k]
		if !fitsWhole(c, l, l.MaxNesting-1) {
			break
		}
		cs, err := jsonSize(c)
		if err != nil {
			return blocks.Block{}, nil, 0, 0, err
		}
		if k > 0 {
			cs++
		}
		cn := blocks.Count(kids[k : k+1])
		if n+cn > roomBlocks || size+cs > roomBytes {
			break
		}
		n += cn
		size += cs
		k++
	}
	if b.Type == blocks.Table && k == 0 && len(kids) > 0 {
		// A table must be created with at least one row.
		return blocks.Block{}, nil, 0, 0, nil
	}
	bare.Children = kids[:k:k]
	return bare, kids[k:], n, size, nil
}

// fitsWhole reports whether b and all its descendants may go in one
// request with at most levels levels of children below b.
func fitsWhole(b blocks.Block, l Limits, levels int) bool {
	if len(b.Children) == 0 {
		return true
	}
	if levels <= 0 || len(b.Children) > l.MaxChildren {
		return false
	}
	for _, c := range b.Children {
		if !fitsWhole(c, l, levels-1) {
			return false
		}
	}
	return true
}

// jsonSize is the length of b's JSON.
func jsonSize(b blocks.Block) (int, error) {
	raw, err := json.Marshal(b)
	if err != nil {
		return 0, fmt.Errorf("notion: encoding %s block: %w", b.Type, err)
	}
	return len(raw), nil
}
