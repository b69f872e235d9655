package graph

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// filterClause is one comparison of a $filter: "<field> <op> <value>",
// or a function call contains(<field>,'…') / startswith(<field>,'…').
type filterClause struct {
	path  []string // e.g. parentNotebook, id
	lower bool     // tolower(field)
	op    string   // eq, ne, ge, gt, le, lt, contains, startswith
	value any      // string, float64, bool or time.Time (an unquoted datetime)
}

// itemFilter is a parsed $filter: clauses joined by "and". A nil filter
// keeps everything.
type itemFilter []filterClause

// lowerEq reports whether f holds a tolower(field) eq '…' comparison,
// the form the account-wide /sections answers 500 19999 to ([M1], fact 33).
func (f itemFilter) lowerEq() bool {
	for _, c := range f {
		if c.lower && c.op == "eq" {
			return true
		}
	}
	return false
}

// parseFilter parses the $filter subset the emulator understands:
// comparisons "<field> eq|ne <value>", "<field> ge|gt|le|lt <value>" for
// numbers and unquoted datetimes (lastModifiedDateTime ge
// 2026-05-21T19:32:31Z, accepted by a real account, [M1] fact 34), and
// contains(<field>,'…') and startswith(<field>,'…') ([M1], fact 33); a
// field may be tolower(<field>) and a path such as parentNotebook/id;
// clauses are joined by "and"; values are quoted strings, numbers, true,
// false or unquoted datetimes. Anything else answers 400 with code 20106
// (unsupported operator), so a client never gets an unfiltered answer it
// did not ask for.
func parseFilter(s string) (itemFilter, *queryError) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var f itemFilter
	for _, part := range splitAnd(s) {
		c, err := parseClause(strings.TrimSpace(part))
		if err != nil {
			return nil, &queryError{code: "20106", message: fmt.Sprintf("$filter %q: %v. The emulator supports eq, ne, ge, gt, le and lt comparisons, contains(), startswith(), tolower() and and.", s, err)}
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
	for _, fn := range []string{"contains", "startswith"} {
		if args, ok := strings.CutPrefix(s, fn+"("); ok && strings.HasSuffix(args, ")") {
			return parseCall(fn, strings.TrimSuffix(args, ")"))
		}
	}
	var c filterClause
	field, rest, ok := strings.Cut(s, " ")
	if !ok {
		return c, fmt.Errorf("%q is not a comparison", s)
	}
	if err := c.setField(field); err != nil {
		return c, err
	}
	op, lit, ok := strings.Cut(strings.TrimSpace(rest), " ")
	if !ok {
		return c, fmt.Errorf("%q has no value", s)
	}
	c.op = strings.ToLower(op)
	v, err := parseLiteral(strings.TrimSpace(lit))
	if err != nil {
		return c, err
	}
	c.value = v
	switch c.op {
	case "eq", "ne":
	case "ge", "gt", "le", "lt":
		switch v.(type) {
		case float64, time.Time:
		default:
			return c, fmt.Errorf("%s needs a number or an unquoted datetime, not %s", c.op, lit)
		}
	default:
		return c, fmt.Errorf("operator %q is not supported", op)
	}
	return c, nil
}

// parseCall parses the arguments of contains(field,'v') or
// startswith(field,'v').
func parseCall(fn, args string) (filterClause, error) {
	c := filterClause{op: fn}
	i := strings.Index(args, ",") // a field has no comma; the string may
	if i < 0 {
		return c, fmt.Errorf("%s() needs a field and a string", fn)
	}
	if err := c.setField(strings.TrimSpace(args[:i])); err != nil {
		return c, err
	}
	v, err := parseLiteral(strings.TrimSpace(args[i+1:]))
	if err != nil {
		return c, err
	}
	str, ok := v.(string)
	if !ok {
		return c, fmt.Errorf("%s() needs a quoted string", fn)
	}
	c.value = str
	return c, nil
}

// setField sets the clause's field: a path, optionally inside tolower().
func (c *filterClause) setField(field string) error {
	if inner, ok := strings.CutPrefix(field, "tolower("); ok && strings.HasSuffix(inner, ")") {
		field, c.lower = strings.TrimSuffix(inner, ")"), true
	}
	if field == "" || strings.ContainsAny(field, "()',") {
		return fmt.Errorf("function %q is not supported", field)
	}
	c.path = strings.Split(field, "/")
	return nil
}

// parseLiteral parses a quoted string, true, false, a number or an
// unquoted RFC 3339 datetime.
func parseLiteral(lit string) (any, error) {
	switch {
	case len(lit) >= 2 && lit[0] == '\'' && lit[len(lit)-1] == '\'':
		return strings.ReplaceAll(lit[1:len(lit)-1], "''", "'"), nil
	case lit == "true" || lit == "false":
		return lit == "true", nil
	}
	if t, err := time.Parse(time.RFC3339, lit); err == nil {
		return t, nil
	}
	n, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, fmt.Errorf("value %q is not a string, number, boolean or datetime", lit)
	}
	return n, nil
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
		if !c.holds(v) {
			return false
		}
	}
	return true
}

// holds reports whether the field value v passes the clause.
func (c filterClause) holds(v any) bool {
	if n, ok := v.(int); ok {
		v = float64(n)
	}
	if str, ok := v.(string); ok && c.lower {
		v = strings.ToLower(str)
	}
	switch want := c.value.(type) {
	case time.Time:
		str, _ := v.(string)
		t, err := time.Parse(time.RFC3339, str)
		if err != nil {
			return c.op == "ne"
		}
		return compared(c.op, t.Compare(want))
	case float64:
		n, ok := v.(float64)
		if !ok {
			return c.op == "ne"
		}
		return compared(c.op, cmp.Compare(n, want))
	case string:
		str, ok := v.(string)
		switch c.op {
		case "contains":
			return ok && strings.Contains(str, want)
		case "startswith":
			return ok && strings.HasPrefix(str, want)
		}
	}
	return (v == c.value) == (c.op == "eq")
}

// compared reports whether a comparison with result r (-1, 0, 1) passes op.
func compared(op string, r int) bool {
	switch op {
	case "eq":
		return r == 0
	case "ne":
		return r != 0
	case "ge":
		return r >= 0
	case "gt":
		return r > 0
	case "le":
		return r <= 0
	default: // lt
		return r < 0
	}
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
