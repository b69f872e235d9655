package graph

import (
	"cmp"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// Page sizes of the pages list.
const (
	defaultPageSize = 20
	maxTop          = 100
)

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

// selectFields keeps only the $select fields of each item, plus the
// navigation properties $expand asked for.
func selectFields(ar *apiRequest, items []map[string]any) {
	trimFields(items, splitFields(ar.query.Get("$select")), expandNames(ar.expand))
}

// entity answers a single object.
func (s *Server) entity(ar *apiRequest, context string, m map[string]any) response {
	selectFields(ar, []map[string]any{m})
	m["@odata.context"] = ar.base + "/v1.0/$metadata#" + context
	return jsonResponse(http.StatusOK, m)
}

// collection answers a small collection: $filter, $orderby (default
// displayName asc), $skip, $top and $select apply; there is no server-side
// paging.
func (s *Server) collection(ar *apiRequest, context string, items []map[string]any) response {
	items = ar.filter.apply(items)
	ob := ar.query.Get("$orderby")
	if ob == "" {
		// Notebooks, section groups and sections sort by name by default
		// (doc, as recorded by [M1]).
		ob = "displayName asc"
	}
	sortItems(items, ob)
	skip, top, _, bad := s.topSkip(ar)
	if bad.status != 0 {
		return bad
	}
	items = window(items, skip, top)
	selectFields(ar, items)
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
			return 0, 0, false, s.errorFor(ar, http.StatusBadRequest, "BadRequest", "Invalid $skip value.")
		}
		skip = n
	}
	if v := ar.query.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, 0, false, s.errorFor(ar, http.StatusBadRequest, "BadRequest", "Invalid $top value.")
		}
		if n > maxTop {
			return 0, 0, false, s.errorFor(ar, http.StatusBadRequest, "20129", "")
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
