package notion

import (
	"encoding/json"
	"net/http"
	"slices"
)

// Workspace is everything in the emulator's workspace as a tree, for
// comparing a migration with its source.
type Workspace struct {
	// Pages are the workspace-level pages (the root page among them), each
	// with its sub-pages and databases nested.
	Pages []Page `json:"pages"`
	// Uploads are all file uploads, attached or not, in creation order.
	Uploads []Upload `json:"uploads"`
	// Stats are the request counters at the time of the export.
	Stats Stats `json:"stats"`
}

// Page is one page: its properties (Notion response shape), its content
// blocks, and the pages and databases under it.
type Page struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Parent Parent `json:"parent"`
	// Archived pages are kept in the export and flagged.
	Archived bool `json:"archived"`
	// Shared is false for pages marked as not shared with the integration.
	Shared bool `json:"shared"`
	Icon   any  `json:"icon,omitempty"`
	Cover  any  `json:"cover,omitempty"`
	// Properties are keyed by property name, in Notion's response shape.
	Properties map[string]any `json:"properties"`
	// Blocks are the page's live content blocks in order, children nested;
	// child pages and databases are listed in Pages and Databases instead.
	Blocks    []Block    `json:"blocks"`
	Pages     []Page     `json:"pages,omitempty"`
	Databases []Database `json:"databases,omitempty"`
}

// Parent says where a page or database lives.
type Parent struct {
	// Type is "workspace", "page_id", "database_id" or "block_id".
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
}

// Database is one database with its schema and rows.
type Database struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Archived bool   `json:"archived"`
	// Properties is the schema in Notion's response shape.
	Properties map[string]any `json:"properties"`
	// Rows are the database's pages in creation order, archived ones
	// included and flagged (its first data source's, then the others').
	Rows []Page `json:"rows"`
	// DataSources are the IDs of the database's data sources, in order.
	DataSources []string `json:"data_sources"`
	// Views are the database's views in tab order, in the Views API's
	// response shape (as 2025-09-03 and later render them).
	Views []map[string]any `json:"views"`
}

// Block is one content block. It marshals to Notion's block JSON, children
// nested in the type object, which notion/blocks.Block unmarshals.
type Block struct {
	ID   string
	Type string
	// Content is the block's type object in Notion's response shape,
	// without children. For a media block attached to an upload it holds
	// the hosted file ({"type":"file","file":{…}}).
	Content  map[string]any
	Children []Block
	// File describes the upload attached to a media block, if any.
	File *FileInfo
}

// FileInfo describes an uploaded file attached to a block.
type FileInfo struct {
	UploadID    string `json:"id"`
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	SHA256      string `json:"sha256"`
	URL         string `json:"url"`
}

// Upload is one file upload.
type Upload struct {
	FileInfo
	Mode     string `json:"mode"`
	Status   string `json:"status"`
	Attached bool   `json:"attached"`
}

// MarshalJSON writes the block in Notion's shape. An attached upload is
// written as {"type":"file_upload","file_upload":{id, filename,
// content_type, size, sha256, url}} beside the hosted "file" object.
func (b Block) MarshalJSON() ([]byte, error) {
	body := map[string]any{}
	for k, v := range b.Content {
		body[k] = v
	}
	if len(b.Children) > 0 {
		body["children"] = b.Children
	}
	if b.File != nil {
		body["type"] = "file_upload"
		body["file_upload"] = b.File
	}
	return json.Marshal(map[string]any{"object": "block", "id": b.ID, "type": b.Type, b.Type: body})
}

// Export returns the whole workspace as a tree. File URLs are relative
// to the emulator's address.
func (s *Server) Export() Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.export("")
}

func (s *Server) export(base string) Workspace {
	ws := Workspace{Pages: []Page{}, Uploads: []Upload{}, Stats: s.statsLocked()}
	var roots []*node
	for _, n := range s.nodes {
		if n.parent.typ == parentWorkspace {
			roots = append(roots, n)
		}
	}
	slices.SortFunc(roots, func(a, b *node) int { return int(a.seq - b.seq) })
	for _, n := range roots {
		ws.Pages = append(ws.Pages, s.exportPage(base, n))
	}
	ups := make([]*upload, 0, len(s.uploads))
	for _, u := range s.uploads {
		ups = append(ups, u)
	}
	slices.SortFunc(ups, func(a, b *upload) int {
		if c := a.created.Compare(b.created); c != 0 {
			return c
		}
		return compareStrings(a.id, b.id)
	})
	for _, u := range ups {
		ws.Uploads = append(ws.Uploads, Upload{FileInfo: fileInfo(base, u), Mode: u.mode, Status: s.statusOf(u), Attached: u.attached})
	}
	return ws
}

func fileInfo(base string, u *upload) FileInfo {
	return FileInfo{UploadID: u.id, Filename: u.filename, ContentType: u.contentType,
		Size: len(u.data), SHA256: u.sha256, URL: fileURL(base, u)}
}

// exportParent names a row's parent by its database, as 2022-06-28 does.
func (s *Server) exportParent(p parentRef) Parent {
	if p.typ == parentDataSource {
		if ds := s.nodes[p.id]; ds != nil {
			return Parent{Type: parentDatabase, ID: ds.parent.id}
		}
	}
	return Parent{Type: p.typ, ID: p.id}
}

func (s *Server) exportPage(base string, n *node) Page {
	r := s.renderPage(base, n)
	props, _ := r["properties"].(map[string]any)
	p := Page{ID: n.id, Title: s.plainTitle(n), Parent: s.exportParent(n.parent), Archived: n.archived,
		Shared: s.visible(n), Icon: r["icon"], Cover: r["cover"], Properties: props, Blocks: []Block{}}
	for _, c := range s.liveChildren(n) {
		switch c.kind {
		case kindPage:
			p.Pages = append(p.Pages, s.exportPage(base, c))
		case kindDatabase:
			p.Databases = append(p.Databases, s.exportDatabase(base, c))
		default:
			p.Blocks = append(p.Blocks, s.exportBlock(base, c))
		}
	}
	return p
}

func (s *Server) exportDatabase(base string, n *node) Database {
	d := Database{ID: n.id, Title: s.plainTitle(n), Archived: n.archived, Properties: map[string]any{}, Rows: []Page{},
		DataSources: append([]string{}, n.sources...), Views: []map[string]any{}}
	for i, dsID := range n.sources {
		ds := s.nodes[dsID]
		if i == 0 {
			d.Properties = ds.schema.render()
		}
		for _, id := range ds.rows {
			d.Rows = append(d.Rows, s.exportPage(base, s.nodes[id]))
		}
	}
	for _, id := range n.views {
		d.Views = append(d.Views, s.renderView(s.views[id]))
	}
	return d
}

func (s *Server) exportBlock(base string, n *node) Block {
	b := Block{ID: n.id, Type: n.typ, Content: s.blockContent(base, n)}
	if u := s.uploads[n.uploadID]; u != nil {
		fi := fileInfo(base, u)
		b.File = &fi
	}
	for _, c := range s.liveChildren(n) {
		if c.kind == kindBlock {
			b.Children = append(b.Children, s.exportBlock(base, c))
		}
	}
	return b
}

// serveExport answers GET /_emulator/export with the workspace as JSON.
func (s *Server) serveExport(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ws := s.export(baseURL(r))
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, ws)
}

// serveStats answers GET /_emulator/stats with the request counters.
func (s *Server) serveStats(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.Stats())
}
