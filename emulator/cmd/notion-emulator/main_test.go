package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/notion"
)

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-token", "secret_a,secret_b,secret_ro",
			"-token-caps", "secret_ro=read_content", "-log", "error"}, &out, io.Discard)
	}()
	addr := regexp.MustCompile(`listening on (http://\S+)`)
	var base string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := addr.FindStringSubmatch(out.String()); m != nil && strings.Contains(out.String(), "export:") {
			base = m[1]
			break
		}
	}
	if base == "" {
		t.Fatalf("no listening line in %q", out.String())
	}
	// No keep-alive: a connection the transport dials ahead and leaves
	// unused would hold the server's graceful shutdown for 5 s.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, tok := range []string{"secret_a", "secret_b"} {
		req, _ := http.NewRequest("GET", base+"/v1/users/me", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Notion-Version", "2022-06-28")
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Errorf("token %s: status %d", tok, res.StatusCode)
		}
	}
	// A token without insert content is refused a page create.
	req, _ := http.NewRequest("POST", base+"/v1/pages", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer secret_ro")
	req.Header.Set("Notion-Version", "2022-06-28")
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("read-only token creating a page: %d, want 403", res.StatusCode)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
	printed := out.String()
	if strings.Contains(printed, "secret_") {
		t.Errorf("tokens given with -token were echoed: %q", printed)
	}
	if want := "token " + notion.TokenFingerprint("secret_ro") + ": read_content\n"; !strings.Contains(printed, want) {
		t.Errorf("output %q lacks %q", printed, want)
	}
}

func TestRunRejectsBadTokenCaps(t *testing.T) {
	for _, args := range [][]string{
		{"-token", "secret_a", "-token-caps", "secret_a=write_everything"},
		{"-token", "secret_a", "-token-caps", "secret_other=read_content"},
		{"-token", "secret_a", "-token-caps", "secret_a"},
	} {
		err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "-token-caps") || strings.Contains(err.Error(), "secret_") {
			t.Errorf("%v: err = %v, want a -token-caps error naming no token", args, err)
		}
	}
}

func TestParseFlags(t *testing.T) {
	o, err := parseFlags([]string{"-fault-500", "0.1", "-rate", "-1", "-block-limit", "1000"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if o.faults.InternalError != 0.1 || o.rate != -1 || o.blockLimit != 1000 || o.addr != "127.0.0.1:8082" {
		t.Errorf("options = %+v", o)
	}
	if _, err := parseFlags([]string{"extra"}, io.Discard); err == nil {
		t.Error("stray argument accepted")
	}
}

// TestParsePartialWriteFlags checks the partial-write fault's flags: the
// rate, the pages (comma-separated, trimmed) and the cut, a wrong cut
// refused.
func TestParsePartialWriteFlags(t *testing.T) {
	tests := []struct {
		args    []string
		rate    float64
		pages   []string
		cut     string
		wantErr bool
	}{
		{[]string{"-fault-partial", "0.2"}, 0.2, nil, "", false},
		{[]string{"-fault-partial", "1", "-fault-partial-pages", "Trip notes, 1f2e3d4c-0000-4000-8000-000000000001", "-fault-partial-cut", "text"},
			1, []string{"Trip notes", "1f2e3d4c-0000-4000-8000-000000000001"}, "text", false},
		{[]string{"-fault-partial-cut", "half"}, 0, nil, "half", true},
	}
	for _, tt := range tests {
		o, err := parseFlags(tt.args, io.Discard)
		if (err != nil) != tt.wantErr {
			t.Errorf("%q: err = %v, want error %v", tt.args, err, tt.wantErr)
			continue
		}
		if err == nil && (o.faults.PartialWrite != tt.rate || !slices.Equal(o.faults.PartialWritePages, tt.pages) || o.faults.PartialWriteCut != tt.cut) {
			t.Errorf("%q: faults %+v", tt.args, o.faults)
		}
	}
}
