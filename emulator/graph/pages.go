package graph

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// listPages answers a pages list: default order lastModifiedDateTime desc,
// 20 per response with @odata.nextLink when $top is absent; with $top (at
// most 100) exactly that window and no nextLink.
func (s *Server) listPages(ar *apiRequest, refs []*sectionRef, context string) response {
	skip, top, hasTop, bad := s.topSkip(ar)
	if bad.status != 0 {
		return bad
	}
	if hasTop && s.currentFaults().IgnoreSkip {
		skip = 0
	}
	pageLevel := ar.query.Get("pagelevel") == "true"
	var items []map[string]any
	for _, sr := range refs {
		for _, p := range sr.section.Pages {
			if p.deleted {
				continue
			}
			items = append(items, s.pageJSON(ar, &pageRef{page: p, section: sr}, true))
		}
	}
	orderBy := ar.query.Get("$orderby")
	if orderBy == "" {
		orderBy = "lastModifiedDateTime desc"
	}
	items = ar.filter.apply(items)
	sortItems(items, orderBy)
	if !pageLevel {
		for _, m := range items {
			delete(m, "level")
			delete(m, "order")
		}
	}
	if !hasTop {
		top = defaultPageSize
	}
	total := len(items)
	items = window(items, skip, top)
	ar.listed = listedIDs(items)
	selectFields(ar, items)
	if items == nil {
		items = []map[string]any{}
	}
	body := map[string]any{
		"@odata.context": ar.base + "/v1.0/$metadata#" + context,
		"value":          items,
	}
	if !hasTop && skip+top < total {
		body["@odata.nextLink"] = ar.base + ar.url.Path + "?" + encodeQuery(ar.query, "$skip", strconv.Itoa(skip+top))
	}
	return jsonResponse(http.StatusOK, body)
}

// encodeQuery encodes q with key set to value, leaving "$" in keys
// unescaped as Graph does.
func encodeQuery(q url.Values, key, value string) string {
	keys := make([]string, 0, len(q)+1)
	for k := range q {
		if k != key {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			b.WriteString(k + "=" + url.QueryEscape(v) + "&")
		}
	}
	b.WriteString(key + "=" + url.QueryEscape(value))
	return b.String()
}
