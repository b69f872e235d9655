package onenote

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

const (
	pageHTML = "<html><head><title>T</title></head><body data-absolute-enabled=\"true\"><p>hi</p></body></html>"
	pageInk  = `<inkml:ink xmlns:inkml="http://www.w3.org/2003/InkML"><inkml:trace>0 0, 10 10</inkml:trace></inkml:ink>`
)

func multipartBody(boundary string) string {
	return "--" + boundary + "\r\n" +
		"Content-Type: text/html\r\n\r\n" + pageHTML + "\r\n" +
		"--" + boundary + "\r\n" +
		"Content-Type: application/inkml+xml\r\n\r\n" + pageInk + "\r\n" +
		"--" + boundary + "--\r\n"
}

func TestGetPageContent(t *testing.T) {
	tests := []struct {
		name        string
		ink         bool
		contentType string
		body        string
		wantInk     bool
		wantKind    Kind // KindUnknown means no error
	}{
		{"plain html", false, "text/html", pageHTML, false, KindUnknown},
		{"ink asked, page has none", true, "text/html", pageHTML, false, KindUnknown},
		{"multipart boundary in header", true, `multipart/related; boundary="b-123"`, multipartBody("b-123"), true, KindUnknown},
		// What a real account answered (graph-reality.md fact 35).
		{"multipart/mixed, as measured", true, `multipart/mixed; boundary="b-123"`, multipartBody("b-123"), true, KindUnknown},
		{"multipart/mixed truncated", true, `multipart/mixed; boundary=b`, multipartBody("b")[:60], false, KindTransient},
		{"multipart boundary from first line", true, "application/octet-stream", multipartBody("Part_0_xyz"), true, KindUnknown},
		{"multipart truncated", true, `multipart/related; boundary=b`, multipartBody("b")[:60], false, KindTransient},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1.0/me/onenote/pages/p1/content" {
					t.Errorf("path %q", r.URL.Path)
				}
				if got := r.URL.Query().Get("includeInkML"); (got == "true") != tt.ink {
					t.Errorf("includeInkML = %q", got)
				}
				w.Header().Set("Content-Type", tt.contentType)
				_, _ = w.Write([]byte(tt.body))
			})
			pc, obs, err := c.GetPageContent(context.Background(), "p1", ContentOptions{IncludeInkML: tt.ink})
			if tt.wantKind != KindUnknown {
				if KindOf(err) != tt.wantKind {
					t.Fatalf("err = %v, want kind %v", err, tt.wantKind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(pc.HTML) != pageHTML {
				t.Errorf("HTML = %q", pc.HTML)
			}
			if tt.wantInk != (string(pc.InkML) == pageInk) {
				t.Errorf("InkML = %q", pc.InkML)
			}
			if obs.Cost != 1 || obs.Status != 200 {
				t.Errorf("obs = %+v", obs)
			}
		})
	}
}

func TestGetPageContentCapAndErrors(t *testing.T) {
	big := strings.Repeat("x", 2048)
	var status int
	c, _, srv := newTestClient(t, func(w http.ResponseWriter, r *http.Request) {
		if status != 0 {
			writeGraphError(w, status, "", "")
			return
		}
		_, _ = w.Write([]byte(big))
	})
	small, err := New(Config{BaseURL: srv.URL + "/v1.0", Tokens: StaticToken(testToken), MaxContentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := small.GetPageContent(context.Background(), "p1", ContentOptions{}); KindOf(err) != KindTooLarge {
		t.Errorf("over cap: %v", err)
	}
	if pc, _, err := c.GetPageContent(context.Background(), "p1", ContentOptions{}); err != nil || len(pc.HTML) != 2048 {
		t.Errorf("under default cap: %d bytes, %v", len(pc.HTML), err)
	}
	for _, tt := range []struct {
		status int
		want   Kind
	}{{404, KindNotFound}, {400, KindTransient}, {503, KindTransient}, {429, KindThrottled}} {
		status = tt.status
		if _, _, err := c.GetPageContent(context.Background(), "p1", ContentOptions{}); KindOf(err) != tt.want {
			t.Errorf("status %d: %v, want %v", tt.status, err, tt.want)
		}
	}
}

func TestParseMultipart(t *testing.T) {
	html, ink, other, err := ParseMultipart("", []byte("\r\n"+multipartBody("zz")))
	if err != nil || string(html) != pageHTML || string(ink) != pageInk || len(other) != 0 {
		t.Fatalf("leading blank line: %q %q %v %v", html, ink, other, err)
	}
	extra := "--b\r\nContent-Type: text/html\r\n\r\n" + pageHTML + "\r\n--b\r\nContent-Type: image/png\r\n\r\nPNG\r\n--b--\r\n"
	html, ink, other, err = ParseMultipart("multipart/mixed; boundary=b", []byte(extra))
	if err != nil || string(html) != pageHTML || ink != nil || len(other) != 1 || other[0].ContentType != "image/png" {
		t.Fatalf("extra part: %q %q %+v %v", html, ink, other, err)
	}
	untyped := "--b\r\nX-Other: 1\r\n\r\n" + pageHTML + "\r\n--b--\r\n"
	if html, _, _, err := ParseMultipart("", []byte(untyped)); err != nil || string(html) != pageHTML {
		t.Fatalf("part without Content-Type that looks like HTML: %q %v", html, err)
	}
	for _, bad := range []string{"", "no boundary here", "--b\r\n", "--b\r\nContent-Type: application/inkml+xml\r\n\r\nink\r\n--b--\r\n"} {
		if _, _, _, err := ParseMultipart("", []byte(bad)); err == nil {
			t.Errorf("ParseMultipart(%q) succeeded", bad)
		}
	}
}
