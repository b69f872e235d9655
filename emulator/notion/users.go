package notion

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// GET /v1/users/me and POST /v1/search. Handlers run with s.mu held.

func (s *Server) usersMe(c *call) (any, error) { return s.botUser(), nil }

// botUser is the integration's bot user. Its workspace_limits carry the
// workspace's per-file upload cap (reference row 16).
func (s *Server) botUser() map[string]any {
	return map[string]any{
		"object":     "user",
		"id":         s.botID,
		"name":       "Note Bridge",
		"avatar_url": nil,
		"type":       "bot",
		"bot": map[string]any{
			"owner":          map[string]any{"type": "workspace", "workspace": true},
			"workspace_name": s.cfg.WorkspaceName,
			"workspace_limits": map[string]any{
				"max_file_upload_size_in_bytes": s.cfg.MaxFileUploadBytes,
			},
		},
	}
}

// listUsers answers GET /v1/users: the workspace's members (guests are not
// members and are not listed) and the bot, paginated. The members are
// generated from Config.Members, so a client can count them.
func (s *Server) listUsers(c *call) (any, error) {
	q := c.r.URL.Query()
	size := maxPageSize
	if raw := q.Get("page_size"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > maxPageSize {
			return nil, bodyError("query.page_size", "should be a number between 1 and %d, instead was `%s`", maxPageSize, raw)
		}
		size = n
	}
	ids := make([]string, 0, s.cfg.Members+1)
	for i := range s.cfg.Members {
		ids = append(ids, memberID(i))
	}
	ids = append(ids, s.botID)
	page, next, err := paginate(ids, q.Get("start_cursor"), size, "query")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		if id == s.botID {
			results[i] = s.botUser()
			continue
		}
		results[i] = map[string]any{"object": "user", "id": id, "type": "person",
			"name": "Member " + id[len(id)-4:], "avatar_url": nil, "person": map[string]any{}}
	}
	return list(results, next, "user"), nil
}

// memberID is the stable ID of the workspace's i-th member.
func memberID(i int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", i+1) }

// search matches titles of visible, live pages and databases containing
// body.query (case-insensitive), sorted by last_edited_time (body.sort,
// newest first by default); results are complete and immediate, unlike
// Notion's index.
func (s *Server) search(c *call) (any, error) {
	if err := allowKeys("body", c.body, "query", "filter", "sort", "start_cursor", "page_size"); err != nil {
		return nil, err
	}
	size, err := pageSize(c.body["page_size"], "body")
	if err != nil {
		return nil, err
	}
	q, _ := asString(c.body["query"])
	q = strings.ToLower(q)
	// 2025-09-03 on, search lists data sources where 2022-06-28 lists
	// databases (upgrade guide 2025-09-03).
	table := kindDatabase
	if dataSources(c.version()) {
		table = kindDataSource
	}
	want := ""
	if f, ok := asObject(c.body["filter"]); ok {
		want, _ = asString(f["value"])
		if want != "page" && want != table {
			return nil, bodyError("body.filter.value", "should be `page` or `%s`, instead was `%s`", table, brief(f["value"]))
		}
	}
	nodes := []*node{}
	for _, n := range s.nodes {
		trashed := n.archived || (n.kind == kindDataSource && s.nodes[n.parent.id].archived)
		if (n.kind != kindPage && n.kind != table) || trashed || !s.visible(n) || (want != "" && n.kind != want) {
			continue
		}
		if strings.Contains(strings.ToLower(s.plainTitle(n)), q) {
			nodes = append(nodes, n)
		}
	}
	sign := -1 // newest edit first, Notion's default
	if raw, ok := c.body["sort"]; ok && raw != nil {
		so, ok := asObject(raw)
		if !ok {
			return nil, wrongType("body.sort", "an object", raw)
		}
		if ts, _ := asString(so["timestamp"]); ts != "last_edited_time" {
			return nil, bodyError("body.sort.timestamp", "should be `last_edited_time`, instead was `%s`", brief(so["timestamp"]))
		}
		switch dir, _ := asString(so["direction"]); dir {
		case "ascending":
			sign = 1
		case "descending":
		default:
			return nil, bodyError("body.sort.direction", "should be `ascending` or `descending`, instead was `%s`", brief(so["direction"]))
		}
	}
	// last_edited_time is kept to the minute; ties come by ID, as in
	// sorted queries.
	slices.SortFunc(nodes, func(a, b *node) int {
		if c := a.edited.Compare(b.edited); c != 0 {
			return sign * c
		}
		return compareStrings(a.id, b.id)
	})
	ids := make([]string, len(nodes))
	for i, n := range nodes {
		ids[i] = n.id
	}
	cursor, _ := asString(c.body["start_cursor"])
	page, next, err := paginate(ids, cursor, size, "body")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		n := s.nodes[id]
		switch n.kind {
		case kindPage:
			results[i] = s.renderPage(c.base, n)
		case kindDataSource:
			results[i] = s.renderDataSource(c.base, n)
		default:
			results[i] = s.renderDatabase(c.base, n)
		}
	}
	return list(results, next, s.pagesOrTables()), nil
}
