package notion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strconv"
	"time"
)

// Upload sizes (reference: notion-api.md §3).
const (
	// MaxSinglePartBytes is the largest file sent in one part.
	MaxSinglePartBytes = 20 * 1000 * 1000
	// PartBytes is the size of each part of a multi-part upload but the
	// last.
	PartBytes = 10 << 20
)

// partTimeout bounds the sending of one part (up to 20 MB).
const partTimeout = 10 * time.Minute

// Upload is a file uploaded to Notion, ready to attach.
type Upload struct {
	ID string
	// Expires is when Notion drops the upload unless it is attached (zero
	// if unknown).
	Expires time.Time
}

// workspaceMaxFileSize reads the workspace's cap on uploads from
// GET /v1/users/me, once per Client. 0 means no cap was reported.
func (c *Client) workspaceMaxFileSize(ctx context.Context) (int64, error) {
	c.mu.Lock()
	n := c.maxFile
	c.mu.Unlock()
	if n != 0 {
		return max(n, 0), nil
	}
	var me struct {
		Bot *struct {
			WorkspaceLimits *struct {
				MaxFileUploadSizeInBytes int64 `json:"max_file_upload_size_in_bytes"`
			} `json:"workspace_limits"`
		} `json:"bot"`
	}
	if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/users/me", out: &me}); err != nil {
		return 0, fmt.Errorf("notion: reading workspace limits: %w", err)
	}
	n = -1 // read, no cap
	if me.Bot != nil && me.Bot.WorkspaceLimits != nil && me.Bot.WorkspaceLimits.MaxFileUploadSizeInBytes > 0 {
		n = me.Bot.WorkspaceLimits.MaxFileUploadSizeInBytes
	}
	c.mu.Lock()
	c.maxFile = n
	c.mu.Unlock()
	return max(n, 0), nil
}

// UploadFile uploads size bytes read from r as a file named name, in one
// part up to MaxSinglePartBytes and in parts of PartBytes above. A file
// Notion refuses (type not allowed, over the workspace cap) is an error
// matching ErrUploadRefused.
//
// A step whose outcome is unknown is looked up before it is repeated. A
// create whose outcome is unknown is simply made again: an upload nobody
// attaches is invisible and expires after an hour.
func (c *Client) UploadFile(ctx context.Context, name, contentType string, size int64, r io.Reader) (Upload, error) {
	limit, err := c.workspaceMaxFileSize(ctx)
	if err != nil {
		return Upload{}, err
	}
	if limit > 0 && size > limit {
		return Upload{}, fmt.Errorf("%w: %q is %d bytes, the workspace allows %d", ErrUploadRefused, name, size, limit)
	}
	parts := 1
	if size > c.singlePartMax {
		parts = int((size + c.partBytes - 1) / c.partBytes)
	}
	req := map[string]any{"filename": name}
	if contentType != "" {
		req["content_type"] = contentType
	}
	if parts > 1 {
		req["mode"], req["number_of_parts"] = "multi_part", parts
	} else {
		req["mode"] = "single_part"
	}
	var fu fileUpload
	err = c.do(ctx, call{method: http.MethodPost, path: "/v1/file_uploads", body: jsonBody(req), out: &fu,
		reconcile: func(context.Context) (json.RawMessage, bool, error) { return nil, false, nil }})
	if err != nil {
		return Upload{}, refused(name, err)
	}
	id := fu.ID
	if parts == 1 {
		data, err := io.ReadAll(io.LimitReader(r, size+1))
		if err != nil {
			return Upload{}, fmt.Errorf("notion: reading %q: %w", name, err)
		}
		if int64(len(data)) != size {
			return Upload{}, fmt.Errorf("notion: %q: read %d bytes, expected %d", name, len(data), size)
		}
		if fu, err = c.sendPart(ctx, id, name, contentType, data, 0); err != nil {
			return Upload{}, refused(name, err)
		}
	} else {
		buf := make([]byte, c.partBytes)
		for p := 1; p <= parts; p++ {
			n, err := io.ReadFull(r, buf)
			if err != nil && !(errors.Is(err, io.ErrUnexpectedEOF) && p == parts) {
				return Upload{}, fmt.Errorf("notion: reading part %d of %q: %w", p, name, err)
			}
			if fu, err = c.sendPart(ctx, id, name, contentType, buf[:n], p); err != nil {
				return Upload{}, refused(name, err)
			}
		}
		path := "/v1/file_uploads/" + id + "/complete"
		err = c.do(ctx, call{method: http.MethodPost, path: path, out: &fu,
			reconcile: c.uploadReached(id, func(u fileUpload) bool { return u.Status == "uploaded" })})
		if err != nil {
			return Upload{}, refused(name, err)
		}
	}
	if fu.Status != "" && fu.Status != "uploaded" {
		return Upload{}, fmt.Errorf("%w: %q: upload ended %s", ErrUploadRefused, name, fu.Status)
	}
	up := Upload{ID: id}
	if fu.ExpiryTime != nil {
		up.Expires = *fu.ExpiryTime
	}
	return up, nil
}

// sendPart sends one part (part 0 means a single-part upload).
func (c *Client) sendPart(ctx context.Context, id, name, contentType string, data []byte, part int) (fileUpload, error) {
	var fu fileUpload
	body := func() (io.Reader, string, error) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if part > 0 {
			if err := w.WriteField("part_number", strconv.Itoa(part)); err != nil {
				return nil, "", err
			}
		}
		h := make(textproto.MIMEHeader)
		h.Set("Content-Disposition", multipart.FileContentDisposition("file", name))
		if contentType != "" {
			h.Set("Content-Type", contentType)
		} else {
			h.Set("Content-Type", "application/octet-stream")
		}
		fw, err := w.CreatePart(h)
		if err != nil {
			return nil, "", err
		}
		if _, err := fw.Write(data); err != nil {
			return nil, "", err
		}
		if err := w.Close(); err != nil {
			return nil, "", err
		}
		return &b, w.FormDataContentType(), nil
	}
	sent := func(u fileUpload) bool {
		if part == 0 {
			return u.Status == "uploaded"
		}
		return u.NumberOfParts != nil && u.NumberOfParts.Sent >= part
	}
	err := c.do(ctx, call{method: http.MethodPost, path: "/v1/file_uploads/" + id + "/send", body: body, out: &fu,
		reconcile: c.uploadReached(id, sent), timeout: partTimeout})
	return fu, err
}

// uploadReached reconciles an upload step by reading the upload back.
func (c *Client) uploadReached(id string, ok func(fileUpload) bool) func(context.Context) (json.RawMessage, bool, error) {
	return func(ctx context.Context) (json.RawMessage, bool, error) {
		var raw json.RawMessage
		if err := c.do(ctx, call{method: http.MethodGet, path: "/v1/file_uploads/" + id, out: &raw}); err != nil {
			return nil, false, err
		}
		var fu fileUpload
		if err := json.Unmarshal(raw, &fu); err != nil {
			return nil, false, err
		}
		return raw, ok(fu), nil
	}
}

// refused marks Notion's refusal of a file (a 400 or 413) as
// ErrUploadRefused; other errors pass through.
func refused(name string, err error) error {
	var ae *APIError
	if errors.As(err, &ae) && (ae.Status == 400 || ae.Status == 413) {
		return fmt.Errorf("%w: %q: %w", ErrUploadRefused, name, err)
	}
	return err
}
