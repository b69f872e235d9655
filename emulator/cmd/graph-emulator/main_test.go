package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/notebridge/notebridge/emulator/graph"
)

func TestFlagsBuildConfig(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		wantErr bool
		check   func(t *testing.T, o options, cfg graph.Config)
	}{
		{name: "defaults", check: func(t *testing.T, o options, cfg graph.Config) {
			if cfg.Limits.User.Windows[0] != (graph.Window{N: 120, Duration: time.Minute}) || cfg.Limits.App.Concurrency != 20 {
				t.Errorf("limits %+v", cfg.Limits)
			}
			if o.addr != "127.0.0.1:8081" || cfg.ScopeHeader != graph.ScopeHeaderNone {
				t.Errorf("addr %q scope header %v", o.addr, cfg.ScopeHeader)
			}
		}},
		{name: "knobs", args: []string{"-scope-header", "full", "-time-scale", "60", "-hidden-limits", "0.7", "-user-per-hour", "50", "-fault-5xx", "0.1", "-library-limit-users", "a,b"},
			check: func(t *testing.T, o options, cfg graph.Config) {
				if cfg.ScopeHeader != graph.ScopeHeaderFull || cfg.TimeScale != 60 || cfg.HiddenLimitFactor != 0.7 || cfg.Limits.User.Windows[1].N != 50 {
					t.Errorf("config %+v", cfg)
				}
				if o.faults.ServerErrorRate != 0.1 || len(o.faults.LibraryLimitUsers) != 2 {
					t.Errorf("faults %+v", o.faults)
				}
			}},
		{name: "reality switches", args: []string{"-app-scope=false", "-fault-burst", "108", "-fault-expand-outage", "1", "-locked-sections", "2", "-message-locale", "nl", "-tls"},
			check: func(t *testing.T, o options, cfg graph.Config) {
				if len(cfg.Limits.App.Windows) != 0 || cfg.Limits.App.Concurrency != 0 || len(cfg.Limits.User.Windows) != 2 {
					t.Errorf("-app-scope=false: limits %+v", cfg.Limits)
				}
				f := o.faults
				if f.BurstConcurrency != 108 || f.BurstCooldown != 3*time.Minute || f.ExpandOutageRate != 1 || f.ExpandOutage != 7*time.Minute || f.MessageLocale != "nl" {
					t.Errorf("faults %+v", f)
				}
				if o.spec.LockedSections != 2 || !o.tls {
					t.Errorf("locked sections %d, tls %v", o.spec.LockedSections, o.tls)
				}
			}},
		{name: "measured quirks by default", check: func(t *testing.T, o options, cfg graph.Config) {
			if cfg.InkMultipartRelated || cfg.LenientToLower || cfg.FreshTitleLag != 30*time.Second || cfg.RefreshExpiredCode70008 || o.spec.UntitledEvery != 0 {
				t.Errorf("quirk switches %+v, untitled every %d", cfg, o.spec.UntitledEvery)
			}
		}},
		{name: "quirk switches", args: []string{"-ink-multipart-related", "-lenient-tolower", "-fresh-title-lag", "-1s", "-refresh-expired-70008", "-untitled-every", "3"},
			check: func(t *testing.T, o options, cfg graph.Config) {
				if !cfg.InkMultipartRelated || !cfg.LenientToLower || cfg.FreshTitleLag != -time.Second || !cfg.RefreshExpiredCode70008 || o.spec.UntitledEvery != 3 {
					t.Errorf("quirk switches %+v, untitled every %d", cfg, o.spec.UntitledEvery)
				}
			}},
		{name: "app scope on by default", check: func(t *testing.T, o options, cfg graph.Config) {
			if cfg.Limits.App.Windows[1] != (graph.Window{N: 800, Duration: time.Hour}) {
				t.Errorf("app limits %+v", cfg.Limits.App)
			}
		}},
		{name: "cert out without tls", args: []string{"-tls-cert-out", "x.pem"}, wantErr: true},
		{name: "unknown locale", args: []string{"-message-locale", "de"}, wantErr: true},
		{name: "bad scope header", args: []string{"-scope-header", "loud"}, wantErr: true},
		{name: "unknown flag", args: []string{"-nope"}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseFlags(tc.args, io.Discard)
			var cfg graph.Config
			if err == nil {
				cfg, err = o.config(nil)
			}
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, wantErr %v", err, tc.wantErr)
			}
			if tc.check != nil {
				tc.check(t, o, cfg)
			}
		})
	}
}

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

func TestServesHTTPSWithTheWrittenCertificate(t *testing.T) {
	certFile := filepath.Join(t.TempDir(), "graph-emulator.pem")
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-tls", "-tls-cert-out", certFile, "-pages", "3"}, &out, io.Discard)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	banner := regexp.MustCompile(`on (https://127\.0\.0\.1:\d+) `)
	token := regexp.MustCompile(`token alice: (\S+)`)
	var base, tok string
	for base == "" || tok == "" {
		select {
		case err := <-done:
			t.Fatalf("run ended early: %v\n%s", err, out.String())
		default:
		}
		if m := banner.FindStringSubmatch(out.String()); m != nil {
			base = m[1]
		}
		if m := token.FindStringSubmatch(out.String()); m != nil {
			tok = m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	pemBytes, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("%s holds no PEM certificate", certFile)
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, host := range []string{base, strings.Replace(base, "127.0.0.1", "localhost", 1)} {
		req, _ := http.NewRequest(http.MethodGet, host+"/v1.0/me/onenote/notebooks", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET over https trusting only %s: %v", certFile, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"self":"`+host+`/v1.0/me/onenote/notebooks/`) {
			t.Errorf("GET %s: %d, want 200 with https self links: %.200s", host, resp.StatusCode, body)
		}
	}
}
