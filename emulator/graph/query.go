package graph

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Page sizes of the pages list.
const (
	defaultPageSize = 20
	maxTop          = 100
)

// expandItem is one parsed OData $expand item, e.g.
// sectionGroups(levels=max;expand=sections).
type expandItem struct {
	name string
	// levels is how many nested levels of the same item to expand: 1 by
	// default, -1 for max.
	levels int
	sub    []expandItem
}

// parseExpand parses an OData $expand value. Unknown options are ignored.
func parseExpand(s string) []expandItem {
	var items []expandItem
	for _, part := range splitTop(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		it := expandItem{name: part, levels: 1}
		if i := strings.IndexByte(part, '('); i >= 0 && strings.HasSuffix(part, ")") {
			it.name = strings.TrimSpace(part[:i])
			for _, opt := range splitTop(part[i+1:len(part)-1], ';') {
				k, v, _ := strings.Cut(strings.TrimSpace(opt), "=")
				switch strings.TrimPrefix(strings.ToLower(k), "$") {
				case "expand":
					it.sub = parseExpand(v)
				case "levels":
					if v == "max" {
						it.levels = -1
					} else if n, err := strconv.Atoi(v); err == nil && n > 0 {
						it.levels = n
					}
				}
			}
		}
		items = append(items, it)
	}
	return items
}

// splitTop splits s at sep outside parentheses.
func splitTop(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// expandContainer adds the expanded sections and sectionGroups of a
// notebook or section group to m.
func (s *Server) expandContainer(ar *apiRequest, m map[string]any, secs []*Section, groups []*SectionGroup, expand []expandItem) {
	for _, it := range expand {
		switch it.name {
		case "sections":
			m["sections"] = s.sectionsJSON(ar, secs)
		case "sectionGroups":
			sub := it.sub
			if it.levels == -1 || it.levels > 1 {
				next := it
				if next.levels > 1 {
					next.levels--
				}
				sub = append(slices.Clone(sub), next)
			}
			list := make([]map[string]any, 0, len(groups))
			for _, g := range groups {
				list = append(list, s.groupJSONExpanded(ar, g, dedupeExpand(sub)))
			}
			m["sectionGroups"] = list
		}
	}
}

// dedupeExpand keeps the last item of each name, so a recursive
// sectionGroups item replaces a shallower one given alongside it.
func dedupeExpand(items []expandItem) []expandItem {
	out := make([]expandItem, 0, len(items))
	for i, it := range items {
		later := slices.ContainsFunc(items[i+1:], func(o expandItem) bool { return o.name == it.name })
		if !later {
			out = append(out, it)
		}
	}
	return out
}

// sortItems sorts items by an OData $orderby ("field [asc|desc], ...").
// Strings compare as strings (Graph timestamps sort correctly that way),
// numbers as numbers. The sort is stable.
func sortItems(items []map[string]any, orderBy string) {
	type key struct {
		field string
		desc  bool
	}
	var keys []key
	for _, part := range strings.Split(orderBy, ",") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		keys = append(keys, key{field: f[0], desc: len(f) > 1 && strings.EqualFold(f[1], "desc")})
	}
	sort.SliceStable(items, func(i, j int) bool {
		for _, k := range keys {
			c := compareValues(items[i][k.field], items[j][k.field])
			if c != 0 {
				return (c < 0) != k.desc
			}
		}
		return false
	})
}

func compareValues(a, b any) int {
	switch av := a.(type) {
	case string:
		bv, _ := b.(string)
		return strings.Compare(strings.ToLower(av), strings.ToLower(bv))
	case int:
		bv, _ := b.(int)
		return cmp.Compare(av, bv)
	}
	return 0
}

// selectFields keeps only the $select fields of each item.
func selectFields(items []map[string]any, sel string) {
	if sel == "" {
		return
	}
	keep := make(map[string]bool)
	for _, f := range strings.Split(sel, ",") {
		keep[strings.TrimSpace(f)] = true
	}
	for _, m := range items {
		for k := range m {
			if !keep[k] {
				delete(m, k)
			}
		}
	}
}

// entity answers a single object.
func (s *Server) entity(ar *apiRequest, context string, m map[string]any) response {
	selectFields([]map[string]any{m}, ar.query.Get("$select"))
	m["@odata.context"] = ar.base + "/v1.0/$metadata#" + context
	return jsonResponse(http.StatusOK, m)
}

// collection answers a small collection: $orderby, $skip, $top and
// $select apply; there is no server-side paging.
func (s *Server) collection(ar *apiRequest, context string, items []map[string]any) response {
	if ob := ar.query.Get("$orderby"); ob != "" {
		sortItems(items, ob)
	}
	skip, top, _, bad := s.topSkip(ar)
	if bad.status != 0 {
		return bad
	}
	items = window(items, skip, top)
	selectFields(items, ar.query.Get("$select"))
	if items == nil {
		items = []map[string]any{}
	}
	return jsonResponse(http.StatusOK, map[string]any{
		"@odata.context": ar.base + "/v1.0/$metadata#" + context,
		"value":          items,
	})
}

// topSkip parses $skip and $top. top is -1 when $top is absent.
func (s *Server) topSkip(ar *apiRequest) (skip, top int, hasTop bool, bad response) {
	top = -1
	if v := ar.query.Get("$skip"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, false, graphError(http.StatusBadRequest, "BadRequest", "Invalid $skip value.", ar.requestID, s.now())
		}
		skip = n
	}
	if v := ar.query.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, false, graphError(http.StatusBadRequest, "BadRequest", "Invalid $top value.", ar.requestID, s.now())
		}
		if n > maxTop {
			return 0, 0, false, graphError(http.StatusBadRequest, "20129", "", ar.requestID, s.now())
		}
		top, hasTop = n, true
	}
	return skip, top, hasTop, response{}
}

func window[T any](items []T, skip, top int) []T {
	if skip >= len(items) {
		return nil
	}
	items = items[skip:]
	if top >= 0 && top < len(items) {
		items = items[:top]
	}
	return items
}

// parseQuery parses a raw query string like url.ParseQuery but splits on
// "&" only: OData options such as $expand=sectionGroups(levels=max;expand=sections)
// carry semicolons, which net/url rejects.
func parseQuery(raw string) url.Values {
	q := url.Values{}
	for _, pair := range strings.Split(raw, "&") {
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		q.Add(k, v)
	}
	return q
}
