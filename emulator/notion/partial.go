package notion

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// partialKey marks a request FaultPartialWrite was drawn for.
type partialKey struct{}

// partialDrawn reports whether FaultPartialWrite was drawn for the request.
func partialDrawn(ctx context.Context) bool {
	v, _ := ctx.Value(partialKey{}).(bool)
	return v
}

// isPartialTarget reports whether a request is a write FaultPartialWrite
// can cut: a page create or an append of block children.
func isPartialTarget(method, path string) bool {
	switch method {
	case http.MethodPost:
		return path == "/v1/pages"
	case http.MethodPatch:
		rest, ok := strings.CutPrefix(path, "/v1/blocks/")
		return ok && strings.HasSuffix(rest, "/children") && strings.Count(rest, "/") == 1
	}
	return false
}

// The ways a partial write cuts a request.
const (
	// CutChildren drops the last children of the request's top level.
	CutChildren = "children"
	// CutText cuts short the last rich-text run (of two characters or
	// more) of the last top-level child that has one.
	CutText = "text"
)

// PartialWrite is one write FaultPartialWrite accepted (200) but kept only
// part of. It says exactly what was lost, so a test can check that a
// read-back verification found each cut and nothing else.
type PartialWrite struct {
	// RequestID is the request_id of the answer the client got.
	RequestID string `json:"request_id"`
	// Time is the server clock when the write was served.
	Time time.Time `json:"time"`
	// Method and Path are the request's (PATCH /v1/blocks/{id}/children
	// or POST /v1/pages).
	Method string `json:"method"`
	Path   string `json:"path"`
	// PageID and PageTitle name the page the write was for: the page
	// created, or the page the appended-to block is on.
	PageID    string `json:"page_id"`
	PageTitle string `json:"page_title"`
	// Cut is CutChildren or CutText.
	Cut string `json:"cut"`
	// Sent and Kept count the top-level children (CutChildren) or the
	// characters of the cut run (CutText) in the request and in the
	// workspace.
	Sent int `json:"sent"`
	Kept int `json:"kept"`
	// DroppedTypes are the types of the dropped children, in order
	// (CutChildren).
	DroppedTypes []string `json:"dropped_types,omitempty"`
	// BlockID is the block whose run was cut (CutText).
	BlockID string `json:"block_id,omitempty"`
}

// PartialWrites returns the writes FaultPartialWrite cut so far, in order.
func (s *Server) PartialWrites() []PartialWrite {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.partialWrites)
}

// ResetPartialWrites forgets the recorded partial writes.
func (s *Server) ResetPartialWrites() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partialWrites = nil
}

// servePartialWrites answers GET (the writes cut so far) and DELETE (forget
// them) on /_emulator/partial-writes.
func (s *Server) servePartialWrites(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodDelete {
		s.ResetPartialWrites()
	}
	ws := s.PartialWrites()
	if ws == nil {
		ws = []PartialWrite{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"partial_writes": ws})
}

// partialCut is what a partial write will keep of a request's children.
type partialCut struct {
	rec PartialWrite
	// keep is how many top-level children are stored.
	keep int
	// text is the index of the child whose run is cut, or -1.
	text int
}

// planPartial decides, with s.mu held, how a write drawn for
// FaultPartialWrite is cut: the write of the validated children kids to
// page (the page created, or the page the appended-to block is on). ok is
// false when nothing is cut: the fault was not drawn, the page is not one
// of Faults.PartialWritePages, or there is nothing to cut. It changes kids
// only for CutText; the caller stores kids[:keep] and records the cut.
func (s *Server) planPartial(c *call, page *node, kids []*newBlock) (partialCut, bool) {
	if !partialDrawn(c.r.Context()) || len(kids) == 0 || page == nil {
		return partialCut{}, false
	}
	if !s.partialPageMatches(page.id, s.plainTitle(page)) {
		return partialCut{}, false
	}
	pc := partialCut{keep: len(kids), text: -1, rec: PartialWrite{
		RequestID: requestID(c.r.Context()), Time: s.now().UTC(), Method: c.r.Method, Path: c.r.URL.Path,
	}}
	mode := s.faults.PartialWriteCut
	if mode == CutChildren || (mode == "" && len(kids) >= 2) {
		if len(kids) < 2 {
			return partialCut{}, false
		}
		// The last half, at least one: what a write cut off mid-way
		// would lose.
		pc.keep = len(kids) / 2
		pc.rec.Cut, pc.rec.Sent, pc.rec.Kept = CutChildren, len(kids), pc.keep
		for _, k := range kids[pc.keep:] {
			pc.rec.DroppedTypes = append(pc.rec.DroppedTypes, k.typ)
		}
		return pc, true
	}
	for i := len(kids) - 1; i >= 0; i-- {
		item := lastTextItem(kids[i])
		if item == nil {
			continue
		}
		text, _ := asObject(item["text"])
		content, _ := asString(text["content"])
		n := utf8.RuneCountInString(content)
		cut := string([]rune(content)[:n/2])
		text["content"], item["plain_text"] = cut, cut
		pc.text = i
		pc.rec.Cut, pc.rec.Sent, pc.rec.Kept = CutText, n, n/2
		return pc, true
	}
	return partialCut{}, false
}

// recordPartial stores the cut, with the page and block it landed on.
func (s *Server) recordPartial(pc partialCut, page *node, created []*node) {
	pc.rec.PageID, pc.rec.PageTitle = page.id, s.plainTitle(page)
	if pc.text >= 0 && pc.text < len(created) {
		pc.rec.BlockID = created[pc.text].id
	}
	s.partialWrites = append(s.partialWrites, pc.rec)
}

// lastTextItem returns the last text item of b's rich text with at least
// two characters, or nil.
func lastTextItem(b *newBlock) map[string]any {
	body, _ := asObject(b.content)
	rt, _ := asArray(body["rich_text"])
	for i := len(rt) - 1; i >= 0; i-- {
		item, _ := asObject(rt[i])
		if item["type"] != "text" {
			continue
		}
		text, _ := asObject(item["text"])
		if content, _ := asString(text["content"]); utf8.RuneCountInString(content) >= 2 {
			return item
		}
	}
	return nil
}

// partialPageMatches reports whether Faults.PartialWritePages admits the
// page with this ID and title.
func (s *Server) partialPageMatches(id, title string) bool {
	pages := s.faults.PartialWritePages
	if len(pages) == 0 {
		return true
	}
	for _, p := range pages {
		if p == title || compactID(p) == compactID(id) {
			return true
		}
	}
	return false
}

// pageOf is the page a block is on (the page itself for a page), or nil.
func (s *Server) pageOf(n *node) *node {
	for range 1 << 10 {
		if n == nil || n.kind == kindPage {
			return n
		}
		n = s.nodes[n.parent.id]
	}
	return nil
}
