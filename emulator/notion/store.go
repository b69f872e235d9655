package notion

import (
	"fmt"
	"slices"
	"strings"
)

// The workspace store. Every function here is called with s.mu held.

// newNode creates a node and counts it against the workspace block limit.
func (s *Server) newNode(kind, typ string, parent parentRef) *node {
	now := s.stamp()
	s.seq++
	n := &node{id: newUUID(s.rng), kind: kind, typ: typ, parent: parent, seq: s.seq, created: now, edited: now}
	s.nodes[n.id] = n
	s.blocksCreated++
	return n
}

// newPage creates a page under parent with properties in response shape.
func (s *Server) newPage(parent parentRef, props map[string]any) *node {
	n := s.newNode(kindPage, "child_page", parent)
	n.properties = props
	s.link(n)
	return n
}

// link adds n to its parent's children (or rows).
func (s *Server) link(n *node) {
	p := s.nodes[n.parent.id]
	if p == nil {
		return
	}
	if n.kind == kindDataSource {
		p.sources = append(p.sources, n.id)
		return
	}
	if n.parent.typ == parentDataSource {
		p.rows = append(p.rows, n.id)
		return
	}
	p.children = append(p.children, n.id)
	p.edited = n.created
}

func titleProperties(title string) map[string]any {
	rt := []any{}
	if title != "" {
		rt = append(rt, textItem(title))
	}
	return map[string]any{"title": map[string]any{"id": "title", "type": "title", "title": rt}}
}

// textItem is a plain rich-text item in response shape.
func textItem(s string) map[string]any {
	return map[string]any{"type": "text", "text": map[string]any{"content": s, "link": nil},
		"annotations": defaultAnnotations(), "plain_text": s, "href": nil}
}

// atStart, as insertBlocks' after, inserts before the first child.
const atStart = "start"

// insertBlocks creates the validated blocks under parent, after the child
// block with ID after (at the end when after is empty), and returns the
// top-level nodes created.
func (s *Server) insertBlocks(parent *node, blocks []*newBlock, after string) []*node {
	created := make([]*node, 0, len(blocks))
	ids := make([]string, 0, len(blocks))
	ptype := parentBlock
	if parent.kind == kindPage {
		ptype = parentPage
	}
	for _, b := range blocks {
		n := s.createBlock(parentRef{typ: ptype, id: parent.id}, b)
		created = append(created, n)
		ids = append(ids, n.id)
	}
	pos := len(parent.children)
	if after == atStart {
		pos = 0
	} else if after != "" {
		if i := slices.Index(parent.children, after); i >= 0 {
			pos = i + 1
		}
	}
	parent.children = slices.Insert(parent.children, pos, ids...)
	parent.edited, parent.editedBy = s.stamp(), ""
	return created
}

func (s *Server) createBlock(parent parentRef, b *newBlock) *node {
	n := s.newNode(kindBlock, b.typ, parent)
	n.content = b.content
	n.uploadID = b.uploadID
	s.attachUploadsOf(b.content, b.uploadID)
	for _, c := range b.children {
		child := s.createBlock(parentRef{typ: parentBlock, id: n.id}, c)
		n.children = append(n.children, child.id)
	}
	return n
}

// attachUploadsOf marks the uploads a block refers to as attached.
func (s *Server) attachUploadsOf(content map[string]any, uploadID string) {
	if uploadID != "" {
		s.attach(uploadID)
	}
	if icon, ok := asObject(content["icon"]); ok {
		if id := iconUploadID(icon); id != "" {
			s.attach(id)
		}
	}
}

func iconUploadID(icon map[string]any) string {
	if icon["type"] != "file_upload" {
		return ""
	}
	fu, _ := asObject(icon["file_upload"])
	id, _ := asString(fu["id"])
	return id
}

// visible says whether the integration can see n: neither n nor any
// ancestor is unshared.
func (s *Server) visible(n *node) bool {
	for n != nil {
		if n.unshared {
			return false
		}
		if n.parent.typ == parentWorkspace {
			return true
		}
		n = s.nodes[n.parent.id]
	}
	return false
}

// inTrash says whether n or any ancestor is archived: archived pages take
// their content with them.
func (s *Server) inTrash(n *node) bool {
	for n != nil {
		if n.archived {
			return true
		}
		if n.parent.typ == parentWorkspace {
			return false
		}
		n = s.nodes[n.parent.id]
	}
	return false
}

// pathID validates an ID taken from the URL path.
func pathID(name, raw string) (string, error) {
	id, ok := normalizeID(raw)
	if !ok {
		return "", validationError("path failed validation: path.%s should be a valid uuid, instead was `%q`.", name, raw)
	}
	return id, nil
}

// lookup finds a visible node of one of kinds; kind names the object in
// the 404 message.
func (s *Server) lookup(rawID, kind string, kinds ...string) (*node, error) {
	id, err := pathID(kind+"_id", rawID)
	if err != nil {
		return nil, err
	}
	n := s.nodes[id]
	if n == nil || !s.visible(n) || !slices.Contains(kinds, n.kind) {
		return nil, notFound(kind, id)
	}
	return n, nil
}

func (s *Server) findPage(raw string) (*node, error) { return s.lookup(raw, "page", kindPage) }
func (s *Server) findDatabase(raw string) (*node, error) {
	return s.lookup(raw, "database", kindDatabase)
}
func (s *Server) findBlock(raw string) (*node, error) {
	return s.lookup(raw, "block", kindBlock, kindPage, kindDatabase)
}

// plainTitle is the title of a page or database as plain text.
func (s *Server) plainTitle(n *node) string {
	switch n.kind {
	case kindDatabase, kindDataSource:
		return plainText(n.title)
	case kindPage:
		for _, v := range n.properties {
			p, _ := asObject(v)
			if p["type"] == "title" {
				rt, _ := asArray(p["title"])
				return plainText(rt)
			}
		}
	}
	return ""
}

// liveChildren are n's children that are not archived.
func (s *Server) liveChildren(n *node) []*node {
	out := make([]*node, 0, len(n.children))
	for _, id := range n.children {
		if c := s.nodes[id]; c != nil && !c.archived {
			out = append(out, c)
		}
	}
	return out
}

// AddPage creates a page under the page parentID (or at workspace level
// when parentID is empty) and returns its ID, for seeding a workspace. An
// unshared page (shared false) and everything under it answer 404 to the
// integration.
func (s *Server) AddPage(parentID, title string, shared bool) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	parent := parentRef{typ: parentWorkspace}
	if parentID != "" {
		id, ok := normalizeID(parentID)
		if !ok || s.nodes[id] == nil || s.nodes[id].kind != kindPage {
			return "", fmt.Errorf("notion emulator: add page: no page %q", parentID)
		}
		parent = parentRef{typ: parentPage, id: id}
	}
	n := s.newPage(parent, titleProperties(title))
	n.unshared = !shared
	return n.id, nil
}

// SetShared shares or unshares a page or database (and so its
// descendants) with the integration. Unshared objects answer 404
// object_not_found, as in Notion.
func (s *Server) SetShared(id string, shared bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	nid, ok := normalizeID(id)
	if !ok || s.nodes[nid] == nil {
		return fmt.Errorf("notion emulator: set shared: no object %q", id)
	}
	s.nodes[nid].unshared = !shared
	return nil
}

// SetWorkspaceBlockLimit changes the lifetime block limit at run time
// (0 means unlimited).
func (s *Server) SetWorkspaceBlockLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.blockLimit = n
}

func compactID(id string) string { return strings.ReplaceAll(id, "-", "") }

// SetMaxFileUploadBytes changes the workspace's per-file upload cap at
// run time (0 means DefaultMaxFileUploadBytes). GET /v1/users/me reports
// the new cap; clients that read it earlier find out when an upload is
// refused.
func (s *Server) SetMaxFileUploadBytes(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 {
		n = DefaultMaxFileUploadBytes
	}
	s.cfg.MaxFileUploadBytes = n
}

// InjectUploadExpiry makes the next n file uploads expire as soon as they
// are uploaded, while they still report their normal expiry_time: a client
// that attaches one gets Notion's 400 for an expired upload, as if the
// hour had passed while it waited (a long throttle, a slow page).
func (s *Server) InjectUploadExpiry(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expireNext += n
}
