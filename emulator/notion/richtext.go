package notion

import (
	"fmt"
	neturl "net/url"
	"strings"
)

// colorNames are Notion's named colours; each also has a "_background"
// form, 20 values in all (reference §5).
var colorNames = []string{"default", "gray", "brown", "orange", "yellow", "green", "blue", "purple", "pink", "red"}

func validColor(c string) bool {
	base := strings.TrimSuffix(c, "_background")
	for _, n := range colorNames {
		if base == n {
			return true
		}
	}
	return false
}

func colorList() string {
	var b strings.Builder
	for i, n := range colorNames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "`%s`, `%s_background`", n, n)
	}
	return b.String()
}

// checkColor validates an optional colour field.
func checkColor(path string, v any) (string, error) {
	if v == nil {
		return "default", nil
	}
	c, ok := asString(v)
	if !ok || !validColor(c) {
		return "", bodyError(path, "should be one of %s, instead was `%s`", colorList(), brief(v))
	}
	return c, nil
}

func defaultAnnotations() map[string]any {
	return map[string]any{"bold": false, "italic": false, "strikethrough": false,
		"underline": false, "code": false, "color": "default"}
}

// richText validates a rich-text array and returns it in response shape
// (with plain_text, href and full annotations). Links to anything but an
// http or https URL are counted in v.badLinks: they fail the request once
// the whole body has been read (finish). Callers hold s.mu.
func (v *blockValidator) richText(path string, raw any) ([]any, error) {
	arr, ok := asArray(raw)
	if !ok {
		if raw == nil {
			return nil, undefined(path)
		}
		return nil, wrongType(path, "an array", raw)
	}
	if len(arr) > maxRichTextItems {
		return nil, tooMany(path, maxRichTextItems, len(arr))
	}
	out := make([]any, 0, len(arr))
	for i, item := range arr {
		n, err := v.richTextItem(fmt.Sprintf("%s[%d]", path, i), item)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (v *blockValidator) richTextItem(path string, raw any) (map[string]any, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	typ, _ := asString(m["type"])
	if typ == "" {
		for _, k := range []string{"text", "mention", "equation"} {
			if _, ok := m[k]; ok {
				typ = k
				break
			}
		}
	}
	out := map[string]any{"type": typ, "annotations": defaultAnnotations(), "href": nil}
	switch typ {
	case "text":
		t, ok := asObject(m["text"])
		if !ok {
			return nil, undefined(path + ".text")
		}
		content, ok := asString(t["content"])
		if !ok {
			if t["content"] == nil {
				return nil, undefined(path + ".text.content")
			}
			return nil, wrongType(path+".text.content", "a string", t["content"])
		}
		if n := utf16Len(content); n > maxTextLen {
			return nil, tooLong(path+".text.content", maxTextLen, n)
		}
		text := map[string]any{"content": content, "link": nil}
		if l := t["link"]; l != nil {
			lm, ok := asObject(l)
			if !ok {
				return nil, wrongType(path+".text.link", "an object or `null`", l)
			}
			url, ok := asString(lm["url"])
			if !ok {
				return nil, undefined(path + ".text.link.url")
			}
			if n := utf16Len(url); n > maxURLLen {
				return nil, tooLong(path+".text.link.url", maxURLLen, n)
			}
			if !webURL(url) {
				v.badLinks++
			}
			text["link"] = map[string]any{"url": url}
			out["href"] = url
		}
		out["text"] = text
		out["plain_text"] = content
	case "equation":
		e, ok := asObject(m["equation"])
		if !ok {
			return nil, undefined(path + ".equation")
		}
		expr, ok := asString(e["expression"])
		if !ok {
			return nil, undefined(path + ".equation.expression")
		}
		if n := utf16Len(expr); n > maxEquationLen {
			return nil, tooLong(path+".equation.expression", maxEquationLen, n)
		}
		out["equation"] = map[string]any{"expression": expr}
		out["plain_text"] = expr
	case "mention":
		mention, plain, href, err := v.s.mention(path+".mention", m["mention"])
		if err != nil {
			return nil, err
		}
		out["mention"] = mention
		out["plain_text"] = plain
		if href != "" {
			out["href"] = href
		}
	default:
		return nil, bodyError(path+".type", "should be `text`, `mention` or `equation`, instead was `%s`", brief(m["type"]))
	}
	if a := m["annotations"]; a != nil {
		ann, err := annotations(path+".annotations", a)
		if err != nil {
			return nil, err
		}
		out["annotations"] = ann
	}
	return out, nil
}

func annotations(path string, v any) (map[string]any, error) {
	m, ok := asObject(v)
	if !ok {
		return nil, wrongType(path, "an object", v)
	}
	out := defaultAnnotations()
	for k, x := range m {
		switch k {
		case "bold", "italic", "strikethrough", "underline", "code":
			b, ok := asBool(x)
			if !ok {
				return nil, wrongType(path+"."+k, "a boolean", x)
			}
			out[k] = b
		case "color":
			c, err := checkColor(path+".color", x)
			if err != nil {
				return nil, err
			}
			out["color"] = c
		default:
			return nil, notPresent(path+"."+k, x)
		}
	}
	return out, nil
}

// mention validates a mention object and returns it with the text Notion
// shows for it and its link.
func (s *Server) mention(path string, v any) (map[string]any, string, string, error) {
	m, ok := asObject(v)
	if !ok {
		return nil, "", "", undefined(path)
	}
	typ, _ := asString(m["type"])
	if typ == "" {
		for _, k := range []string{"page", "database", "user", "date", "link_preview", "template_mention"} {
			if _, ok := m[k]; ok {
				typ = k
				break
			}
		}
	}
	switch typ {
	case "page", "database", "user":
		ref, ok := asObject(m[typ])
		if !ok {
			return nil, "", "", undefined(path + "." + typ)
		}
		raw, _ := asString(ref["id"])
		id, ok := normalizeID(raw)
		if !ok {
			return nil, "", "", bodyError(path+"."+typ+".id", "should be a valid uuid, instead was `%s`", brief(ref["id"]))
		}
		plain, href := "Untitled", ""
		if typ == "user" {
			plain = "@User"
		} else {
			href = "https://www.notion.so/" + strings.ReplaceAll(id, "-", "")
			if n := s.nodes[id]; n != nil {
				plain = s.plainTitle(n)
			}
		}
		ref = map[string]any{"id": id}
		if typ == "user" {
			ref["object"] = "user" // a partial user ([N4])
		}
		return map[string]any{"type": typ, typ: ref}, plain, href, nil
	case "date":
		d, ok := asObject(m["date"])
		if !ok {
			return nil, "", "", undefined(path + ".date")
		}
		start, ok := asString(d["start"])
		if !ok || !validDate(start) {
			return nil, "", "", bodyError(path+".date.start", "should be a valid ISO 8601 date string, instead was `%s`", brief(d["start"]))
		}
		// A date response always has end and time_zone, null when unset ([N4]).
		date := map[string]any{"start": start, "end": nil, "time_zone": nil}
		for _, k := range []string{"end", "time_zone"} {
			if v, ok := asString(d[k]); ok {
				date[k] = v
			}
		}
		if end, ok := date["end"].(string); ok && !validDate(end) {
			return nil, "", "", bodyError(path+".date.end", "should be a valid ISO 8601 date string, instead was `%s`", brief(end))
		}
		return map[string]any{"type": "date", "date": date}, start, "", nil
	case "link_preview":
		lp, ok := asObject(m["link_preview"])
		url, _ := asString(lp["url"])
		if !ok || url == "" {
			return nil, "", "", undefined(path + ".link_preview.url")
		}
		return map[string]any{"type": "link_preview", "link_preview": map[string]any{"url": url}}, url, url, nil
	case "template_mention":
		return map[string]any{"type": "template_mention", "template_mention": clone(m["template_mention"])}, "", "", nil
	}
	return nil, "", "", bodyError(path+".type", "should be `page`, `database`, `user`, `date`, `link_preview` or `template_mention`, instead was `%s`", brief(m["type"]))
}

// webURL says whether s is an http or https URL with a host, the only
// links Notion accepts in rich text ([N1]: zotero: links failed; other
// custom schemes such as onenote:, file:, ms-word: and teams: are the same
// case). mailto: is refused too: whether Notion takes it is not
// established, and refusing keeps a writer from relying on it.
func webURL(s string) bool {
	u, err := neturl.Parse(strings.TrimSpace(s))
	if err != nil {
		return false
	}
	scheme := strings.ToLower(u.Scheme)
	return (scheme == "http" || scheme == "https") && u.Host != ""
}

// invalidLinks is Notion's answer to a request with links it refuses
// ([N2]): one "Invalid URL for link." line per bad link.
func invalidLinks(n int) *apiError {
	return validationError("Content creation Failed. Fix the following: %s", strings.Repeat("\nInvalid URL for link.", n))
}

// plainText joins the plain_text of a response-shape rich-text array.
func plainText(rt []any) string {
	var b strings.Builder
	for _, item := range rt {
		if m, ok := asObject(item); ok {
			s, _ := asString(m["plain_text"])
			b.WriteString(s)
		}
	}
	return b.String()
}
