package onenote

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"strings"
)

// ContentPart is one part of a multipart page content response.
type ContentPart struct {
	ContentType string
	Body        []byte
}

// ParseMultipart splits a page content response fetched with
// includeInkML=true into its HTML and InkML parts. The boundary comes from
// contentType's boundary parameter if present, else from the body's first
// line ("--boundary"). Parts that are neither HTML nor InkML are returned
// in other. It never panics; a malformed body gives an error.
func ParseMultipart(contentType string, body []byte) (html, inkml []byte, other []ContentPart, err error) {
	boundary := boundaryFromContentType(contentType)
	if boundary == "" {
		boundary = boundaryFromFirstLine(body)
	}
	if boundary == "" {
		return nil, nil, nil, errors.New("multipart body has no boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	found := false
	for {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading multipart body: %w", err)
		}
		b, err := io.ReadAll(p)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("reading multipart part: %w", err)
		}
		found = true
		ct := p.Header.Get("Content-Type")
		mt, _, _ := mime.ParseMediaType(ct)
		switch {
		case strings.Contains(mt, "inkml"):
			if inkml == nil {
				inkml = b
				continue
			}
		case mt == "text/html" || (mt == "" && html == nil && looksLikeHTML(b)):
			if html == nil {
				html = b
				continue
			}
		}
		other = append(other, ContentPart{ContentType: ct, Body: b})
	}
	if !found {
		return nil, nil, nil, errors.New("multipart body has no parts")
	}
	if html == nil {
		return nil, nil, nil, errors.New("multipart body has no text/html part")
	}
	return html, inkml, other, nil
}

func boundaryFromContentType(ct string) string {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.HasPrefix(mt, "multipart/") {
		return ""
	}
	return params["boundary"]
}

// boundaryFromFirstLine returns the boundary of a body whose first
// non-empty line is "--boundary".
func boundaryFromFirstLine(body []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 256), 4096)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "--") && len(line) > 2 {
			return strings.TrimPrefix(line, "--")
		}
		return ""
	}
	return ""
}

// isMultipart reports whether a response looks multipart, by its
// Content-Type or its first line.
func isMultipart(contentType string, body []byte) bool {
	if boundaryFromContentType(contentType) != "" {
		return true
	}
	return bytes.HasPrefix(bytes.TrimLeft(body, " \r\n\t"), []byte("--")) && boundaryFromFirstLine(body) != ""
}

func looksLikeHTML(b []byte) bool {
	t := bytes.ToLower(bytes.TrimSpace(b))
	return bytes.HasPrefix(t, []byte("<!doctype html")) || bytes.HasPrefix(t, []byte("<html"))
}
