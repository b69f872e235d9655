package graph

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// maxExpandDepth is how deep $expand may nest. Real Graph answers 400 to
// a third level (reference fact 1, [M1]); two is also the default
// MaxExpansionDepth of the OData stack Graph is built on, whose validation
// message the emulator's error paraphrases.
const maxExpandDepth = 2

// entityKind names a OneNote entity type, for $expand validation.
type entityKind string

const (
	kindNotebook     entityKind = "notebook"
	kindSectionGroup entityKind = "sectionGroup"
	kindSection      entityKind = "section"
	kindPage         entityKind = "page"
)

// expandable lists each entity's navigation properties and the kind each
// one leads to (documented in "Get OneNote content", and [M1]).
var expandable = map[entityKind]map[string]entityKind{
	kindNotebook:     {"sections": kindSection, "sectionGroups": kindSectionGroup},
	kindSectionGroup: {"sections": kindSection, "sectionGroups": kindSectionGroup, "parentNotebook": kindNotebook, "parentSectionGroup": kindSectionGroup},
	kindSection:      {"parentNotebook": kindNotebook, "parentSectionGroup": kindSectionGroup},
	kindPage:         {"parentNotebook": kindNotebook, "parentSection": kindSection},
}

// collectionKinds maps a path segment to the kind of entity it lists.
var collectionKinds = map[string]entityKind{
	"notebooks": kindNotebook, "sectionGroups": kindSectionGroup, "sections": kindSection, "pages": kindPage,
}

// expandItem is one parsed $expand item with its nested options, e.g.
// sectionGroups($select=id,displayName;$expand=sections($select=id)).
type expandItem struct {
	name string
	// sel lists the $select fields of the clause; nil keeps every field.
	sel []string
	sub []expandItem
}

// queryError is a 400 a malformed OData query gets.
type queryError struct {
	code, message string
}

func (e *queryError) response(s *Server, ar *apiRequest) response {
	return s.errorFor(ar, http.StatusBadRequest, e.code, e.message)
}

// tooDeep is the answer to a third $expand level or any $levels option.
var tooDeep = &queryError{code: "20143", message: fmt.Sprintf("The request includes a $expand path which is too deep. The maximum depth allowed is %d.", maxExpandDepth)}

// parseExpand parses and validates a $expand value for an entity of kind:
// at most maxExpandDepth levels, only that entity's navigation properties,
// $select and $expand inside a clause (separated by ";"), no $levels, and
// no expansion of a parent from a child list or of children from a parent
// (20142).
func parseExpand(s string, kind entityKind) ([]expandItem, *queryError) {
	return parseExpandAt(s, kind, "", 1)
}

func parseExpandAt(s string, kind entityKind, via string, depth int) ([]expandItem, *queryError) {
	var items []expandItem
	for _, part := range splitTop(s, ',') {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if depth > maxExpandDepth {
			return nil, tooDeep
		}
		it := expandItem{name: part}
		opts := ""
		if i := strings.IndexByte(part, '('); i >= 0 {
			if !strings.HasSuffix(part, ")") {
				return nil, &queryError{code: "20128", message: fmt.Sprintf("Syntax error in $expand: %q has no closing parenthesis.", part)}
			}
			it.name, opts = strings.TrimSpace(part[:i]), part[i+1:len(part)-1]
		}
		next, ok := expandable[kind][it.name]
		if !ok {
			return nil, &queryError{code: "20145", message: fmt.Sprintf("The $expand expression contains an invalid term: %q is not a navigation property of %s.", it.name, kind)}
		}
		if circular(via, it.name) {
			return nil, &queryError{code: "20142", message: fmt.Sprintf("Expanding %q through %q refers back to the entity it came from, which is not supported.", it.name, via)}
		}
		for _, opt := range splitTop(opts, ';') {
			opt = strings.TrimSpace(opt)
			if opt == "" {
				continue
			}
			k, v, _ := strings.Cut(opt, "=")
			switch strings.ToLower(strings.TrimPrefix(strings.TrimSpace(k), "$")) {
			case "select":
				it.sel = splitFields(v)
			case "expand":
				sub, err := parseExpandAt(v, next, it.name, depth+1)
				if err != nil {
					return nil, err
				}
				it.sub = sub
			case "levels":
				return nil, tooDeep
			default:
				return nil, &queryError{code: "20108", message: fmt.Sprintf("The nested query option %q in $expand is not supported; use $select and $expand.", strings.TrimSpace(k))}
			}
		}
		items = append(items, it)
	}
	return items, nil
}

// circular reports whether expanding name under via goes back up the
// tree it came down (or down the tree it came up).
func circular(via, name string) bool {
	if via == "" {
		return false
	}
	down := func(n string) bool { return n == "sections" || n == "sectionGroups" }
	return down(via) != down(name)
}

// splitFields splits a $select list.
func splitFields(v string) []string {
	var out []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
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

// expandNames returns the names of items (the navigation properties a
// $select must keep).
func expandNames(items []expandItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, it.name)
	}
	return out
}

// expandContainer adds the expanded sections and sectionGroups of a
// notebook or section group to m, each trimmed to its clause's $select.
func (s *Server) expandContainer(ar *apiRequest, m map[string]any, secs []*Section, groups []*SectionGroup, expand []expandItem) {
	for _, it := range expand {
		switch it.name {
		case "sections":
			list := make([]map[string]any, 0, len(secs))
			for _, sec := range secs {
				list = append(list, s.sectionJSONExpanded(ar, sec, it.sub))
			}
			trimFields(list, it.sel, expandNames(it.sub))
			m["sections"] = list
		case "sectionGroups":
			list := make([]map[string]any, 0, len(groups))
			for _, g := range groups {
				list = append(list, s.groupJSONExpanded(ar, g, it.sub))
			}
			trimFields(list, it.sel, expandNames(it.sub))
			m["sectionGroups"] = list
		}
	}
	expandParents(m, expand)
}

// expandParents trims the parent references already in m (Graph returns
// parentNotebook, parentSectionGroup and parentSection with every item) to
// their clause's $select.
func expandParents(m map[string]any, expand []expandItem) {
	for _, it := range expand {
		if !strings.HasPrefix(it.name, "parent") {
			continue
		}
		if ref, ok := m[it.name].(map[string]any); ok {
			trimFields([]map[string]any{ref}, it.sel, nil)
		}
	}
}

// trimFields keeps only the sel fields (plus the expanded navigation
// properties keep) of each item; a nil sel keeps everything.
func trimFields(items []map[string]any, sel, keep []string) {
	if len(sel) == 0 {
		return
	}
	for _, m := range items {
		for k := range m {
			if !slices.Contains(sel, k) && !slices.Contains(keep, k) && !strings.HasPrefix(k, "@odata.") {
				delete(m, k)
			}
		}
	}
}
