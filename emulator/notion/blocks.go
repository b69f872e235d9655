package notion

import "fmt"

// GET, PATCH and DELETE /v1/blocks/{id}; GET and PATCH
// /v1/blocks/{id}/children. Handlers run with s.mu held.

func (s *Server) retrieveBlock(c *call) (any, error) {
	n, err := s.findBlock(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderBlock(c.base, n), nil
}

func (s *Server) listChildren(c *call) (any, error) {
	n, err := s.findBlock(c.pathID())
	if err != nil {
		return nil, err
	}
	size, cursor, err := queryPaging(c.r)
	if err != nil {
		return nil, err
	}
	live := s.liveChildren(n)
	ids := make([]string, len(live))
	for i, b := range live {
		ids[i] = b.id
	}
	page, next, err := paginate(ids, cursor, size, "query")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		results[i] = s.renderBlock(c.base, s.nodes[id])
	}
	return list(results, next, "block"), nil
}

// childParentType is the parent type the validator checks children
// against when appending to n, or an error when n cannot hold children.
func childParentType(n *node) (string, error) {
	switch n.kind {
	case kindPage:
		return "", nil
	case kindDatabase:
		return "", validationError("Block %s is a database; add rows with POST /v1/pages instead of appending children.", n.id)
	}
	rule := creatableTypes[n.typ]
	if rule == noChildren || (rule == toggleableChildren && n.content["is_toggleable"] != true) {
		return "", validationError("Block type %s does not support children.", n.typ)
	}
	return n.typ, nil
}

func (s *Server) appendChildren(c *call) (any, error) {
	n, err := s.findBlock(c.pathID())
	if err != nil {
		return nil, err
	}
	// 2026-03-11 replaced after with position (upgrade guide 2026-03-11).
	place := "after"
	if inTrashOnly(c.version()) {
		place = "position"
	}
	if err := allowKeys("body", c.body, "children", place); err != nil {
		return nil, err
	}
	if s.inTrash(n) {
		return nil, archivedError()
	}
	ptype, err := childParentType(n)
	if err != nil {
		return nil, err
	}
	v := s.newValidator()
	kids, err := v.children("body.children", c.body["children"], 0, ptype)
	if err != nil {
		return nil, err
	}
	if ptype == "table" {
		width := n.content["table_width"].(int)
		for i, row := range kids {
			if cells := row.content["cells"].([]any); len(cells) != width {
				return nil, bodyError(fmt.Sprintf("body.children[%d].table_row.cells.length", i),
					"should be `%d` (the table_width of the parent table), instead was `%d`", width, len(cells))
			}
		}
	}
	after, err := s.appendPosition(n, c.body["position"])
	if err != nil {
		return nil, err
	}
	if raw, ok := c.body["after"]; ok && raw != nil {
		str, _ := asString(raw)
		id, ok := normalizeID(str)
		if !ok {
			return nil, bodyError("body.after", "should be a valid uuid, instead was `%s`", brief(raw))
		}
		child := s.nodes[id]
		if child == nil || child.archived || child.parent.id != n.id || child.parent.typ == parentDataSource {
			return nil, validationError("body failed validation: body.after should be the ID of a child block of %s, instead was `%s`.", n.id, id)
		}
		after = id
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	var created []*node
	if pc, ok := s.planPartial(c, s.pageOf(n), kids); ok {
		created = s.insertBlocks(n, kids[:pc.keep], after)
		s.recordPartial(pc, s.pageOf(n), created)
	} else {
		created = s.insertBlocks(n, kids, after)
	}
	results := make([]any, len(created))
	for i, b := range created {
		results[i] = s.renderBlock(c.base, b)
	}
	return list(results, "", "block"), nil
}

func (s *Server) deleteBlock(c *call) (any, error) {
	n, err := s.findBlock(c.pathID())
	if err != nil {
		return nil, err
	}
	if n.archived {
		return nil, archivedError()
	}
	n.archived = true
	n.edited, n.editedBy = s.stamp(), ""
	return s.renderBlock(c.base, n), nil
}

// updateBlock updates a block's type object (fields given replace the
// stored ones) and/or archives or restores it.
func (s *Server) updateBlock(c *call) (any, error) {
	n, err := s.findBlock(c.pathID())
	if err != nil {
		return nil, err
	}
	archived, hasArchived, err := archivedFlag(c.body, c.version())
	if err != nil {
		return nil, err
	}
	allowed := []string{"archived", "in_trash"}
	if n.kind == kindBlock {
		allowed = append(allowed, n.typ, "type")
	}
	if err := allowKeys("body", c.body, allowed...); err != nil {
		return nil, err
	}
	if t, ok := c.body["type"]; ok && t != n.typ {
		return nil, bodyError("body.type", "should be `%s`, instead was `%s`", n.typ, brief(t))
	}
	if n.archived && !(hasArchived && !archived) || !n.archived && s.inTrash(n) {
		return nil, archivedError()
	}
	v := s.newValidator()
	var content map[string]any
	uploadID := n.uploadID
	if raw, ok := c.body[n.typ]; ok && n.kind == kindBlock {
		body, ok := asObject(raw)
		if !ok {
			return nil, wrongType("body."+n.typ, "an object", raw)
		}
		if kids, ok := body["children"]; ok {
			return nil, notPresent("body."+n.typ+".children", kids)
		}
		merged := s.requestForm(n)
		if _, ok := body["external"]; ok || body["file_upload"] != nil || body["type"] != nil {
			delete(merged, "external")
			delete(merged, "file_upload")
			delete(merged, "type")
		}
		for k, x := range body {
			merged[k] = x
		}
		full, up, err := v.typeBody("body."+n.typ, n.typ, merged)
		if err != nil {
			return nil, err
		}
		if err := s.checkUpdate(n, full); err != nil {
			return nil, err
		}
		content, uploadID = full, up
	}
	if err := v.finish(0); err != nil {
		return nil, err
	}
	v.commit()
	if content != nil {
		n.content, n.uploadID = content, uploadID
		s.attachUploadsOf(content, uploadID)
	}
	if hasArchived {
		n.archived = archived
	}
	n.edited, n.editedBy = s.stamp(), ""
	return s.renderBlock(c.base, n), nil
}

// requestForm is a block's stored type object as a request would give it,
// the base an update's fields are laid over.
func (s *Server) requestForm(n *node) map[string]any {
	m, _ := clone(n.content).(map[string]any)
	if n.uploadID != "" {
		m["type"] = "file_upload"
		m["file_upload"] = map[string]any{"id": n.uploadID}
	}
	return m
}

// checkUpdate enforces the rules that tie an updated block to its
// surroundings: a row keeps its table's width, a table keeps its width.
func (s *Server) checkUpdate(n *node, full map[string]any) error {
	switch n.typ {
	case "table_row":
		if p := s.nodes[n.parent.id]; p != nil && p.typ == "table" {
			width := p.content["table_width"].(int)
			if cells := full["cells"].([]any); len(cells) != width {
				return bodyError("body.table_row.cells.length", "should be `%d` (the table_width of the parent table), instead was `%d`", width, len(cells))
			}
		}
	case "table":
		if full["table_width"] != n.content["table_width"] {
			return bodyError("body.table.table_width", "cannot be changed after the table is created (it is `%v`)", n.content["table_width"])
		}
	}
	return nil
}

// appendPosition reads append's position (2026-03-11): after_block,
// start or end. It returns insertBlocks' after.
func (s *Server) appendPosition(n *node, raw any) (string, error) {
	if raw == nil {
		return "", nil
	}
	m, ok := asObject(raw)
	if !ok {
		return "", wrongType("body.position", "an object", raw)
	}
	switch t, _ := asString(m["type"]); t {
	case "end":
		return "", nil
	case "start":
		return atStart, nil
	case "after_block":
		ab, _ := asObject(m["after_block"])
		id, ok := normalizeID(asStringOr(ab["id"]))
		if !ok {
			return "", bodyError("body.position.after_block.id", "should be a valid uuid, instead was `%s`", brief(ab["id"]))
		}
		child := s.nodes[id]
		if child == nil || child.archived || child.parent.id != n.id || child.parent.typ == parentDataSource {
			return "", validationError("body failed validation: body.position.after_block.id should be the ID of a child block of %s, instead was `%s`.", n.id, id)
		}
		return id, nil
	}
	return "", bodyError("body.position.type", "should be `after_block`, `start` or `end`, instead was `%s`", brief(m["type"]))
}
