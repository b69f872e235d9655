package notion

import (
	"fmt"
	"slices"
)

// Validation of the type objects of blocks (paragraph, code, table, …).

// typeBody validates the type object of one block and returns it in
// response shape (without children).
func (v *blockValidator) typeBody(path, typ string, body map[string]any) (map[string]any, string, error) {
	switch {
	case textTypes[typ]:
		c, err := v.textBody(path, typ, body)
		return c, "", err
	case mediaTypes[typ]:
		return v.mediaBody(path, typ, body)
	}
	switch typ {
	case "equation":
		if err := allowKeys(path, body, "expression"); err != nil {
			return nil, "", err
		}
		expr, ok := asString(body["expression"])
		if !ok {
			return nil, "", undefined(path + ".expression")
		}
		if n := utf16Len(expr); n > maxEquationLen {
			return nil, "", tooLong(path+".expression", maxEquationLen, n)
		}
		return map[string]any{"expression": expr}, "", nil
	case "divider", "breadcrumb":
		return map[string]any{}, "", allowKeys(path, body)
	case "table_of_contents":
		if err := allowKeys(path, body, "color"); err != nil {
			return nil, "", err
		}
		c, err := checkColor(path+".color", body["color"])
		return map[string]any{"color": c}, "", err
	case "embed", "bookmark":
		if err := allowKeys(path, body, "url", "caption"); err != nil {
			return nil, "", err
		}
		url, err := checkURL(path+".url", body["url"])
		if err != nil {
			return nil, "", err
		}
		caption, err := v.optionalRichText(path+".caption", body["caption"])
		return map[string]any{"url": url, "caption": caption}, "", err
	case "link_to_page":
		if err := allowKeys(path, body, "type", "page_id", "database_id"); err != nil {
			return nil, "", err
		}
		lt, _ := asString(body["type"])
		if lt == "" {
			if _, ok := body["database_id"]; ok {
				lt = "database_id"
			} else {
				lt = "page_id"
			}
		}
		if lt != "page_id" && lt != "database_id" {
			return nil, "", bodyError(path+".type", "should be `page_id` or `database_id`, instead was `%s`", brief(body["type"]))
		}
		raw, _ := asString(body[lt])
		id, ok := normalizeID(raw)
		if !ok {
			return nil, "", bodyError(path+"."+lt, "should be a valid uuid, instead was `%s`", brief(body[lt]))
		}
		return map[string]any{"type": lt, lt: id}, "", nil
	case "table":
		if err := allowKeys(path, body, "table_width", "has_column_header", "has_row_header", "children"); err != nil {
			return nil, "", err
		}
		width, ok := asInt(body["table_width"])
		if !ok {
			if body["table_width"] == nil {
				return nil, "", undefined(path + ".table_width")
			}
			return nil, "", wrongType(path+".table_width", "an integer", body["table_width"])
		}
		if width < 1 {
			return nil, "", bodyError(path+".table_width", "should be ≥ `1`, instead was `%d`", width)
		}
		out := map[string]any{"table_width": width, "has_column_header": false, "has_row_header": false}
		for _, k := range []string{"has_column_header", "has_row_header"} {
			if x, ok := body[k]; ok {
				b, ok := asBool(x)
				if !ok {
					return nil, "", wrongType(path+"."+k, "a boolean", x)
				}
				out[k] = b
			}
		}
		return out, "", nil
	case "table_row":
		if err := allowKeys(path, body, "cells"); err != nil {
			return nil, "", err
		}
		cells, err := v.cells(path+".cells", body["cells"])
		return map[string]any{"cells": cells}, "", err
	case "column_list":
		return map[string]any{}, "", allowKeys(path, body, "children")
	case "column":
		if err := allowKeys(path, body, "children", "width_ratio"); err != nil {
			return nil, "", err
		}
		out := map[string]any{}
		if x, ok := body["width_ratio"]; ok {
			r, ok := asNumber(x)
			if !ok || r <= 0 || r > 1 {
				return nil, "", bodyError(path+".width_ratio", "should be a number greater than `0` and at most `1`, instead was `%s`", brief(x))
			}
			out["width_ratio"] = r
		}
		return out, "", nil
	}
	return nil, "", bodyError(path, "is not a supported block type")
}

func (v *blockValidator) cells(path string, raw any) ([]any, error) {
	arr, ok := asArray(raw)
	if !ok {
		if raw == nil {
			return nil, undefined(path)
		}
		return nil, wrongType(path, "an array", raw)
	}
	out := make([]any, 0, len(arr))
	for i, c := range arr {
		rt, err := v.richText(fmt.Sprintf("%s[%d]", path, i), c)
		if err != nil {
			return nil, err
		}
		out = append(out, rt)
	}
	return out, nil
}

func (v *blockValidator) optionalRichText(path string, raw any) ([]any, error) {
	if raw == nil {
		return []any{}, nil
	}
	return v.richText(path, raw)
}

func (v *blockValidator) textBody(path, typ string, body map[string]any) (map[string]any, error) {
	allowed := []string{"rich_text", "color", "children"}
	switch {
	case typ == "to_do":
		allowed = append(allowed, "checked")
	case isHeading(typ):
		allowed = append(allowed, "is_toggleable")
	case typ == "callout":
		allowed = append(allowed, "icon")
	case typ == "code":
		allowed = []string{"rich_text", "language", "caption"}
	}
	if err := allowKeys(path, body, allowed...); err != nil {
		return nil, err
	}
	rt, err := v.richText(path+".rich_text", body["rich_text"])
	if err != nil {
		return nil, err
	}
	out := map[string]any{"rich_text": rt}
	if typ == "code" {
		lang, ok := asString(body["language"])
		if !ok {
			if body["language"] == nil {
				return nil, undefined(path + ".language")
			}
			return nil, wrongType(path+".language", "a string", body["language"])
		}
		if !codeLanguages[lang] {
			return nil, bodyError(path+".language", "should be one of Notion's code languages (e.g. `plain text`, `go`, `python`), instead was `%s`", brief(lang))
		}
		out["language"] = lang
		out["caption"], err = v.optionalRichText(path+".caption", body["caption"])
		return out, err
	}
	if out["color"], err = checkColor(path+".color", body["color"]); err != nil {
		return nil, err
	}
	switch {
	case typ == "to_do":
		out["checked"] = false
		if x, ok := body["checked"]; ok {
			b, ok := asBool(x)
			if !ok {
				return nil, wrongType(path+".checked", "a boolean", x)
			}
			out["checked"] = b
		}
	case isHeading(typ):
		out["is_toggleable"] = false
		if x, ok := body["is_toggleable"]; ok {
			b, ok := asBool(x)
			if !ok {
				return nil, wrongType(path+".is_toggleable", "a boolean", x)
			}
			out["is_toggleable"] = b
		}
	case typ == "callout":
		out["icon"] = map[string]any{"type": "emoji", "emoji": "💡"}
		if x, ok := body["icon"]; ok && x != nil {
			icon, err := v.icon(path+".icon", x)
			if err != nil {
				return nil, err
			}
			out["icon"] = icon
		}
	}
	return out, nil
}

// allowKeys rejects keys of body outside allowed.
func allowKeys(path string, body map[string]any, allowed ...string) error {
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(allowed, k) {
			return notPresent(path+"."+k, body[k])
		}
	}
	return nil
}
