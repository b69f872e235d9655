package notion

import (
	"net/url"
	"strings"
	"time"
)

// Rendering of stored nodes in Notion's 2022-06-28 response shapes. Callers
// hold s.mu.

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// stamp is the time a write records as created_time or last_edited_time:
// now, rounded down to the minute, as Notion keeps them ([N5]). Two
// objects made in the same minute tie.
func (s *Server) stamp() time.Time { return s.now().UTC().Truncate(time.Minute) }

// minute rounds t down to the minute (upload timestamps are kept exact for
// expiry and shown rounded).
func minute(t time.Time) time.Time { return t.UTC().Truncate(time.Minute) }

func (s *Server) userRef() map[string]any {
	return map[string]any{"object": "user", "id": s.botID}
}

// editorRef is who last edited n: the person of PersonEditText, or the
// integration.
func (s *Server) editorRef(n *node) map[string]any {
	if n.editedBy != "" {
		return map[string]any{"object": "user", "id": n.editedBy}
	}
	return s.userRef()
}

func parentJSON(p parentRef) map[string]any {
	if p.typ == parentWorkspace {
		return map[string]any{"type": "workspace", "workspace": true}
	}
	return map[string]any{"type": p.typ, p.typ: p.id}
}

// fileURL is where the emulator serves an upload's bytes.
func fileURL(base string, u *upload) string {
	return base + "/_emulator/files/" + u.id + "/" + url.PathEscape(u.filename)
}

// hostedFile is the {"url","expiry_time"} object of a Notion-hosted file.
func (s *Server) hostedFile(base, uploadID string) map[string]any {
	u := s.uploads[uploadID]
	if u == nil {
		return map[string]any{"url": "", "expiry_time": timestamp(s.now().Add(time.Hour))}
	}
	return map[string]any{"url": fileURL(base, u), "expiry_time": timestamp(s.now().Add(time.Hour))}
}

// renderIcon turns a stored icon into its response shape (file uploads
// become Notion-hosted files).
func (s *Server) renderIcon(base string, icon any) any {
	m, ok := asObject(icon)
	if !ok || m == nil {
		return nil
	}
	if id := iconUploadID(m); id != "" {
		return map[string]any{"type": "file", "file": s.hostedFile(base, id)}
	}
	return clone(m)
}

// blockContent is a block's type object in response shape.
func (s *Server) blockContent(base string, n *node) map[string]any {
	switch n.kind {
	case kindPage:
		return map[string]any{"title": s.plainTitle(n)}
	case kindDatabase:
		return map[string]any{"title": s.plainTitle(n)}
	}
	c, _ := clone(n.content).(map[string]any)
	if n.uploadID != "" {
		c["type"] = "file"
		c["file"] = s.hostedFile(base, n.uploadID)
	}
	if _, ok := c["name"]; n.typ == "file" && !ok {
		// A file block always has a name ([N4]): the upload's filename,
		// or the last segment of an external URL.
		c["name"] = s.fileBlockName(n)
	}
	if icon, ok := c["icon"]; ok {
		c["icon"] = s.renderIcon(base, icon)
	} else if n.typ == "paragraph" && dataSources(s.speaks()) {
		c["icon"] = nil // paragraphs carry an icon since 2025-09-03 ([N4], SDK 5.26.0 types)
	}
	return c
}

func (s *Server) renderBlock(base string, n *node) map[string]any {
	return s.trashFlags(map[string]any{
		"object":           "block",
		"id":               n.id,
		"parent":           parentJSON(n.parent),
		"created_time":     timestamp(n.created),
		"last_edited_time": timestamp(n.edited),
		"created_by":       s.userRef(),
		"last_edited_by":   s.editorRef(n),
		"has_children":     len(s.liveChildren(n)) > 0,
		"type":             n.typ,
		n.typ:              s.blockContent(base, n),
	}, n.archived)
}

func (s *Server) renderPage(base string, n *node) map[string]any {
	props := map[string]any{}
	for k, v := range n.properties {
		props[k] = clone(v)
	}
	if n.parent.typ == parentDataSource {
		s.fillComputedProperties(n, props)
		s.renderFiles(base, props)
	}
	out := s.trashFlags(map[string]any{
		"object":           "page",
		"id":               n.id,
		"created_time":     timestamp(n.created),
		"last_edited_time": timestamp(n.edited),
		"created_by":       s.userRef(),
		"last_edited_by":   s.editorRef(n),
		"cover":            s.renderIcon(base, n.cover),
		"icon":             s.renderIcon(base, n.icon),
		"parent":           s.rowParentJSON(n.parent),
		"properties":       props,
		"url":              "https://www.notion.so/" + compactID(n.id),
		"public_url":       nil,
	}, n.archived)
	if dataSources(s.speaks()) {
		out["is_locked"], out["is_archived"] = false, false
	}
	return out
}

// renderDatabase is a database as the request's version shows it:
// 2022-06-28 gives its one data source's properties, newer versions list
// its data_sources instead.
func (s *Server) renderDatabase(base string, n *node) map[string]any {
	out := s.trashFlags(map[string]any{
		"object":           "database",
		"id":               n.id,
		"created_time":     timestamp(n.created),
		"last_edited_time": timestamp(n.edited),
		"created_by":       s.userRef(),
		"last_edited_by":   s.editorRef(n),
		"title":            clone(n.title),
		"description":      descriptionOf(n),
		"icon":             s.renderIcon(base, n.icon),
		"cover":            s.renderIcon(base, n.cover),
		"parent":           parentJSON(n.parent),
		"url":              "https://www.notion.so/" + compactID(n.id),
		"public_url":       nil,
		"is_inline":        false,
	}, n.archived)
	if dataSources(s.speaks()) {
		// The 5.x SDK's DatabaseObjectResponse has no created_by or
		// last_edited_by.
		delete(out, "created_by")
		delete(out, "last_edited_by")
		refs := []any{}
		for _, ds := range s.liveSources(n) {
			refs = append(refs, map[string]any{"id": ds.id, "name": plainText(ds.title)})
		}
		out["data_sources"] = refs
		out["is_locked"] = false
		return out
	}
	var props *schema
	if ds := s.liveSources(n); len(ds) > 0 {
		props = ds[0].schema
	}
	out["properties"] = s.renderSchema(props)
	return out
}

// list is Notion's paginated list shape.
func list(results []any, next string, typ string) map[string]any {
	var cursor any
	if next != "" {
		cursor = next
	}
	return map[string]any{
		"object":      "list",
		"results":     results,
		"next_cursor": cursor,
		"has_more":    next != "",
		"type":        typ,
		typ:           map[string]any{},
	}
}

func descriptionOf(n *node) []any {
	if n.description == nil {
		return []any{}
	}
	return clone(n.description).([]any)
}

// fileBlockName is the name a file block shows when the request gave none.
func (s *Server) fileBlockName(n *node) string {
	if u := s.uploads[n.uploadID]; u != nil {
		return u.filename
	}
	ext, _ := asObject(n.content["external"])
	raw, _ := asString(ext["url"])
	if u, err := url.Parse(raw); err == nil {
		if i := strings.LastIndex(u.Path, "/"); i >= 0 && i < len(u.Path)-1 {
			if name, err := url.PathUnescape(u.Path[i+1:]); err == nil {
				return name
			}
		}
	}
	return ""
}
