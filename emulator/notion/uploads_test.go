package notion

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// send posts one part of an upload as multipart/form-data (part 0 means
// no part_number field).
func (e *env) send(id, filename string, data []byte, part int) response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if part > 0 {
		mw.WriteField("part_number", strconv.Itoa(part))
	}
	fw, err := mw.CreateFormFile("file", filename)
	if err != nil {
		e.t.Fatal(err)
	}
	fw.Write(data)
	mw.Close()
	return e.request("POST", "/v1/file_uploads/"+id+"/send", buf.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType()})
}

func (e *env) createUpload(body map[string]any) map[string]any {
	e.t.Helper()
	return e.ok("POST", "/v1/file_uploads", body)
}

// uploadFile runs a single-part upload to completion and returns its ID.
func (e *env) uploadFile(filename string, data []byte) string {
	e.t.Helper()
	u := e.createUpload(map[string]any{"filename": filename})
	r := e.send(u["id"].(string), filename, data, 0)
	if r.status != 200 || r.body["status"] != "uploaded" {
		e.t.Fatalf("send: %d %s", r.status, r.raw)
	}
	return u["id"].(string)
}

func imageBlock(uploadID string) map[string]any {
	return block("image", map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": uploadID}})
}

func TestSinglePartUploadAndAttach(t *testing.T) {
	e := newEnv(t, Config{})
	png := []byte("\x89PNG\r\n\x1a\nfake image bytes")
	u := e.createUpload(map[string]any{"filename": "diagram.png", "content_type": "image/png"})
	if u["status"] != "pending" || u["upload_url"] != "http://notion.test/v1/file_uploads/"+u["id"].(string)+"/send" {
		t.Fatalf("created upload: %v", u)
	}
	if u["expiry_time"] != timestamp(e.clock.Now().Add(time.Hour)) {
		t.Errorf("expiry_time = %v, want created + 1h", u["expiry_time"])
	}
	id := u["id"].(string)
	// Not yet uploaded: cannot be attached.
	page := e.createPage(e.srv.RootPageID(), "Images")
	if r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{imageBlock(id)}}); r.status != 400 || !strings.Contains(r.message(), "`pending`") {
		t.Errorf("attach pending: %d %s", r.status, r.raw)
	}
	r := e.send(id, "diagram.png", png, 0)
	if r.status != 200 || r.body["status"] != "uploaded" || r.body["content_length"] != float64(len(png)) {
		t.Fatalf("send: %d %s", r.status, r.raw)
	}
	if r := e.send(id, "diagram.png", png, 0); r.status != 400 {
		t.Errorf("second send: %d", r.status)
	}
	blocksOut := e.append(page, imageBlock(id), block("file", map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": id}, "name": "d.png"}))
	img := blocksOut[0].(map[string]any)["image"].(map[string]any)
	file, _ := img["file"].(map[string]any)
	if img["type"] != "file" || file == nil || !strings.HasPrefix(file["url"].(string), "http://notion.test/_emulator/files/"+id+"/") {
		t.Fatalf("attached image reads back as %v", img)
	}
	got := e.ok("GET", "/v1/file_uploads/"+id, nil)
	if got["expiry_time"] != nil || got["status"] != "uploaded" {
		t.Errorf("attached upload: expiry %v status %v", got["expiry_time"], got["status"])
	}
	// Attached uploads never expire, and can be attached again.
	e.clock.Advance(2 * time.Hour)
	e.append(page, imageBlock(id))
	// The URL serves the bytes.
	rec := httptest.NewRecorder()
	e.srv.ServeHTTP(rec, httptest.NewRequest("GET", file["url"].(string), nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), png) || rec.Header().Get("Content-Type") != "image/png" {
		t.Errorf("file URL: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestMultiPartUpload(t *testing.T) {
	e := newEnv(t, Config{})
	u := e.createUpload(map[string]any{"mode": "multi_part", "filename": "talk.mp4", "number_of_parts": 3})
	id := u["id"].(string)
	if u["complete_url"] == nil {
		t.Errorf("multi_part upload has no complete_url")
	}
	part := func(n int, b byte) []byte { return bytes.Repeat([]byte{b}, n) }
	p1, p2, p3 := part(MinPartBytes, 'a'), part(MinPartBytes+10, 'b'), part(100, 'c')
	if r := e.send(id, "talk.mp4", part(MinPartBytes-1, 'x'), 1); r.status != 400 || r.code() != "validation_error" {
		t.Errorf("small non-last part: %d %s", r.status, r.raw)
	}
	if r := e.send(id, "talk.mp4", p1, 0); r.status != 400 {
		t.Errorf("missing part_number: %d", r.status)
	}
	if r := e.send(id, "talk.mp4", p1, 4); r.status != 400 {
		t.Errorf("part_number out of range: %d", r.status)
	}
	// Parts may arrive out of order.
	for _, p := range []struct {
		n    int
		data []byte
	}{{3, p3}, {1, p1}} {
		if r := e.send(id, "talk.mp4", p.data, p.n); r.status != 200 {
			t.Fatalf("part %d: %d %s", p.n, r.status, r.raw)
		}
	}
	if r := e.do("POST", "/v1/file_uploads/"+id+"/complete", nil); r.status != 400 || !strings.Contains(r.message(), "3 parts") {
		t.Errorf("complete with a missing part: %d %s", r.status, r.raw)
	}
	e.send(id, "talk.mp4", p2, 2)
	done := e.ok("POST", "/v1/file_uploads/"+id+"/complete", nil)
	total := len(p1) + len(p2) + len(p3)
	if done["status"] != "uploaded" || done["content_length"] != float64(total) || done["content_type"] != "video/mp4" {
		t.Fatalf("completed: %v", done)
	}
	ws := e.srv.Export()
	var whole []byte
	whole = append(append(append(whole, p1...), p2...), p3...)
	sum := sha256.Sum256(whole)
	if len(ws.Uploads) != 1 || ws.Uploads[0].SHA256 != hex.EncodeToString(sum[:]) || ws.Uploads[0].Size != total {
		t.Errorf("assembled file wrong: %+v", ws.Uploads[0].FileInfo)
	}
	// Single-part uploads are not completed.
	single := e.uploadFile("a.txt", []byte("x"))
	if r := e.do("POST", "/v1/file_uploads/"+single+"/complete", nil); r.status != 400 {
		t.Errorf("complete single_part: %d", r.status)
	}
}

func TestUploadRules(t *testing.T) {
	cases := []struct {
		name     string
		cfg      Config
		create   map[string]any
		filename string
		size     int
		status   int
		message  string
	}{
		{name: "unsupported extension at create", create: map[string]any{"filename": "notebook.one"}, status: 400, message: "`.one`"},
		{name: "unsupported content type at create", create: map[string]any{"content_type": "application/zip"}, status: 400, message: "`application/zip`"},
		{name: "unsupported type discovered at send", create: map[string]any{}, filename: "archive.zip", size: 10, status: 400, message: "`.zip`"},
		{name: "extension and content type disagree", create: map[string]any{"filename": "a.png", "content_type": "application/pdf"}, status: 400, message: "does not match"},
		{name: "filename over 900 bytes", create: map[string]any{"filename": strings.Repeat("a", 901) + ".png"}, status: 400, message: "filename.length"},
		{name: "multi_part needs number_of_parts", create: map[string]any{"mode": "multi_part", "filename": "a.mp4"}, status: 400, message: "number_of_parts"},
		{name: "single_part with number_of_parts", create: map[string]any{"filename": "a.png", "number_of_parts": 2}, status: 400, message: "number_of_parts should be not present"},
		{name: "single part over 20 MB", create: map[string]any{"filename": "big.pdf"}, filename: "big.pdf", size: MaxSinglePartBytes + 1, status: 400, message: "multi_part"},
		{name: "over the workspace per-file cap", cfg: Config{MaxFileUploadBytes: 1000}, create: map[string]any{"filename": "a.pdf"}, filename: "a.pdf", size: 1001, status: 400, message: "limit of 1000 bytes"},
		{name: "allowed type passes", create: map[string]any{"filename": "scan.PDF"}, filename: "scan.PDF", size: 10, status: 200},
		{name: "office document passes", create: map[string]any{"filename": "notes.docx"}, filename: "notes.docx", size: 10, status: 200},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, c.cfg)
			r := e.do("POST", "/v1/file_uploads", c.create)
			if c.filename != "" && r.status == 200 {
				r = e.send(r.str("id"), c.filename, make([]byte, c.size), 0)
			}
			if r.status != c.status {
				t.Fatalf("status %d, want %d: %s", r.status, c.status, r.raw)
			}
			if c.status != 200 && (r.code() != "validation_error" || !strings.Contains(r.message(), c.message)) {
				t.Errorf("got %s %q, want validation_error containing %q", r.code(), r.message(), c.message)
			}
		})
	}
}

func TestUploadExpiry(t *testing.T) {
	e := newEnv(t, Config{UploadExpiry: 30 * time.Minute})
	id := e.uploadFile("photo.jpg", []byte("jpeg"))
	pending := e.createUpload(map[string]any{"filename": "late.png"})["id"].(string)
	e.clock.Advance(30 * time.Minute)
	if got := e.ok("GET", "/v1/file_uploads/"+id, nil); got["status"] != "expired" {
		t.Fatalf("status after expiry = %v", got["status"])
	}
	page := e.createPage(e.srv.RootPageID(), "Late")
	r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{imageBlock(id)}})
	if r.status != 400 || r.code() != "validation_error" || !strings.Contains(r.message(), "expired") {
		t.Errorf("attach expired: %d %s", r.status, r.raw)
	}
	if r := e.send(pending, "late.png", []byte("x"), 0); r.status != 400 || !strings.Contains(r.message(), "expired") {
		t.Errorf("send to expired upload: %d %s", r.status, r.raw)
	}
	list := e.ok("GET", "/v1/file_uploads?status=expired", nil)
	if n := len(list["results"].([]any)); n != 2 {
		t.Errorf("expired uploads listed: %d, want 2", n)
	}
}

func TestUsersMeReportsFileCap(t *testing.T) {
	e := newEnv(t, Config{MaxFileUploadBytes: 5 << 20})
	me := e.ok("GET", "/v1/users/me", nil)
	limits := me["bot"].(map[string]any)["workspace_limits"].(map[string]any)
	if me["type"] != "bot" || limits["max_file_upload_size_in_bytes"] != float64(5<<20) {
		t.Errorf("users/me = %v", me)
	}
}

func TestSendRequiresMultipart(t *testing.T) {
	e := newEnv(t, Config{})
	id := e.createUpload(map[string]any{"filename": "a.png"})["id"].(string)
	r := e.do(http.MethodPost, "/v1/file_uploads/"+id+"/send", map[string]any{"file": "x"})
	if r.status != 400 || r.code() != "validation_error" {
		t.Errorf("JSON send: %d %s", r.status, r.raw)
	}
}

func TestFilesPropertyAndIconAttachUploads(t *testing.T) {
	e := newEnv(t, Config{})
	db := e.ok("POST", "/v1/databases", map[string]any{
		"parent":     map[string]any{"page_id": e.srv.RootPageID()},
		"properties": map[string]any{"Name": map[string]any{"title": map[string]any{}}, "Attachments": map[string]any{"files": map[string]any{}}},
	})["id"].(string)
	doc := e.uploadFile("minutes.docx", []byte("docx"))
	icon := e.uploadFile("icon.png", []byte("png"))
	pending := e.createUpload(map[string]any{"filename": "x.png"})["id"].(string)
	files := func(id string) map[string]any {
		return map[string]any{"files": []any{map[string]any{"name": "minutes.docx", "type": "file_upload", "file_upload": map[string]any{"id": id}}}}
	}
	if r := e.do("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"properties": map[string]any{"Attachments": files(pending)}}); r.status != 400 {
		t.Errorf("pending upload in a files property: %d", r.status)
	}
	row := e.ok("POST", "/v1/pages", map[string]any{"parent": map[string]any{"database_id": db},
		"icon":       map[string]any{"type": "file_upload", "file_upload": map[string]any{"id": icon}},
		"properties": map[string]any{"Attachments": files(doc)}})
	got := row["properties"].(map[string]any)["Attachments"].(map[string]any)["files"].([]any)[0].(map[string]any)
	if got["type"] != "file" || got["name"] != "minutes.docx" || !strings.Contains(got["file"].(map[string]any)["url"].(string), doc) {
		t.Errorf("files property reads back as %v", got)
	}
	if row["icon"].(map[string]any)["type"] != "file" {
		t.Errorf("icon reads back as %v", row["icon"])
	}
	for _, id := range []string{doc, icon} {
		if u := e.ok("GET", "/v1/file_uploads/"+id, nil); u["expiry_time"] != nil {
			t.Errorf("upload %s not attached: %v", id, u["expiry_time"])
		}
	}
}

func TestInjectedUploadExpiryAndRuntimeFileCap(t *testing.T) {
	e := newEnv(t, Config{})
	e.srv.InjectUploadExpiry(1)
	u := e.createUpload(map[string]any{"filename": "a.png"})["id"].(string)
	r := e.send(u, "a.png", []byte("\x89PNG\r\n\x1a\nx"), 0)
	if r.status != 200 || r.body["status"] != "uploaded" {
		t.Fatalf("send of an upload set to expire early: %d %s (it should look uploaded)", r.status, r.raw)
	}
	e.clock.Advance(time.Millisecond)
	page := e.createPage(e.srv.RootPageID(), "Early")
	if r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{imageBlock(u)}}); r.status != 400 || !strings.Contains(r.message(), "expired") {
		t.Errorf("attach of an early-expired upload: %d %s", r.status, r.raw)
	}
	ok := e.uploadFile("b.png", []byte("\x89PNG\r\n\x1a\ny"))
	e.clock.Advance(time.Millisecond)
	if r := e.do("PATCH", "/v1/blocks/"+page+"/children", map[string]any{"children": []any{imageBlock(ok)}}); r.status != 200 {
		t.Errorf("only the next upload should expire early: %d %s", r.status, r.raw)
	}
	e.srv.SetMaxFileUploadBytes(4)
	me := e.ok("GET", "/v1/users/me", nil)
	if got := me["bot"].(map[string]any)["workspace_limits"].(map[string]any)["max_file_upload_size_in_bytes"]; got != float64(4) {
		t.Errorf("users/me cap after SetMaxFileUploadBytes(4) = %v", got)
	}
	big := e.createUpload(map[string]any{"filename": "c.png"})["id"].(string)
	if r := e.send(big, "c.png", []byte("12345"), 0); r.status != 400 || !strings.Contains(r.message(), "exceeds") {
		t.Errorf("upload over the cap: %d %s", r.status, r.raw)
	}
}
