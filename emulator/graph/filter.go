package graph

import (
	"fmt"
	"strconv"
	"strings"
)

// filterClause is one "<field> eq|ne <value>" comparison of a $filter.
type filterClause struct {
	path  []string // e.g. parentNotebook, id
	lower bool     // tolower(field)
	ne    bool
	value any // string, float64 or bool
}

// itemFilter is a parsed $filter: clauses joined by "and". A nil filter
// keeps everything.
type itemFilter []filterClause

// parseFilter parses the $filter subset the emulator understands:
// comparisons "<field> eq <value>" and "<field> ne <value>", optionally
// with tolower(<field>), joined by "and"; a field may be a path such as
// parentNotebook/id; values are quoted strings, numbers, true or false.
// Anything else answers 400 with code 20106 (unsupported operator), so a
// client never gets an unfiltered answer it did not ask for.
func parseFilter(s string) (itemFilter, *queryError) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var f itemFilter
	for _, part := range splitAnd(s) {
		c, err := parseClause(strings.TrimSpace(part))
		if err != nil {
			return nil, &queryError{code: "20106", message: fmt.Sprintf("$filter %q: %v. The emulator supports eq and ne comparisons, tolower() and and.", s, err)}
		}
		f = append(f, c)
	}
	return f, nil
}

// splitAnd splits s at " and " outside quotes.
func splitAnd(s string) []string {
	var out []string
	quoted, start := false, 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\'':
			quoted = !quoted
		case !quoted && i+5 <= len(s) && strings.EqualFold(s[i:i+5], " and "):
			out = append(out, s[start:i])
			start = i + 5
			i += 4
		}
	}
	return append(out, s[start:])
}

func parseClause(s string) (filterClause, error) {
	var c filterClause
	field, rest, ok := strings.Cut(s, " ")
	if !ok {
		return c, fmt.Errorf("%q is not a comparison", s)
	}
	if inner, ok := strings.CutPrefix(field, "tolower("); ok && strings.HasSuffix(inner, ")") {
		field, c.lower = strings.TrimSuffix(inner, ")"), true
	}
	if strings.ContainsAny(field, "()") {
		return c, fmt.Errorf("function %q is not supported", field)
	}
	c.path = strings.Split(field, "/")
	op, lit, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok {
		return c, fmt.Errorf("%q has no value", s)
	}
	switch strings.ToLower(op) {
	case "eq":
	case "ne":
		c.ne = true
	default:
		return c, fmt.Errorf("operator %q is not supported", op)
	}
	lit = strings.TrimSpace(lit)
	switch {
	case len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'':
		c.value = strings.ReplaceAll(lit[1:len(lit)-1], "''", "'")
	case lit == "true" || lit == "false":
		c.value = lit == "true"
	default:
		n, err := strconv.ParseFloat(lit, 64)
		if err != nil {
			return c, fmt.Errorf("value %q is not a string, number or boolean", lit)
		}
		c.value = n
	}
	return c, nil
}

// keep reports whether item m passes every clause.
func (f itemFilter) keep(m map[string]any) bool {
	for _, c := range f {
		var v any = m
		for _, k := range c.path {
			mm, ok := v.(map[string]any)
			if !ok {
				v = nil
				break
			}
			v = mm[k]
		}
		if n, ok := v.(int); ok {
			v = float64(n)
		}
		want := c.value
		if c.lower {
			if str, ok := v.(string); ok {
				v = strings.ToLower(str)
			}
		}
		if (v == want) == c.ne {
			return false
		}
	}
	return true
}

// apply returns the items that pass f.
func (f itemFilter) apply(items []map[string]any) []map[string]any {
	if f == nil {
		return items
	}
	out := items[:0:0]
	for _, m := range items {
		if f.keep(m) {
			out = append(out, m)
		}
	}
	return out
}
