package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/notebridge/notebridge/codec"
)

const testToken = "test-bearer-token-0123456789abcdef"

func newKey(t *testing.T) codec.Key {
	t.Helper()
	k, err := codec.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newCodec(t *testing.T, keys ...codec.Key) *codec.Codec {
	t.Helper()
	c, err := codec.New(keys)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startHandler serves newHandler on a loopback test server.
func startHandler(t *testing.T, cfg handlerConfig) *httptest.Server {
	t.Helper()
	if cfg.Origins == nil {
		cfg.Origins = []string{"http://localhost:8233", "http://127.0.0.1:8233"}
	}
	if cfg.MaxBody == 0 {
		cfg.MaxBody = defaultMaxBody
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	srv := httptest.NewServer(newHandler(cfg))
	t.Cleanup(srv.Close)
	return srv
}

func jsonPayloads(t *testing.T, ps ...*commonpb.Payload) []byte {
	t.Helper()
	b, err := protojson.Marshal(&commonpb.Payloads{Payloads: ps})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to url with headers, returning the status, the headers
// and the body.
// noKeepAlive is the tests' client: a connection the transport dials
// ahead and leaves unused would hold the server's graceful shutdown.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func post(t *testing.T, method, url string, body []byte, headers map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := noKeepAlive.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

func samplePayloads(t *testing.T) []*commonpb.Payload {
	t.Helper()
	dc := converter.GetDefaultDataConverter()
	var ps []*commonpb.Payload
	for _, v := range []any{map[string]string{"user": "alice", "notebook": "marker-1b7e"}, 42, nil, []byte{0, 1, 2}} {
		p, err := dc.ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

func TestRoundTripOverHTTP(t *testing.T) {
	srv := startHandler(t, handlerConfig{Codec: newCodec(t, newKey(t))})
	in := samplePayloads(t)

	// As the Web UI calls it: protojson in, JSON out, under a namespace prefix too.
	status, _, body := post(t, http.MethodPost, srv.URL+"/encode", jsonPayloads(t, in...), nil)
	if status != http.StatusOK {
		t.Fatalf("encode: %d %s", status, body)
	}
	if strings.Contains(body, "alice") || strings.Contains(body, "json/plain") {
		t.Fatalf("encoded body shows plaintext: %s", body)
	}
	status, _, body = post(t, http.MethodPost, srv.URL+"/default/decode", []byte(body), map[string]string{"X-Namespace": "default"})
	if status != http.StatusOK {
		t.Fatalf("decode: %d %s", status, body)
	}
	var out commonpb.Payloads
	if err := protojson.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	assertSame(t, in, out.Payloads)

	// As the temporal CLI calls it: the SDK's remote codec.
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL})
	enc, err := remote.Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range enc {
		if string(p.Metadata[converter.MetadataEncoding]) != codec.EncodingEncrypted {
			t.Errorf("remote encode gave encoding %q", p.Metadata[converter.MetadataEncoding])
		}
	}
	dec, err := remote.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	assertSame(t, in, dec)
}

func assertSame(t *testing.T, want, got []*commonpb.Payload) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d payloads, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(got[i], want[i]) {
			t.Errorf("payload %d: got %v, want %v", i, got[i], want[i])
		}
	}
}

// TestWrongKeyFailsClearly: a payload sealed with a key the server lacks
// comes back, in its place, as a string that names both keys and the fix;
// the other payloads of the request decode. (An error answer would reach
// no one: the temporal CLI retries a failed decode until its deadline.)
func TestWrongKeyFailsClearly(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	sealed, err := newCodec(t, k1).Encode(samplePayloads(t))
	if err != nil {
		t.Fatal(err)
	}
	known, err := newCodec(t, k2).Encode(samplePayloads(t)[:1])
	if err != nil {
		t.Fatal(err)
	}
	srv := startHandler(t, handlerConfig{Codec: newCodec(t, k2)})
	status, _, body := post(t, http.MethodPost, srv.URL+"/decode", jsonPayloads(t, append(sealed, known[0])...), nil)
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200: %s", status, body)
	}
	var got commonpb.Payloads
	if err := protojson.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Payloads) != len(sealed)+1 {
		t.Fatalf("%d payloads back, want %d", len(got.Payloads), len(sealed)+1)
	}
	for i := range sealed {
		var reason string
		if err := converter.GetDefaultDataConverter().FromPayload(got.Payloads[i], &reason); err != nil {
			t.Fatalf("payload %d: %v", i, err)
		}
		for _, want := range []string{"could not decrypt", k1.ID(), k2.ID(), codec.EnvKey, "not configured"} {
			if !strings.Contains(reason, want) {
				t.Errorf("payload %d: %q does not mention %q", i, reason, want)
			}
		}
	}
	if want := samplePayloads(t)[0]; !proto.Equal(got.Payloads[len(sealed)], want) {
		t.Errorf("the payload sealed with the server's key: %v, want %v", got.Payloads[len(sealed)], want)
	}
	// Unencrypted payloads still pass: history written before the codec.
	plain := samplePayloads(t)
	status, _, body = post(t, http.MethodPost, srv.URL+"/decode", jsonPayloads(t, plain...), nil)
	if err := protojson.Unmarshal([]byte(body), &got); status != http.StatusOK || err != nil || !proto.Equal(got.Payloads[0], plain[0]) {
		t.Errorf("plain payloads: %d %s", status, body)
	}
}

func TestCORS(t *testing.T) {
	srv := startHandler(t, handlerConfig{Codec: newCodec(t, newKey(t)), Token: testToken})
	preflight := map[string]string{
		"Origin":                         "http://localhost:8233",
		"Access-Control-Request-Method":  "POST",
		"Access-Control-Request-Headers": "authorization,content-type,x-namespace",
	}
	// A preflight carries no credentials; it must pass without the token.
	status, h, body := post(t, http.MethodOptions, srv.URL+"/decode", nil, preflight)
	if status != http.StatusNoContent {
		t.Fatalf("preflight: %d %s", status, body)
	}
	for name, want := range map[string]string{
		"Access-Control-Allow-Origin":      "http://localhost:8233",
		"Access-Control-Allow-Credentials": "true",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, want := range []string{"authorization", "content-type", "x-namespace"} {
		if !strings.Contains(strings.ToLower(h.Get("Access-Control-Allow-Headers")), want) {
			t.Errorf("Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), want)
		}
	}
	if !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
		t.Errorf("Access-Control-Allow-Methods %q", h.Get("Access-Control-Allow-Methods"))
	}
	if !strings.Contains(h.Get("Vary"), "Origin") {
		t.Errorf("Vary %q", h.Get("Vary"))
	}

	// The other default origin works too; a foreign one is refused, on
	// preflight and on the request itself.
	preflight["Origin"] = "http://127.0.0.1:8233"
	if status, h, _ := post(t, http.MethodOptions, srv.URL+"/decode", nil, preflight); status != http.StatusNoContent ||
		h.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:8233" {
		t.Errorf("127.0.0.1 origin: %d %q", status, h.Get("Access-Control-Allow-Origin"))
	}
	for _, method := range []string{http.MethodOptions, http.MethodPost} {
		status, h, body := post(t, method, srv.URL+"/decode", jsonPayloads(t), map[string]string{
			"Origin": "https://evil.example", "Authorization": "Bearer " + testToken})
		if status != http.StatusForbidden || h.Get("Access-Control-Allow-Origin") != "" || !strings.Contains(body, "-ui-origin") {
			t.Errorf("%s from a foreign origin: %d %q %s", method, status, h.Get("Access-Control-Allow-Origin"), body)
		}
	}

	// The real request from the UI's origin gets the CORS headers.
	status, h, body = post(t, http.MethodPost, srv.URL+"/decode", jsonPayloads(t, samplePayloads(t)...), map[string]string{
		"Origin": "http://localhost:8233", "Authorization": "Bearer " + testToken, "X-Namespace": "default"})
	if status != http.StatusOK || h.Get("Access-Control-Allow-Origin") != "http://localhost:8233" {
		t.Errorf("POST from the UI: %d %q %s", status, h.Get("Access-Control-Allow-Origin"), body)
	}
}

func TestBearerToken(t *testing.T) {
	srv := startHandler(t, handlerConfig{Codec: newCodec(t, newKey(t)), Token: testToken})
	body := jsonPayloads(t, samplePayloads(t)...)
	for _, tc := range []struct {
		name   string
		header string
		want   int
	}{
		{"none", "", http.StatusUnauthorized},
		{"wrong", "Bearer not-the-token-at-all-0000000", http.StatusUnauthorized},
		{"prefix of the token", "Bearer " + testToken[:10], http.StatusUnauthorized},
		{"no scheme", testToken, http.StatusUnauthorized},
		{"basic", "Basic " + testToken, http.StatusUnauthorized},
		{"right", "Bearer " + testToken, http.StatusOK},
		{"scheme in lower case", "bearer " + testToken, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := map[string]string{"Origin": "http://localhost:8233"}
			if tc.header != "" {
				h["Authorization"] = tc.header
			}
			status, hdr, answer := post(t, http.MethodPost, srv.URL+"/decode", body, h)
			if status != tc.want {
				t.Fatalf("status %d, want %d: %s", status, tc.want, answer)
			}
			if status == http.StatusUnauthorized {
				if !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer") || !strings.Contains(answer, "--codec-auth") {
					t.Errorf("401 without guidance: %q %s", hdr.Get("WWW-Authenticate"), answer)
				}
				// The UI must be able to read the 401.
				if hdr.Get("Access-Control-Allow-Origin") == "" {
					t.Error("401 without CORS headers")
				}
				if strings.Contains(answer, testToken) {
					t.Error("the token is in the answer")
				}
			}
		})
	}
	remote := converter.NewRemotePayloadCodec(converter.RemotePayloadCodecOptions{Endpoint: srv.URL,
		ModifyRequest: func(r *http.Request) error { r.Header.Set("Authorization", "Bearer "+testToken); return nil }})
	if _, err := remote.Encode(samplePayloads(t)); err != nil {
		t.Errorf("remote codec with the token: %v", err)
	}
}

func TestRequestsOutsideTheProtocol(t *testing.T) {
	srv := startHandler(t, handlerConfig{Codec: newCodec(t, newKey(t)), MaxBody: 4 << 10})
	for _, tc := range []struct {
		name, method, path string
		body               []byte
		headers            map[string]string
		want               int
	}{
		{"GET decode", http.MethodGet, "/decode", nil, nil, http.StatusMethodNotAllowed},
		{"unknown path", http.MethodPost, "/translate", nil, nil, http.StatusNotFound},
		{"health", http.MethodGet, "/healthz", nil, nil, http.StatusOK},
		{"not JSON", http.MethodPost, "/decode", []byte("{nope"), nil, http.StatusBadRequest},
		{"too large", http.MethodPost, "/encode", bytes.Repeat([]byte(" "), 8<<10), nil, http.StatusRequestEntityTooLarge},
		// DNS rebinding: a page on a name resolving to 127.0.0.1 sends its own name.
		{"foreign host", http.MethodPost, "/decode", jsonPayloads(t), map[string]string{"Host": "rebind.evil.example:8234"}, http.StatusMisdirectedRequest},
		{"localhost host", http.MethodPost, "/decode", jsonPayloads(t), map[string]string{"Host": "localhost:8234"}, http.StatusOK},
		{"IPv6 loopback host", http.MethodPost, "/decode", jsonPayloads(t), map[string]string{"Host": "[::1]:8234"}, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if status, _, body := post(t, tc.method, srv.URL+tc.path, tc.body, tc.headers); status != tc.want {
				t.Errorf("status %d, want %d: %s", status, tc.want, body)
			}
		})
	}
	anyHost := startHandler(t, handlerConfig{Codec: newCodec(t, newKey(t)), AnyHost: true, Token: testToken})
	if status, _, body := post(t, http.MethodPost, anyHost.URL+"/decode", jsonPayloads(t),
		map[string]string{"Host": "codec.internal.example", "Authorization": "Bearer " + testToken}); status != http.StatusOK {
		t.Errorf("-allow-remote with another host: %d %s", status, body)
	}
}

func TestParseConfig(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		wantErr string
	}{
		{nil, ""},
		{[]string{"-addr", "localhost:9000"}, ""},
		{[]string{"-addr", "[::1]:9000"}, ""},
		{[]string{"-addr", "0.0.0.0:8234"}, "-allow-remote"},
		{[]string{"-addr", ":8234"}, "-allow-remote"},
		{[]string{"-addr", "10.0.0.5:8234"}, "-allow-remote"},
		{[]string{"-addr", "8234"}, "host:port"},
		{[]string{"-addr", "0.0.0.0:8234", "-allow-remote"}, "-auth-token-file"},
		{[]string{"-addr", "0.0.0.0:8234", "-allow-remote", "-auth-token-file", "/tmp/t"}, ""},
		{[]string{"-ui-origin", "*"}, "not an origin"},
		{[]string{"-ui-origin", "http://localhost:8233/path"}, "not an origin"},
		{[]string{"-ui-origin", "localhost:8233"}, "not an origin"},
		{[]string{"-ui-origin", " , "}, "empty"},
		{[]string{"-ui-origin", "https://temporal.example.com/"}, ""},
		{[]string{"-generate-key"}, "-key-file"},
		{[]string{"-generate-key", "-rotate-key", "-key-file", "k"}, "choose one"},
		{[]string{"-max-body", "10"}, "too small"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		_, err := parseConfig(tc.args, env(nil), io.Discard)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%q: error %v, want one mentioning %q", tc.args, err, tc.wantErr)
		}
	}
	c, err := parseConfig([]string{"-ui-origin", "https://temporal.example.com/, http://localhost:8080"}, env(nil), io.Discard)
	if err != nil || strings.Join(c.Origins, " ") != "https://temporal.example.com http://localhost:8080" {
		t.Errorf("origins %q %v", c.Origins, err)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// TestRunGeneratesKeyAndServes drives the binary's run function: generate
// a key file, serve with it and a token file, answer, stop on cancel.
func TestRunGeneratesKeyAndServes(t *testing.T) {
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "codec.key")
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-generate-key", "-key-file", keyFile}, env(nil), &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "wrote a new payload key") {
		t.Errorf("output %q", out.String())
	}
	if err := run(context.Background(), []string{"-rotate-key", "-key-file", keyFile}, env(nil), &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(testToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-addr", "127.0.0.1:0", "-key-file", keyFile, "-auth-token-file", tokenFile}
	if err := run(context.Background(), args, env(nil), io.Discard, io.Discard, nil); !errors.Is(err, codec.ErrInsecurePermissions) {
		t.Fatalf("0644 token file: %v, want ErrInsecurePermissions", err)
	}
	if err := os.Chmod(tokenFile, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	var logs bytes.Buffer
	go func() {
		done <- run(ctx, args, env(nil), io.Discard, &syncWriter{w: &logs}, func(a string) { addrc <- a })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatal(err)
	}
	status, _, body := post(t, http.MethodPost, "http://"+addr+"/encode", jsonPayloads(t, samplePayloads(t)...),
		map[string]string{"Authorization": "Bearer " + testToken})
	if status != http.StatusOK {
		t.Errorf("encode: %d %s", status, body)
	}
	if status, _, _ := post(t, http.MethodPost, "http://"+addr+"/encode", jsonPayloads(t), nil); status != http.StatusUnauthorized {
		t.Errorf("without the token: %d", status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), testToken) {
		t.Error("the token is in the log")
	}
	keys, err := codec.LoadKeys(env(nil), keyFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if !strings.Contains(logs.String(), k.ID()) {
			t.Errorf("the log does not name key %s", k.ID())
		}
	}
	// The environment key wins over the file, and a bad one is named.
	if err := run(context.Background(), []string{"-addr", "127.0.0.1:0"}, env(map[string]string{codec.EnvKey: "xx"}), io.Discard, io.Discard, nil); !errors.Is(err, codec.ErrInvalidKey) {
		t.Errorf("bad %s: %v", codec.EnvKey, err)
	}
	if err := run(context.Background(), []string{"-addr", "127.0.0.1:0"}, env(nil), io.Discard, io.Discard, nil); !errors.Is(err, codec.ErrNoKey) {
		t.Errorf("no key: %v", err)
	}
}

// syncWriter serialises writes from the server's goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
