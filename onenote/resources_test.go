package onenote

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func TestDownloadResource(t *testing.T) {
	payload := bytes.Repeat([]byte("0123456789"), 100) // 1000 bytes
	var gotPath string
	var chunked bool
	c, n, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		gotPath = r.URL.EscapedPath()
		w.Header().Set("Content-Type", "image/png")
		if chunked {
			w.(http.Flusher).Flush() // no Content-Length: size known only by reading
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(payload)))
		}
		_, _ = w.Write(payload)
	})
	tests := []struct {
		name     string
		ref      string
		max      int64
		chunked  bool
		wantPath string
		wantKind Kind // KindUnknown = success
		wantSent bool
	}{
		{"absolute graph URL", srv.URL + "/v1.0/users/u1/onenote/resources/r1/$value", 4096, false, "/v1.0/users/u1/onenote/resources/r1/$value", KindUnknown, true},
		{"relative resources path", "resources/r2/$value", 4096, false, "/v1.0/me/onenote/resources/r2/$value", KindUnknown, true},
		{"root-relative with version", "/v1.0/me/onenote/resources/r3/$value", 4096, false, "/v1.0/me/onenote/resources/r3/$value", KindUnknown, true},
		{"root-relative without version", "/me/onenote/resources/r4/content", 4096, false, "/v1.0/me/onenote/resources/r4/content", KindUnknown, true},
		{"exactly at cap", "resources/r5/$value", 1000, false, "", KindUnknown, true},
		{"over cap by content-length", "resources/r6/$value", 999, false, "", KindTooLarge, true},
		{"over cap while streaming", "resources/r7/$value", 999, true, "", KindTooLarge, true},
		{"exactly at cap while streaming", "resources/r8/$value", 1000, true, "", KindUnknown, true},
		{"foreign host", "https://evil.example/v1.0/me/onenote/resources/r/$value", 4096, false, "", KindInvalidArgument, false},
		{"legacy onenote.com", "https://www.onenote.com/api/v1.0/me/notes/resources/r/$value", 4096, false, "", KindInvalidArgument, false},
		{"garbage", "r9", 4096, false, "", KindInvalidArgument, false},
		{"zero cap", "resources/r/$value", 0, false, "", KindInvalidArgument, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chunked = tt.chunked
			before := n.Load()
			var buf bytes.Buffer
			res, obs, err := c.DownloadResource(context.Background(), tt.ref, &buf, tt.max)
			if sent := n.Load() > before; sent != tt.wantSent {
				t.Fatalf("sent = %v, want %v", sent, tt.wantSent)
			}
			if tt.wantKind != KindUnknown {
				if KindOf(err) != tt.wantKind {
					t.Fatalf("err = %v, want %v", err, tt.wantKind)
				}
				if int64(buf.Len()) > tt.max {
					t.Errorf("wrote %d bytes past the cap %d", buf.Len(), tt.max)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), payload) || res.Bytes != 1000 || res.ContentType != "image/png" || obs.Cost != 1 {
				t.Errorf("res = %+v, %d bytes, obs %+v", res, buf.Len(), obs)
			}
			if tt.wantPath != "" && gotPath != tt.wantPath {
				t.Errorf("path = %q, want %q", gotPath, tt.wantPath)
			}
		})
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestDownloadResourceWriterAndTruncation(t *testing.T) {
	truncate := false
	c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if truncate {
			w.Header().Set("Content-Length", "100")
			_, _ = w.Write([]byte(strings.Repeat("a", 50)))
			return // net/http closes the connection: body cut short
		}
		_, _ = w.Write([]byte("data"))
	})
	_, _, err := c.DownloadResource(context.Background(), "resources/r/$value", failingWriter{}, 100)
	if err == nil || KindOf(err) == KindTransient || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("writer failure: %v", err)
	}
	truncate = true
	_, _, err = c.DownloadResource(context.Background(), "resources/r/$value", new(bytes.Buffer), 1000)
	if KindOf(err) != KindTransient {
		t.Errorf("truncated body: %v", err)
	}
}
