package notion

import (
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"net/http"
	"slices"
	"strings"
)

// The read-only HTML view of the workspace: GET /_emulator/view (the page
// tree) and GET /_emulator/view/{id} (one page or database). Everything is
// rendered through html/template, so all text is escaped.

//go:embed view.html
var viewHTML string

// viewTemplate is parsed once per server (templates are immutable after
// parsing, so sharing is safe; keeping it on the server avoids a global).
func newViewTemplate() *template.Template {
	return template.Must(template.New("view").Parse(viewHTML))
}

// viewRun is one rich-text run ready for HTML.
type viewRun struct {
	Text                                  string
	Href                                  string
	Bold, Italic, Strike, Underline, Code bool
	Equation                              bool
	Color                                 string
}

// viewBlock is one block ready for HTML. Consecutive list items are
// grouped under a "bulleted_list" or "numbered_list" block.
type viewBlock struct {
	Type       string
	ID         string
	Text       []viewRun
	Caption    []viewRun
	Children   []viewBlock
	Color      string
	Checked    bool
	Language   string
	Expression string
	Icon       string
	URL        string
	Name       string
	// Table.
	ColumnHeader, RowHeader bool
	Rows                    [][][]viewRun
	// child_page, child_database, link_to_page.
	LinkID, LinkTitle string
}

type viewNavItem struct {
	ID, Title, Kind string
	Archived        bool
	Children        []viewNavItem
}

type viewDatabase struct {
	// View names the view shown (the database's first).
	View    string
	Columns []string
	Rows    []viewRow
}

type viewRow struct {
	ID       string
	Archived bool
	Cells    []string
}

type viewPage struct {
	Workspace string
	Nav       []viewNavItem
	// Selected object, if any.
	ID       string
	Kind     string
	Title    string
	Icon     string
	Archived bool
	Props    [][2]string
	Blocks   []viewBlock
	Database *viewDatabase
	NotFound bool
}

func (s *Server) serveView(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	vp := viewPage{Workspace: s.cfg.WorkspaceName, Nav: s.viewNav()}
	if raw := r.PathValue("id"); raw != "" {
		id, _ := normalizeID(raw)
		if n := s.nodes[id]; n != nil && n.kind != kindBlock {
			s.fillView(&vp, n, baseURL(r))
		} else {
			vp.NotFound = true
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if vp.NotFound {
		w.WriteHeader(http.StatusNotFound)
	}
	if err := s.view.Execute(w, vp); err != nil {
		s.log.Error("notion emulator: render view", "err", err)
	}
}

// viewNav is the tree of pages and databases (rows excluded).
func (s *Server) viewNav() []viewNavItem {
	var roots []*node
	for _, n := range s.nodes {
		if n.parent.typ == parentWorkspace {
			roots = append(roots, n)
		}
	}
	slices.SortFunc(roots, func(a, b *node) int { return int(a.seq - b.seq) })
	out := []viewNavItem{}
	for _, n := range roots {
		out = append(out, s.navItem(n))
	}
	return out
}

func (s *Server) navItem(n *node) viewNavItem {
	it := viewNavItem{ID: n.id, Title: titleOr(s.plainTitle(n)), Kind: n.kind, Archived: n.archived}
	for _, id := range n.children {
		if c := s.nodes[id]; c != nil && c.kind != kindBlock {
			it.Children = append(it.Children, s.navItem(c))
		}
	}
	return it
}

func titleOr(t string) string {
	if strings.TrimSpace(t) == "" {
		return "Untitled"
	}
	return t
}

func (s *Server) fillView(vp *viewPage, n *node, base string) {
	vp.ID, vp.Kind, vp.Title, vp.Archived = n.id, n.kind, titleOr(s.plainTitle(n)), n.archived
	if icon, ok := asObject(n.icon); ok && icon["type"] == "emoji" {
		vp.Icon, _ = asString(icon["emoji"])
	}
	if n.kind == kindDatabase {
		vp.Database = s.viewDatabase(n)
		return
	}
	if n.parent.typ == parentDataSource {
		if db := s.nodes[n.parent.id]; db != nil {
			r := s.renderPage(base, n)
			props, _ := r["properties"].(map[string]any)
			for _, p := range db.schema.props {
				if p.typ != "title" {
					vp.Props = append(vp.Props, [2]string{p.name, propertyText(props[p.name])})
				}
			}
		}
	}
	vp.Blocks = s.viewBlocks(base, s.liveChildren(n))
}

// viewDatabase shows database db as its first view shows it: that view's
// data source, its filter and sorts, the title first and then the
// properties it shows in its order (properties it does not list come
// after, shown: choice). Without a view, every property of the first data
// source in creation order.
func (s *Server) viewDatabase(db *node) *viewDatabase {
	vd := &viewDatabase{}
	var v *dbView
	if len(db.views) > 0 {
		v = s.views[db.views[0]]
	}
	var ds *node
	switch {
	case v != nil:
		ds, vd.View = s.nodes[v.ds], v.name
	case len(db.sources) > 0:
		ds = s.nodes[db.sources[0]]
	}
	if ds == nil {
		return vd
	}
	props := s.viewColumns(ds.schema, v)
	for _, p := range props {
		vd.Columns = append(vd.Columns, p.name)
	}
	match := func(*node) bool { return true }
	order := func(a, b *node) int { return cmp.Compare(a.seq, b.seq) }
	if v != nil {
		if v.filter != nil {
			if f, err := s.compileFilter("filter", v.filter, ds.schema, 0); err == nil {
				match = f
			}
		}
		if v.sorts != nil {
			sorts := make([]any, len(v.sorts))
			for i, so := range v.sorts {
				sorts[i] = map[string]any(so)
			}
			if o, err := s.compileSorts(sorts, ds.schema); err == nil {
				order = o
			}
		}
	}
	rows := []*node{}
	for _, id := range ds.rows {
		if row := s.nodes[id]; match(row) {
			rows = append(rows, row)
		}
	}
	slices.SortStableFunc(rows, order)
	for _, row := range rows {
		r := s.renderPage("", row)
		values, _ := r["properties"].(map[string]any)
		vr := viewRow{ID: row.id, Archived: row.archived}
		for _, p := range props {
			if p.typ == "relation" {
				vr.Cells = append(vr.Cells, s.relationText(values[p.name]))
				continue
			}
			vr.Cells = append(vr.Cells, propertyText(values[p.name]))
		}
		vd.Rows = append(vd.Rows, vr)
	}
	return vd
}

// viewColumns are the properties view v shows, title first.
func (s *Server) viewColumns(sc *schema, v *dbView) []*propSchema {
	var out []*propSchema
	if v != nil && v.config != nil {
		listed := map[string]bool{}
		for _, vp := range v.config.props {
			listed[vp.id] = true
			if p := sc.byKey(vp.id); p != nil && vp.visible {
				out = append(out, p)
			}
		}
		for _, p := range sc.props {
			if !listed[p.id] {
				out = append(out, p)
			}
		}
	} else {
		out = slices.Clone(sc.props)
	}
	slices.SortStableFunc(out, func(a, b *propSchema) int { return boolInt(b.typ == "title") - boolInt(a.typ == "title") })
	if len(out) == 0 || out[0].typ != "title" {
		// The title is the link to the row: always shown.
		for _, p := range sc.props {
			if p.typ == "title" {
				out = append([]*propSchema{p}, out...)
			}
		}
	}
	return out
}

// relationText renders a relation as the titles of its pages, as Notion
// shows it.
func (s *Server) relationText(v any) string {
	m, _ := asObject(v)
	arr, _ := asArray(m["relation"])
	names := make([]string, 0, len(arr))
	for _, it := range arr {
		im, _ := asObject(it)
		id, _ := asString(im["id"])
		if nid, ok := normalizeID(id); ok && s.nodes[nid] != nil {
			names = append(names, titleOr(s.plainTitle(s.nodes[nid])))
		} else {
			names = append(names, id)
		}
	}
	return strings.Join(names, ", ")
}

// propertyText renders a property value as plain text.
func propertyText(v any) string {
	m, ok := asObject(v)
	if !ok {
		return ""
	}
	typ, _ := asString(m["type"])
	switch val := m[typ].(type) {
	case nil:
		return ""
	case []any:
		if typ == "title" || typ == "rich_text" {
			return plainText(val)
		}
		parts := make([]string, 0, len(val))
		for _, it := range val {
			im, _ := asObject(it)
			if name, ok := asString(im["name"]); ok {
				parts = append(parts, name)
			} else if id, ok := asString(im["id"]); ok {
				parts = append(parts, id)
			}
		}
		return strings.Join(parts, ", ")
	case map[string]any:
		return textOf(val)
	case bool:
		if val {
			return "✓"
		}
		return "✗"
	default:
		return fmt.Sprint(val)
	}
}

func viewRuns(v any) []viewRun {
	arr, _ := asArray(v)
	out := make([]viewRun, 0, len(arr))
	for _, item := range arr {
		m, _ := asObject(item)
		r := viewRun{Text: textOf([]any{m}), Equation: m["type"] == "equation"}
		r.Href, _ = asString(m["href"])
		if a, ok := asObject(m["annotations"]); ok {
			r.Bold, _ = asBool(a["bold"])
			r.Italic, _ = asBool(a["italic"])
			r.Strike, _ = asBool(a["strikethrough"])
			r.Underline, _ = asBool(a["underline"])
			r.Code, _ = asBool(a["code"])
			if c, _ := asString(a["color"]); c != "default" {
				r.Color = c
			}
		}
		out = append(out, r)
	}
	return out
}

func (s *Server) viewBlocks(base string, nodes []*node) []viewBlock {
	out := []viewBlock{}
	for _, n := range nodes {
		vb := s.viewBlock(base, n)
		listType := ""
		switch n.typ {
		case "bulleted_list_item":
			listType = "bulleted_list"
		case "numbered_list_item":
			listType = "numbered_list"
		}
		if listType == "" {
			out = append(out, vb)
			continue
		}
		if len(out) == 0 || out[len(out)-1].Type != listType {
			out = append(out, viewBlock{Type: listType})
		}
		last := &out[len(out)-1]
		last.Children = append(last.Children, vb)
	}
	return out
}

func (s *Server) viewBlock(base string, n *node) viewBlock {
	vb := viewBlock{Type: n.typ, ID: n.id}
	if n.kind != kindBlock {
		vb.LinkID, vb.LinkTitle = n.id, titleOr(s.plainTitle(n))
		return vb
	}
	c := s.blockContent(base, n)
	vb.Text = viewRuns(c["rich_text"])
	vb.Caption = viewRuns(c["caption"])
	vb.Color, _ = asString(c["color"])
	if vb.Color == "default" {
		vb.Color = ""
	}
	vb.Checked, _ = asBool(c["checked"])
	vb.Language, _ = asString(c["language"])
	vb.Expression, _ = asString(c["expression"])
	vb.Name, _ = asString(c["name"])
	if icon, ok := asObject(c["icon"]); ok {
		vb.Icon, _ = asString(icon["emoji"])
	}
	vb.URL, _ = asString(c["url"])
	for _, src := range []string{"file", "external"} {
		if f, ok := asObject(c[src]); ok {
			vb.URL, _ = asString(f["url"])
		}
	}
	switch n.typ {
	case "table":
		vb.ColumnHeader, _ = asBool(c["has_column_header"])
		vb.RowHeader, _ = asBool(c["has_row_header"])
		for _, row := range s.liveChildren(n) {
			cells, _ := asArray(row.content["cells"])
			vr := make([][]viewRun, len(cells))
			for i, cell := range cells {
				vr[i] = viewRuns(cell)
			}
			vb.Rows = append(vb.Rows, vr)
		}
		return vb
	case "link_to_page":
		for _, k := range []string{"page_id", "database_id"} {
			if id, ok := asString(c[k]); ok {
				vb.LinkID = id
				if t := s.nodes[id]; t != nil {
					vb.LinkTitle = titleOr(s.plainTitle(t))
				} else {
					vb.LinkTitle = id
				}
			}
		}
	}
	vb.Children = s.viewBlocks(base, s.liveChildren(n))
	return vb
}
