package notion

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"time"
)

// The File Upload API: POST /v1/file_uploads, POST …/{id}/send,
// POST …/{id}/complete, GET …/{id}, GET /v1/file_uploads.

const (
	uploadPending  = "pending"
	uploadUploaded = "uploaded"
	uploadExpired  = "expired"
)

// statusOf is an upload's status now: unattached uploads past their
// expiry time are expired.
func (s *Server) statusOf(u *upload) string {
	if !u.attached && (!s.now().Before(u.expiry) || u.early) {
		return uploadExpired
	}
	return u.status
}

func (s *Server) renderUpload(base string, u *upload) map[string]any {
	status := s.statusOf(u)
	out := map[string]any{
		"object":           "file_upload",
		"id":               u.id,
		"created_time":     timestamp(minute(u.created)),
		"last_edited_time": timestamp(minute(u.created)),
		"created_by":       map[string]any{"id": s.botID, "type": "bot"},
		"expiry_time":      timestamp(u.expiry),
		"archived":         false,
		"status":           status,
		"filename":         nullable(u.filename),
		"content_type":     nullable(u.contentType),
		"content_length":   nil,
		"number_of_parts":  map[string]any{"total": u.totalParts, "sent": len(u.parts)},
	}
	if u.attached {
		out["expiry_time"] = nil
	}
	// upload_url and complete_url are strings or absent, never null
	// ([N4], [S]).
	if status == uploadPending {
		out["upload_url"] = base + "/v1/file_uploads/" + u.id + "/send"
		if u.mode == "multi_part" {
			out["complete_url"] = base + "/v1/file_uploads/" + u.id + "/complete"
		}
	}
	if u.status == uploadUploaded {
		out["content_length"] = len(u.data)
	}
	return out
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) createUpload(c *call) (any, error) {
	if err := allowKeys("body", c.body, "mode", "filename", "content_type", "number_of_parts", "external_url"); err != nil {
		return nil, err
	}
	mode := "single_part"
	if raw := c.body["mode"]; raw != nil {
		mode, _ = asString(raw)
	}
	switch mode {
	case "single_part":
	case "multi_part":
		if s.cfg.Plan != "" && !s.cfg.Plan.Paid() {
			// Multi-part uploads are for paid workspaces (reference row 16).
			return nil, validationError("Multi-part file uploads are available only in paid workspaces; this workspace is on the Free plan. Upgrade the workspace, or send files of at most %d bytes with mode `single_part`.", s.cfg.MaxFileUploadBytes)
		}
	case "external_url":
		return nil, validationError("The Notion emulator does not support mode `external_url`; use `single_part` or `multi_part`.")
	default:
		return nil, bodyError("body.mode", "should be `single_part`, `multi_part` or `external_url`, instead was `%s`", brief(c.body["mode"]))
	}
	var filename, contentType string
	for key, dst := range map[string]*string{"filename": &filename, "content_type": &contentType} {
		if raw := c.body[key]; raw != nil {
			str, ok := asString(raw)
			if !ok {
				return nil, wrongType("body."+key, "a string", raw)
			}
			*dst = str
		}
	}
	if len(filename) > maxFilenameBytes {
		return nil, bodyError("body.filename.length", "should be ≤ `%d` bytes, instead was `%d`", maxFilenameBytes, len(filename))
	}
	parts := 1
	if mode == "multi_part" {
		if filename == "" {
			return nil, undefined("body.filename")
		}
		n, ok := asInt(c.body["number_of_parts"])
		if !ok {
			return nil, undefined("body.number_of_parts")
		}
		if n < 1 || n > maxNumberOfParts {
			return nil, bodyError("body.number_of_parts", "should be between `1` and `%d`, instead was `%d`", maxNumberOfParts, n)
		}
		parts = n
	} else if raw, ok := c.body["number_of_parts"]; ok {
		return nil, notPresent("body.number_of_parts", raw)
	}
	ct, err := resolveType(filename, contentType)
	if err != nil {
		return nil, err
	}
	now := s.now()
	u := &upload{id: newUUID(s.rng), mode: mode, filename: filename, contentType: ct, created: now,
		expiry: now.Add(s.cfg.UploadExpiry), status: uploadPending, parts: map[int][]byte{}, totalParts: parts}
	s.uploads[u.id] = u
	return s.renderUpload(c.base, u), nil
}

func (s *Server) findUpload(raw string) (*upload, error) {
	id, err := pathID("file_upload_id", raw)
	if err != nil {
		return nil, err
	}
	u := s.uploads[id]
	if u == nil {
		return nil, notFound("file upload", id)
	}
	return u, nil
}

func (s *Server) retrieveUpload(c *call) (any, error) {
	u, err := s.findUpload(c.pathID())
	if err != nil {
		return nil, err
	}
	return s.renderUpload(c.base, u), nil
}

func (s *Server) listUploads(c *call) (any, error) {
	size, cursor, err := queryPaging(c.r)
	if err != nil {
		return nil, err
	}
	want := c.r.URL.Query().Get("status")
	all := make([]*upload, 0, len(s.uploads))
	for _, u := range s.uploads {
		if want == "" || s.statusOf(u) == want {
			all = append(all, u)
		}
	}
	slices.SortFunc(all, func(a, b *upload) int {
		if c := minute(b.created).Compare(minute(a.created)); c != 0 {
			return c
		}
		return compareStrings(a.id, b.id)
	})
	ids := make([]string, len(all))
	for i, u := range all {
		ids[i] = u.id
	}
	page, next, err := paginate(ids, cursor, size, "query")
	if err != nil {
		return nil, err
	}
	results := make([]any, len(page))
	for i, id := range page {
		results[i] = s.renderUpload(c.base, s.uploads[id])
	}
	return list(results, next, "file_upload"), nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// sentPart is the content of one send request.
type sentPart struct {
	data        []byte
	filename    string
	contentType string
	partNumber  int
	hasPart     bool
}

// readPart reads a multipart/form-data send body (before the lock is
// taken: parts may be large).
func readPart(r *http.Request) (*sentPart, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return nil, validationError("Content-Type must be multipart/form-data, with the file in form field `file`.")
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, validationError("Could not parse multipart/form-data body: %v", err)
	}
	p := &sentPart{}
	gotFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, validationError("Could not parse multipart/form-data body: %v", err)
		}
		switch part.FormName() {
		case "file":
			data, err := io.ReadAll(io.LimitReader(part, MaxPartBytes+1))
			if err != nil {
				return nil, fmt.Errorf("read file part: %w", err)
			}
			p.data, p.filename, p.contentType, gotFile = data, part.FileName(), part.Header.Get("Content-Type"), true
		case "part_number":
			v, _ := io.ReadAll(io.LimitReader(part, 32))
			n, err := strconv.Atoi(string(v))
			if err != nil {
				return nil, bodyError("body.part_number", "should be an integer, instead was `%q`", string(v))
			}
			p.partNumber, p.hasPart = n, true
		}
		part.Close()
	}
	if !gotFile {
		return nil, undefined("body.file")
	}
	return p, nil
}

// sendUpload runs without the lock held by the adapter: it reads the part
// first and then locks.
func (s *Server) sendUpload(c *call) (any, error) {
	p, err := readPart(c.r)
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ferr := s.findUpload(c.pathID())
	if ferr != nil {
		return nil, ferr
	}
	if err != nil {
		return nil, err
	}
	switch s.statusOf(u) {
	case uploadExpired:
		return nil, validationError("File upload with ID: %s has expired. Create a new file upload.", u.id)
	case uploadUploaded:
		return nil, validationError("File upload with ID: %s is already in status `uploaded`.", u.id)
	}
	size := int64(len(p.data))
	if size > s.cfg.MaxFileUploadBytes {
		return nil, validationError("The file is %d bytes, which exceeds this workspace's limit of %d bytes per file.", size, s.cfg.MaxFileUploadBytes)
	}
	if u.mode == "single_part" {
		if size > MaxSinglePartBytes {
			return nil, validationError("The file is larger than %d bytes, the limit of a single_part upload. Use mode `multi_part`.", MaxSinglePartBytes)
		}
		filename := u.filename
		if filename == "" {
			filename = p.filename
		}
		ct := u.contentType
		if ct == "" {
			if ct, err = resolveType(filename, p.contentType); err != nil {
				return nil, err
			}
			if ct == "" {
				return nil, validationError("The file has no extension and no content type; set `filename` or `content_type`.")
			}
		}
		u.filename, u.contentType = filename, ct
		u.parts[1] = p.data
		s.complete(u)
		out := s.renderUpload(c.base, u)
		u.early = u.expireEarly
		return out, nil
	}
	if !p.hasPart {
		return nil, undefined("body.part_number")
	}
	if p.partNumber < 1 || p.partNumber > u.totalParts {
		return nil, bodyError("body.part_number", "should be between `1` and `%d`, instead was `%d`", u.totalParts, p.partNumber)
	}
	if size > MaxPartBytes {
		return nil, validationError("Part %d is larger than %d bytes, the largest part allowed.", p.partNumber, MaxPartBytes)
	}
	if p.partNumber < u.totalParts && size < MinPartBytes {
		return nil, validationError("Part %d is %d bytes; every part except the last must be at least %d bytes.", p.partNumber, size, MinPartBytes)
	}
	u.parts[p.partNumber] = p.data
	return s.renderUpload(c.base, u), nil
}

// complete assembles an upload's parts and marks it uploaded.
func (s *Server) complete(u *upload) {
	var data []byte
	for i := 1; i <= u.totalParts; i++ {
		data = append(data, u.parts[i]...)
	}
	sum := sha256.Sum256(data)
	u.data, u.sha256, u.status = data, hex.EncodeToString(sum[:]), uploadUploaded
	if s.expireNext > 0 {
		s.expireNext--
		u.expireEarly = true
	}
}

func (s *Server) completeUpload(c *call) (any, error) {
	u, err := s.findUpload(c.pathID())
	if err != nil {
		return nil, err
	}
	if u.mode != "multi_part" {
		return nil, validationError("File upload with ID: %s is not a multi_part upload; only multi_part uploads are completed.", u.id)
	}
	switch s.statusOf(u) {
	case uploadExpired:
		return nil, validationError("File upload with ID: %s has expired. Create a new file upload.", u.id)
	case uploadUploaded:
		return nil, validationError("File upload with ID: %s is already in status `uploaded`.", u.id)
	}
	if len(u.parts) != u.totalParts {
		return nil, validationError("Expected %d parts to be sent before completing, but %d were sent.", u.totalParts, len(u.parts))
	}
	var total int64
	for _, p := range u.parts {
		total += int64(len(p))
	}
	if total > s.cfg.MaxFileUploadBytes {
		return nil, validationError("The file is %d bytes, which exceeds this workspace's limit of %d bytes per file.", total, s.cfg.MaxFileUploadBytes)
	}
	s.complete(u)
	out := s.renderUpload(c.base, u)
	u.early = u.expireEarly
	return out, nil
}

// checkAttachable says whether a request may attach the upload ref names:
// only uploads in status uploaded (not expired) can be attached.
func (s *Server) checkAttachable(ref uploadRef) error {
	u := s.uploads[ref.id]
	if u == nil {
		return validationError("body failed validation: %s.id: could not find file upload with ID: %s.", ref.path, ref.id)
	}
	switch st := s.statusOf(u); st {
	case uploadUploaded:
		return nil
	case uploadExpired:
		return validationError("File upload with ID: %s has expired and cannot be attached (%s). Create a new file upload.", u.id, ref.path)
	default:
		return validationError("File upload with ID: %s is in status `%s` and cannot be attached (%s); only uploads in status `uploaded` can be attached.", u.id, st, ref.path)
	}
}

// attach marks an upload as attached: it no longer expires.
func (s *Server) attach(id string) {
	if u := s.uploads[id]; u != nil {
		u.attached = true
	}
}

// serveFile serves an upload's bytes (the URL blocks with attached files
// point at).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	id, _ := normalizeID(r.PathValue("id"))
	u := s.uploads[id]
	var data []byte
	var ct string
	if u != nil && u.status == uploadUploaded {
		data, ct = u.data, u.contentType
	}
	s.mu.Unlock()
	if data == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Header().Set("Cache-Control", "private, max-age="+strconv.Itoa(int(time.Hour.Seconds())))
	w.Write(data)
}
