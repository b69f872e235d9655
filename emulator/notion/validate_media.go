package notion

import "strings"

// Validation of media sources, icons and URLs in block payloads.

// icon validates an icon (emoji, external, file_upload or custom_emoji).
// A file_upload icon is kept in that form and rendered as a file on read.
func (v *blockValidator) icon(path string, raw any) (map[string]any, error) {
	m, ok := asObject(raw)
	if !ok {
		return nil, wrongType(path, "an object", raw)
	}
	typ, _ := asString(m["type"])
	if typ == "" {
		for _, k := range []string{"emoji", "external", "file_upload", "custom_emoji"} {
			if _, ok := m[k]; ok {
				typ = k
			}
		}
	}
	switch typ {
	case "emoji":
		e, ok := asString(m["emoji"])
		if !ok || e == "" {
			return nil, undefined(path + ".emoji")
		}
		return map[string]any{"type": "emoji", "emoji": e}, nil
	case "external":
		ext, _ := asObject(m["external"])
		url, err := checkURL(path+".external.url", ext["url"])
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "external", "external": map[string]any{"url": url}}, nil
	case "file_upload":
		id, err := v.uploadID(path+".file_upload", m["file_upload"])
		if err != nil {
			return nil, err
		}
		return map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}}, nil
	case "custom_emoji":
		ce, ok := asObject(m["custom_emoji"])
		if !ok {
			return nil, undefined(path + ".custom_emoji")
		}
		raw, _ := asString(ce["id"])
		id, ok := normalizeID(raw)
		if !ok {
			return nil, bodyError(path+".custom_emoji.id", "should be a valid uuid, instead was `%s`", brief(ce["id"]))
		}
		// The response form has id, name and url ([N4]); the emulator has
		// no emoji library, so name and url are what the request gave.
		name, _ := asString(ce["name"])
		url, _ := asString(ce["url"])
		return map[string]any{"type": "custom_emoji", "custom_emoji": map[string]any{"id": id, "name": name, "url": url}}, nil
	}
	return nil, bodyError(path+".type", "should be `emoji`, `external`, `file_upload` or `custom_emoji`, instead was `%s`", brief(m["type"]))
}

// uploadID validates a {"id": …} file upload reference and records it for
// the attachability check.
func (v *blockValidator) uploadID(path string, raw any) (string, error) {
	m, ok := asObject(raw)
	if !ok {
		return "", undefined(path)
	}
	s, _ := asString(m["id"])
	id, ok := normalizeID(s)
	if !ok {
		return "", bodyError(path+".id", "should be a valid uuid, instead was `%s`", brief(m["id"]))
	}
	v.uploads = append(v.uploads, uploadRef{path: path, id: id})
	return id, nil
}

func (v *blockValidator) mediaBody(path, typ string, body map[string]any) (map[string]any, string, error) {
	allowed := []string{"type", "external", "file_upload", "caption"}
	if typ == "file" {
		allowed = append(allowed, "name")
	}
	if err := allowKeys(path, body, allowed...); err != nil {
		return nil, "", err
	}
	caption, err := v.optionalRichText(path+".caption", body["caption"])
	if err != nil {
		return nil, "", err
	}
	out := map[string]any{"caption": caption}
	if typ == "file" {
		if x, ok := body["name"]; ok && x != nil {
			name, ok := asString(x)
			if !ok {
				return nil, "", wrongType(path+".name", "a string", x)
			}
			out["name"] = name
		}
	}
	src, _ := asString(body["type"])
	if src == "" {
		if _, ok := body["file_upload"]; ok {
			src = "file_upload"
		} else if _, ok := body["external"]; ok {
			src = "external"
		}
	}
	switch src {
	case "external":
		ext, ok := asObject(body["external"])
		if !ok {
			return nil, "", undefined(path + ".external")
		}
		url, err := checkURL(path+".external.url", ext["url"])
		if err != nil {
			return nil, "", err
		}
		out["type"] = "external"
		out["external"] = map[string]any{"url": url}
		return out, "", nil
	case "file_upload":
		id, err := v.uploadID(path+".file_upload", body["file_upload"])
		if err != nil {
			return nil, "", err
		}
		return out, id, nil
	}
	return nil, "", bodyError(path+".type", "should be `external` or `file_upload`, instead was `%s`", brief(body["type"]))
}

func checkURL(path string, raw any) (string, error) {
	url, ok := asString(raw)
	if !ok {
		if raw == nil {
			return "", undefined(path)
		}
		return "", wrongType(path, "a string", raw)
	}
	if n := utf16Len(url); n > maxURLLen {
		return "", tooLong(path, maxURLLen, n)
	}
	if strings.TrimSpace(url) == "" {
		return "", bodyError(path, "should be a non-empty URL, instead was `\"\"`")
	}
	return url, nil
}
