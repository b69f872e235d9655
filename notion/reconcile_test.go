package notion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notebridge/notebridge/notion/blocks"
)

// rowServer is a tiny stand-in for a section database: it stores rows,
// answers queries by OneNote page ID, and answers the first row creation
// with a 500 after storing it (the write happened, the answer was lost).
type rowServer struct {
	mu      sync.Mutex
	rows    map[string]map[string]any // id -> properties as sent
	creates int
}

func (s *rowServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var body map[string]any
	json.NewDecoder(r.Body).Decode(&body)
	switch {
	case r.Method == "GET" && r.URL.Path == "/v1/databases/db1":
		io.WriteString(w, `{"object":"database","id":"db1","data_sources":[{"id":"ds1","name":"Section"}]}`)
	case r.Method == "POST" && r.URL.Path == "/v1/data_sources/ds1/query":
		want := body["filter"].(map[string]any)["rich_text"].(map[string]any)["equals"]
		var results []any
		for id, props := range s.rows {
			rt := props[PropOneNoteID].(map[string]any)["rich_text"].([]any)
			if rt[0].(map[string]any)["text"].(map[string]any)["content"] == want {
				results = append(results, map[string]any{"id": id, "properties": map[string]any{
					PropStatus: map[string]any{"type": "select", "select": props[PropStatus].(map[string]any)["select"]}}})
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"results": results, "has_more": false})
	case r.Method == "POST" && r.URL.Path == "/v1/pages":
		s.creates++
		id := fmt.Sprintf("row%d", s.creates)
		s.rows[id] = body["properties"].(map[string]any)
		if s.creates == 1 {
			w.WriteHeader(500)
			io.WriteString(w, `{"object":"error","status":500,"code":"internal_server_error","message":"oops"}`)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"id": id})
	case r.Method == "PATCH" && strings.HasPrefix(r.URL.Path, "/v1/pages/"):
		id := strings.TrimPrefix(r.URL.Path, "/v1/pages/")
		for k, v := range body["properties"].(map[string]any) {
			s.rows[id][k] = v
		}
		io.WriteString(w, `{}`)
	default:
		w.WriteHeader(404)
		fmt.Fprintf(w, `{"object":"error","status":404,"code":"object_not_found","message":"%s %s"}`, r.Method, r.URL.Path)
	}
}

// TestCreateThatAnswered500IsLookedUpNotRepeated: a row creation that took
// effect but answered 500 is found by query, not created twice.
func TestCreateThatAnswered500IsLookedUpNotRepeated(t *testing.T) {
	fs := &rowServer{rows: map[string]map[string]any{}}
	srv := httptest.NewServer(fs)
	defer srv.Close()
	c := newTestClient(t, srv.URL, newFakeClock())
	res, err := c.WritePage(context.Background(), "db1", PageInput{OneNotePageID: "on-1", Title: "T",
		LastModified: time.Now(), Blocks: []blocks.Block{para("hello")}})
	if err != nil {
		t.Fatal(err)
	}
	if fs.creates != 1 {
		t.Errorf("%d row creations, want 1", fs.creates)
	}
	if len(fs.rows) != 1 || res.PageID != "row1" {
		t.Errorf("rows %v, result page %q; want one row, row1", fs.rows, res.PageID)
	}
	if got := fs.rows["row1"][PropStatus].(map[string]any)["select"].(map[string]any)["name"]; got != StatusDone {
		t.Errorf("status %v, want done", got)
	}
	if res.Requests != 5 { // database (its data source), query, create (500), query (reconcile), mark done
		t.Errorf("%d requests, want 5", res.Requests)
	}
}

// TestWriteWithoutReconcileReportsUnknownOutcome: a write with no way to
// look it up is not repeated but reported as ErrUnknownOutcome.
func TestWriteWithoutReconcileReportsUnknownOutcome(t *testing.T) {
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.WriteHeader(504)
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, newFakeClock())
	err := c.do(context.Background(), call{method: "POST", path: "/v1/x", body: jsonBody(1)})
	if !errors.Is(err, ErrUnknownOutcome) || n != 1 {
		t.Fatalf("err = %v after %d attempts; want ErrUnknownOutcome after 1", err, n)
	}
}

// uploadServer accepts uploads except .exe files, with a workspace cap.
type uploadServer struct {
	mu        sync.Mutex
	cap       int64
	created   []map[string]any
	parts     []int // bytes per part received
	partNums  []string
	completed int
}

func (s *uploadServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.URL.Path == "/v1/users/me":
		fmt.Fprintf(w, `{"object":"user","type":"bot","bot":{"workspace_limits":{"max_file_upload_size_in_bytes":%d}}}`, s.cap)
	case r.URL.Path == "/v1/file_uploads":
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		if strings.HasSuffix(body["filename"].(string), ".exe") {
			w.WriteHeader(400)
			io.WriteString(w, `{"object":"error","status":400,"code":"validation_error","message":"file type not supported"}`)
			return
		}
		s.created = append(s.created, body)
		fmt.Fprintf(w, `{"id":"up%d","status":"pending"}`, len(s.created))
	case strings.HasSuffix(r.URL.Path, "/send"):
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			w.WriteHeader(400)
			return
		}
		f, _, err := r.FormFile("file")
		if err != nil {
			w.WriteHeader(400)
			return
		}
		b, _ := io.ReadAll(f)
		s.parts = append(s.parts, len(b))
		s.partNums = append(s.partNums, r.FormValue("part_number"))
		status := "uploaded"
		if r.FormValue("part_number") != "" {
			status = "pending"
		}
		fmt.Fprintf(w, `{"id":"x","status":%q,"expiry_time":"2099-01-01T00:00:00Z"}`, status)
	case strings.HasSuffix(r.URL.Path, "/complete"):
		s.completed++
		io.WriteString(w, `{"id":"x","status":"uploaded"}`)
	default:
		w.WriteHeader(404)
	}
}

func TestRefusedUploadsBecomeLosses(t *testing.T) {
	us := &uploadServer{cap: 1000}
	srv := httptest.NewServer(us)
	defer srv.Close()
	c := newTestClient(t, srv.URL, newFakeClock())
	open := func(ctx context.Context, r blocks.Resource) (io.ReadCloser, int64, string, error) {
		size := map[string]int64{"small": 10, "big": 5000, "exe": 10}[r.ID]
		return io.NopCloser(bytes.NewReader(make([]byte, size))), size, r.MIME, nil
	}
	in := []blocks.Block{
		{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{ID: "small", Name: "a.png", MIME: "image/png"}}},
		para("list", blocks.Block{Type: blocks.File, Media: &blocks.Media{Resource: &blocks.Resource{ID: "big", Name: "big.pdf"}}}),
		{Type: blocks.File, Media: &blocks.Media{Resource: &blocks.Resource{ID: "exe", Name: "tool.exe"}}},
		{Type: blocks.Image, Media: &blocks.Media{Resource: &blocks.Resource{ID: "small", Name: "a.png", MIME: "image/png"}}},
	}
	m := newMedia(c, open)
	out, err := m.prepare(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Media.FileUploadID != "up1" || out[3].Media.FileUploadID != "up1" {
		t.Errorf("image uploads %+v, %+v; want up1 uploaded once and attached twice", out[0].Media, out[3].Media)
	}
	if len(us.created) != 1 {
		t.Errorf("%d uploads created, want 1 (the oversized file is refused before uploading)", len(us.created))
	}
	for _, b := range []blocks.Block{out[1].Children[0], out[2]} {
		if b.Type != blocks.Paragraph || !strings.Contains(blocks.PlainText(b.RichText), "could not be carried over") {
			t.Errorf("refused file became %+v, want an explanatory paragraph", b)
		}
	}
	if len(m.losses) != 2 {
		t.Fatalf("losses %+v, want 2", m.losses)
	}
	for i, want := range []struct{ name, loc string }{{"big.pdf", "block 2.1 (file)"}, {"tool.exe", "block 3 (file)"}} {
		l := m.losses[i]
		if l.Kind != LossAttachment || !strings.Contains(l.Detail, want.name) || l.Location != want.loc {
			t.Errorf("loss %d = %+v, want %s at %s", i, l, want.name, want.loc)
		}
	}
	if in[0].Media.Resource == nil {
		t.Error("prepare modified its input")
	}
}

func TestLargeFileGoesInParts(t *testing.T) {
	us := &uploadServer{}
	srv := httptest.NewServer(us)
	defer srv.Close()
	c := newTestClient(t, srv.URL, newFakeClock())
	c.singlePartMax, c.partBytes = 20000, 10000 // 20 MB and 10 MiB, scaled down
	size := int64(2*10000 + 1234)
	up, err := c.UploadFile(context.Background(), "video.mp4", "video/mp4", size, bytes.NewReader(make([]byte, size)))
	if err != nil {
		t.Fatal(err)
	}
	if up.ID != "up1" || len(us.created) != 1 || us.created[0]["mode"] != "multi_part" || us.created[0]["number_of_parts"] != float64(3) {
		t.Fatalf("upload %+v, created %+v", up, us.created)
	}
	if fmt.Sprint(us.parts) != fmt.Sprint([]int{10000, 10000, 1234}) || fmt.Sprint(us.partNums) != "[1 2 3]" || us.completed != 1 {
		t.Errorf("parts %v numbered %v, completed %d", us.parts, us.partNums, us.completed)
	}
}
