package notion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Request bodies are decoded into generic JSON values (map[string]any,
// []any, string, json.Number, bool, nil) so validation sees exactly what the
// client sent, independent of any Go model of it.

// decodeJSON decodes a request body into a generic JSON object.
func decodeJSON(data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode body: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("decode body: trailing data")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("decode body: not an object")
	}
	return m, nil
}

// brief renders a JSON value for an error message, shortened.
func brief(v any) string {
	if v == nil {
		return "undefined"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

func asObject(v any) (map[string]any, bool) {
	m, ok := v.(map[string]any)
	return m, ok
}

func asArray(v any) ([]any, bool) {
	a, ok := v.([]any)
	return a, ok
}

func asString(v any) (string, bool) {
	s, ok := v.(string)
	return s, ok
}

func asBool(v any) (bool, bool) {
	b, ok := v.(bool)
	return b, ok
}

// asNumber accepts json.Number and Go numbers.
func asNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// asInt accepts an integral number.
func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	case int:
		return n, true
	}
	return 0, false
}

// utf16Len is the length of s in UTF-16 code units, the unit Notion counts.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// clone deep-copies a generic JSON value so stored state never aliases a
// request or a response.
func clone(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[k] = clone(x)
		}
		return m
	case []any:
		a := make([]any, len(t))
		for i, x := range t {
			a[i] = clone(x)
		}
		return a
	}
	return v
}
