package notion

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestOverHTTPConcurrently drives the emulator through a real listener
// from several goroutines, as a pool of writer workers would.
func TestOverHTTPConcurrently(t *testing.T) {
	srv := NewServer(Config{Seed: 3, Rate: -1})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	token := srv.IssueToken()
	call := func(method, path string, body any) (int, map[string]any) {
		data, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, ts.URL+path, bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Notion-Version", APIVersion)
		req.Header.Set("Content-Type", "application/json")
		res, err := ts.Client().Do(req)
		if err != nil {
			t.Error(err)
			return 0, nil
		}
		defer res.Body.Close()
		var out map[string]any
		json.NewDecoder(res.Body).Decode(&out)
		return res.StatusCode, out
	}
	const workers, pages = 4, 5
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range pages {
				status, page := call("POST", "/v1/pages", map[string]any{
					"parent":     map[string]any{"page_id": srv.RootPageID()},
					"properties": map[string]any{"title": []any{text(fmt.Sprintf("w%d p%d", w, p))}},
				})
				if status != 200 {
					t.Errorf("create: %d", status)
					return
				}
				if status, _ := call("PATCH", "/v1/blocks/"+page["id"].(string)+"/children", map[string]any{"children": []any{para("a"), para("b")}}); status != 200 {
					t.Errorf("append: %d", status)
				}
			}
		}()
	}
	wg.Wait()
	ws := srv.Export()
	if n := len(ws.Pages[0].Pages); n != workers*pages {
		t.Fatalf("%d pages, want %d", n, workers*pages)
	}
	for _, p := range ws.Pages[0].Pages {
		if len(p.Blocks) != 2 {
			t.Errorf("page %s has %d blocks", p.Title, len(p.Blocks))
		}
	}
	if got := srv.Stats().Tokens[token].Requests; got != 2*workers*pages {
		t.Errorf("requests counted = %d", got)
	}

	// A file upload through a real multipart request, then the file URL.
	_, up := call("POST", "/v1/file_uploads", map[string]any{"filename": "n.txt"})
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "n.txt")
	fw.Write([]byte("hello"))
	mw.Close()
	req, _ := http.NewRequest("POST", up["upload_url"].(string), &buf)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Notion-Version", APIVersion)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := ts.Client().Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("send over HTTP: %v %v", err, res)
	}
	res.Body.Close()
	ws = srv.Export()
	fres, err := ts.Client().Get(ts.URL + ws.Uploads[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(fres.Body)
	fres.Body.Close()
	if string(body) != "hello" {
		t.Errorf("served file = %q", body)
	}
}
