package notion

import (
	"fmt"
	"net/http"
)

// newBlock is a validated block from a request, ready to insert.
type newBlock struct {
	typ      string
	content  map[string]any
	uploadID string // media block attached to a file upload
	children []*newBlock
}

// uploadRef is a file upload a request attaches, with where it was named.
type uploadRef struct {
	path string
	id   string
}

// blockValidator validates the content of one request (block trees, rich
// text, property values) from its raw JSON, counting blocks, bad links and
// collecting attached uploads and new select options. Nothing is stored
// until the handler has called finish and commit. Callers hold s.mu.
type blockValidator struct {
	s       *Server
	count   int
	uploads []uploadRef
	// badLinks counts rich-text links that are not http(s) URLs.
	badLinks int
	// newOptions are the select options this request creates, per
	// schema property, in order; commit adds them to the schema.
	newOptions map[*propSchema][]any
}

// newValidator starts the validation of one request.
func (s *Server) newValidator() *blockValidator { return &blockValidator{s: s} }

// commit stores what validation created beside the content itself (new
// select options). Call it once finish has passed.
func (v *blockValidator) commit() {
	for p, opts := range v.newOptions {
		existing, _ := asArray(p.config["options"])
		p.config["options"] = append(existing, opts...)
	}
	v.newOptions = nil
}

// children validates a children array at path. depth is the nesting level
// of its blocks (0 for a request's top-level blocks); parentType is the
// block type of their parent ("" for a page).
func (v *blockValidator) children(path string, raw any, depth int, parentType string) ([]*newBlock, error) {
	arr, ok := asArray(raw)
	if !ok {
		if raw == nil {
			return nil, undefined(path)
		}
		return nil, wrongType(path, "an array", raw)
	}
	if len(arr) > maxChildren {
		return nil, tooMany(path, maxChildren, len(arr))
	}
	out := make([]*newBlock, 0, len(arr))
	for i, item := range arr {
		b, err := v.block(fmt.Sprintf("%s[%d]", path, i), item, depth, parentType)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}

// finish runs the whole-request checks after the trees validated.
func (v *blockValidator) finish(extra int) error {
	if v.count > maxBlocksPerRequest {
		return validationError("body failed validation: the request contains `%d` blocks, which exceeds the limit of `%d` blocks per request.", v.count, maxBlocksPerRequest)
	}
	if v.badLinks > 0 {
		return invalidLinks(v.badLinks)
	}
	for _, ref := range v.uploads {
		if err := v.s.checkAttachable(ref); err != nil {
			return err
		}
	}
	return v.s.checkBlockLimit(v.count + extra)
}

func blockTypeOf(m map[string]any) string {
	if t, ok := asString(m["type"]); ok {
		return t
	}
	for k := range m {
		if _, ok := creatableTypes[k]; ok {
			return k
		}
	}
	return ""
}

func (v *blockValidator) block(path string, raw any, depth int, parentType string) (*newBlock, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	if o, ok := m["object"]; ok && o != "block" {
		return nil, bodyError(path+".object", "should be `block`, instead was `%s`", brief(o))
	}
	typ := blockTypeOf(m)
	rule, ok := creatableTypes[typ]
	switch {
	case typ == "":
		return nil, undefined(path + ".type")
	case readOnlyTypes[typ]:
		return nil, bodyError(path+".type", "`%s` is not supported for creation through the API", typ)
	case !ok:
		return nil, bodyError(path+".type", "should be a supported block type, instead was `%s`", brief(typ))
	}
	for k, x := range m {
		if k != typ && k != "type" && k != "object" {
			if _, isType := creatableTypes[k]; isType || readOnlyTypes[k] || k == "children" {
				// Another type's object, or children outside the type
				// object (where Notion would not look for them).
				return nil, notPresent(path+"."+k, x)
			}
		}
	}
	switch {
	case parentType == "table" && typ != "table_row":
		return nil, bodyError(path+".type", "should be `table_row` (a table may only hold table rows), instead was `%s`", brief(typ))
	case typ == "table_row" && parentType != "table":
		return nil, bodyError(path+".type", "`table_row` blocks can only be children of a `table` block")
	case parentType == "column_list" && typ != "column":
		return nil, bodyError(path+".type", "should be `column` (a column_list may only hold columns), instead was `%s`", brief(typ))
	case typ == "column" && parentType != "column_list":
		return nil, bodyError(path+".type", "`column` blocks can only be children of a `column_list` block")
	}
	body, ok := asObject(m[typ])
	if !ok {
		if m[typ] == nil {
			return nil, undefined(path + "." + typ)
		}
		return nil, wrongType(path+"."+typ, "an object", m[typ])
	}
	v.count++
	bpath := path + "." + typ
	nb := &newBlock{typ: typ}
	var err error
	nb.content, nb.uploadID, err = v.typeBody(bpath, typ, body)
	if err != nil {
		return nil, err
	}
	kids, hasKids := body["children"]
	if hasKids && kids != nil {
		switch {
		case rule == noChildren:
			return nil, notPresent(bpath+".children", kids)
		case rule == toggleableChildren && nb.content["is_toggleable"] != true:
			return nil, bodyError(bpath+".children", "should be not present unless `is_toggleable` is `true`, instead was `%s`", brief(kids))
		}
		if arr, ok := asArray(kids); ok && len(arr) > 0 && depth >= maxNesting {
			return nil, notPresent(bpath+".children", kids)
		}
		nb.children, err = v.children(bpath+".children", kids, depth+1, typ)
		if err != nil {
			return nil, err
		}
	}
	return nb, v.structure(bpath, nb)
}

// structure checks the rules that tie a block to its children in the same
// request: tables and their rows, column lists and their columns.
func (v *blockValidator) structure(path string, nb *newBlock) error {
	switch nb.typ {
	case "table":
		if len(nb.children) == 0 {
			return bodyError(path+".children", "should contain at least one `table_row` (a table and its first rows are created in one request), instead was `undefined`")
		}
		width := nb.content["table_width"].(int)
		for i, row := range nb.children {
			cells := row.content["cells"].([]any)
			if len(cells) != width {
				return bodyError(fmt.Sprintf("%s.children[%d].table_row.cells.length", path, i),
					"should be `%d` (the table_width of the parent table), instead was `%d`", width, len(cells))
			}
		}
	case "column_list":
		if len(nb.children) < 2 {
			return bodyError(path+".children.length", "should be ≥ `2`, instead was `%d`", len(nb.children))
		}
	case "column":
		if len(nb.children) < 1 {
			return bodyError(path+".children.length", "should be ≥ `1`, instead was `%d`", len(nb.children))
		}
	}
	return nil
}

// checkBlockLimit enforces the Free-plan workspace block limit. Notion's
// exact answer is not documented in the reference; the emulator answers
// 400 validation_error (not retryable) with an explicit message.
//
// Personal access tokens and public OAuth connections are exempt
// (reference row 15): the limit is looked up for the token of the request
// being served. Their blocks still count toward the workspace's total.
func (s *Server) checkBlockLimit(n int) error {
	if s.blockLimit <= 0 || s.blocksCreated+n <= s.blockLimit {
		return nil
	}
	if st, ok := s.tokens[s.caller]; ok && st.typ.BlockLimitExempt() {
		return nil
	}
	return &apiError{status: http.StatusBadRequest, code: codeValidation,
		message: fmt.Sprintf("This workspace has reached its block limit of %d blocks (Free plan with more than one member); this request would add %d blocks to the %d already created. Upgrade the workspace to add more content.", s.blockLimit, n, s.blocksCreated)}
}
