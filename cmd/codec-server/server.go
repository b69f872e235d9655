package main

import (
	"crypto/subtle"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
)

// The headers the Web UI and the temporal CLI send with a codec request.
const allowHeaders = "Authorization, Content-Type, X-Namespace"

// handlerConfig configures the codec HTTP handler.
type handlerConfig struct {
	// Codec encodes and decodes.
	Codec *codec.Codec
	// Origins are the browser origins (the Web UI's) allowed to call,
	// e.g. "http://localhost:8233".
	Origins []string
	// Token, if set, must come as "Authorization: Bearer <token>".
	Token auth.Secret
	// MaxBody caps a request body, in bytes.
	MaxBody int64
	// AnyHost accepts requests for any Host. Without it, only loopback
	// host names are served, which defeats DNS rebinding: a web page
	// whose name resolves to 127.0.0.1 still sends its own name as Host.
	AnyHost bool
	// Log gets one line per request: method, path, status, namespace,
	// origin and duration; never a payload or a header value.
	Log *slog.Logger
}

// newHandler returns the codec server's handler: Temporal's remote codec
// protocol (POST .../encode and .../decode with {"payloads": [...]},
// under any path prefix such as /default), CORS for the configured
// origins, optional bearer-token authorisation, and GET /healthz. A
// payload /decode cannot decrypt comes back as its reason (see
// explainingCodec).
func newHandler(cfg handlerConfig) http.Handler {
	inner := converter.NewPayloadCodecHTTPHandler(explainingCodec{codec: cfg.Codec, log: cfg.Log})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		serve(cfg, inner, rw, r)
		cfg.Log.LogAttrs(r.Context(), slog.LevelInfo, "codec request", slog.String("method", r.Method),
			slog.String("path", r.URL.Path), slog.Int("status", rw.status),
			slog.String("namespace", r.Header.Get("X-Namespace")), slog.String("origin", r.Header.Get("Origin")),
			slog.Duration("took", time.Since(start)))
	})
}

func serve(cfg handlerConfig, inner http.Handler, w http.ResponseWriter, r *http.Request) {
	if !cfg.AnyHost && !loopbackHost(r.Host) {
		http.Error(w, fmt.Sprintf("host %q is not a loopback name; start the codec server with -allow-remote to serve other hosts", r.Host),
			http.StatusMisdirectedRequest)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		if !slices.Contains(cfg.Origins, origin) {
			http.Error(w, fmt.Sprintf("origin %q is not allowed: start the codec server with -ui-origin %s", origin, origin),
				http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Add("Vary", "Origin")
	}
	if r.Method == http.MethodOptions {
		h := w.Header()
		h.Set("Access-Control-Allow-Methods", "POST, OPTIONS")
		h.Set("Access-Control-Allow-Headers", allowHeaders)
		h.Set("Access-Control-Max-Age", "600")
		h.Set("Allow", "POST, OPTIONS")
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
		return
	}
	if !strings.HasSuffix(r.URL.Path, "/encode") && !strings.HasSuffix(r.URL.Path, "/decode") {
		http.Error(w, "not found: the codec server answers POST /encode and POST /decode", http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST, OPTIONS")
		http.Error(w, "use POST", http.StatusMethodNotAllowed)
		return
	}
	if !cfg.Token.IsZero() && !authorized(r.Header.Get("Authorization"), cfg.Token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="notebridge-codec"`)
		http.Error(w, "unauthorized: send \"Authorization: Bearer <token>\" with the token from the codec server's -auth-token-file "+
			"(Web UI: codec settings, pass the access token; CLI: --codec-auth)", http.StatusUnauthorized)
		return
	}
	if r.ContentLength > cfg.MaxBody {
		http.Error(w, fmt.Sprintf("request body of %d bytes is over the %d-byte limit (-max-body)", r.ContentLength, cfg.MaxBody),
			http.StatusRequestEntityTooLarge)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, cfg.MaxBody)
	inner.ServeHTTP(w, r)
}

// explainingCodec is the codec behind /decode: a payload it cannot
// decrypt (sealed with a key the server lacks, modified, malformed) comes
// back as a JSON string that says why and what to do, in place of the
// payload, and the others decode as usual. An error answer (HTTP 400)
// would not reach people: the temporal CLI treats a failed decode as a
// retryable gRPC error and retries it until its 10-second deadline, then
// prints "context deadline exceeded". The reason never holds payload data.
type explainingCodec struct {
	codec *codec.Codec
	log   *slog.Logger
}

// Encode encrypts with the codec.
func (e explainingCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return e.codec.Encode(payloads)
}

// Decode decrypts each payload, putting its reason in place of one that
// does not decrypt.
func (e explainingCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		d, err := e.codec.DecodePayload(p)
		if err != nil {
			e.log.Warn("payload not decrypted: answered with the reason", "payload", i, "error", err)
			if d, err = explanation(err); err != nil {
				return nil, err
			}
		}
		out[i] = d
	}
	return out, nil
}

// explanation is the payload that stands for one that did not decrypt.
func explanation(reason error) (*commonpb.Payload, error) {
	msg := "codec server could not decrypt this payload: " + reason.Error()
	p, err := converter.GetDefaultDataConverter().ToPayload(msg)
	if err != nil {
		return nil, fmt.Errorf("explain a payload that did not decrypt: %w", err)
	}
	return p, nil
}

// authorized compares the Authorization header with "Bearer <token>" in
// constant time.
func authorized(header string, token auth.Secret) bool {
	const prefix = "bearer "
	if len(header) < len(prefix) || !strings.EqualFold(header[:len(prefix)], prefix) {
		return false
	}
	got := strings.TrimSpace(header[len(prefix):])
	return subtle.ConstantTimeCompare([]byte(got), []byte(token.Reveal())) == 1
}

// loopbackHost reports whether a Host header names this machine's
// loopback interface: localhost, 127.0.0.0/8 or ::1, with any port.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// statusWriter remembers the status written, for the request log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

// WriteHeader records the status and passes it on.
func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
