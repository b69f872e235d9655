// Command codec-server decrypts and encrypts Note Bridge's Temporal
// payloads for the Temporal Web UI and CLI, over Temporal's remote codec
// protocol (POST /encode, POST /decode). It holds the payload keys; the
// Temporal server never sees them.
//
//	go run ./cmd/codec-server -generate-key -key-file ~/.config/notebridge/codec.key
//	go run ./cmd/codec-server -key-file ~/.config/notebridge/codec.key
//	bin/temporal server start-dev --ui-codec-endpoint http://127.0.0.1:8234
//	bin/temporal workflow show -w <id> --codec-endpoint http://127.0.0.1:8234
//
// A payload it cannot decrypt (sealed with a key it does not hold) comes
// back as a string naming the key IDs and the fix, where the payload
// would show: the temporal CLI retries a failed decode until its
// deadline and would print only "context deadline exceeded".
//
// It listens on 127.0.0.1:8234 and serves loopback host names only, unless
// started with -allow-remote (which then requires -auth-token-file).
// Browsers may call it from the -ui-origin origins only.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/auth"
	"github.com/notebridge/notebridge/codec"
)

// Defaults.
const (
	defaultAddr    = "127.0.0.1:8234"
	defaultOrigins = "http://localhost:8233,http://127.0.0.1:8233"
	defaultMaxBody = 16 << 20
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, nil); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "codec-server:", err)
		os.Exit(1)
	}
}

// config is the codec server's configuration, from flags and the
// environment.
type config struct {
	Addr          string
	AllowRemote   bool
	Origins       []string
	KeyFile       string
	AuthTokenFile string
	MaxBody       int64
	GenerateKey   bool
	RotateKey     bool
	LogLevel      slog.Level
}

// parseConfig reads flags (args without the program name).
func parseConfig(args []string, getenv func(string) string, out io.Writer) (config, error) {
	var c config
	var origins string
	fs := flag.NewFlagSet("codec-server", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.Addr, "addr", defaultAddr, "listen address; a non-loopback address needs -allow-remote")
	fs.BoolVar(&c.AllowRemote, "allow-remote", false, "allow a non-loopback -addr and any Host header (requires -auth-token-file; put TLS in front)")
	fs.StringVar(&origins, "ui-origin", defaultOrigins, "comma-separated browser origins (the Web UI's) allowed to call the server")
	fs.StringVar(&c.KeyFile, "key-file", getenv("NOTEBRIDGE_CODEC_KEY_FILE"), "payload key file, mode 0600 (env NOTEBRIDGE_CODEC_KEY_FILE); "+codec.EnvKey+" wins over it")
	fs.StringVar(&c.AuthTokenFile, "auth-token-file", "", "file (mode 0600) holding a bearer token every /encode and /decode request must send")
	fs.Int64Var(&c.MaxBody, "max-body", defaultMaxBody, "largest request body accepted, in bytes")
	fs.BoolVar(&c.GenerateKey, "generate-key", false, "write a new key file at -key-file (refuses to replace one) and exit")
	fs.BoolVar(&c.RotateKey, "rotate-key", false, "put a new key first in -key-file, keeping the old ones for decryption, and exit")
	logLevel := fs.String("log-level", "info", "debug, info, warn or error")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected argument %q: every setting is a flag (-help lists them)", fs.Arg(0))
	}
	if err := c.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return c, fmt.Errorf("-log-level: %w", err)
	}
	if c.GenerateKey || c.RotateKey {
		if c.GenerateKey && c.RotateKey {
			return c, errors.New("-generate-key and -rotate-key: choose one")
		}
		if c.KeyFile == "" {
			return c, errors.New("-generate-key and -rotate-key need -key-file: the file to write")
		}
		return c, nil
	}
	var err error
	if c.Origins, err = parseOrigins(origins); err != nil {
		return c, err
	}
	if c.MaxBody < 1<<10 {
		return c, fmt.Errorf("-max-body %d is too small: at least 1024 bytes (default %d)", c.MaxBody, defaultMaxBody)
	}
	loopback, err := loopbackAddr(c.Addr)
	if err != nil {
		return c, err
	}
	if !loopback && !c.AllowRemote {
		return c, fmt.Errorf("-addr %s is not a loopback address: anyone who reaches it could decrypt every payload; "+
			"use 127.0.0.1:<port>, or add -allow-remote with -auth-token-file behind TLS", c.Addr)
	}
	if c.AllowRemote && c.AuthTokenFile == "" {
		return c, errors.New("-allow-remote needs -auth-token-file: without a token anyone who reaches the server could decrypt every payload")
	}
	return c, nil
}

// parseOrigins checks each origin is scheme://host[:port] and nothing else.
func parseOrigins(list string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(list, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		u, err := url.Parse(o)
		if o == "*" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil || u.Fragment != "" {
			return nil, fmt.Errorf("-ui-origin %q is not an origin: give scheme://host[:port] such as http://localhost:8233 (no wildcard, no path)", o)
		}
		out = append(out, u.Scheme+"://"+u.Host)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-ui-origin is empty: give the Web UI's origin, e.g. %s", defaultOrigins)
	}
	return out, nil
}

// loopbackAddr reports whether a listen address binds loopback only.
func loopbackAddr(addr string) (bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || port == "" {
		return false, fmt.Errorf("-addr %q is not host:port (e.g. %s): %v", addr, defaultAddr, err)
	}
	if host == "" {
		return false, nil // every interface
	}
	return loopbackHost(host), nil
}

// run runs the codec server until ctx ends. ready, if not nil, gets the
// listening address.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready func(addr string)) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	switch {
	case cfg.GenerateKey:
		k, err := codec.GenerateKeyFile(cfg.KeyFile)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote a new payload key (id %s) to %s, mode 0600\n", k.ID(), cfg.KeyFile)
		return nil
	case cfg.RotateKey:
		k, err := codec.RotateKeyFile(cfg.KeyFile)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "added payload key %s first in %s; the older keys still decrypt. Restart the codec server, then every worker and starter.\n",
			k.ID(), cfg.KeyFile)
		return nil
	}
	keys, err := codec.LoadKeys(getenv, cfg.KeyFile)
	if err != nil {
		return err
	}
	c, err := codec.New(keys)
	if err != nil {
		return err
	}
	var token auth.Secret
	if cfg.AuthTokenFile != "" {
		b, err := codec.ReadPrivateFile(cfg.AuthTokenFile)
		if err != nil {
			return fmt.Errorf("-auth-token-file: %w", err)
		}
		token = auth.Secret(strings.TrimSpace(string(b)))
		clear(b)
		if len(token.Reveal()) < 16 {
			return fmt.Errorf("-auth-token-file %s holds %d characters: use at least 16 random ones (e.g. \"openssl rand -hex 32\")",
				cfg.AuthTokenFile, len(token.Reveal()))
		}
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
	}
	srv := &http.Server{
		Handler: newHandler(handlerConfig{Codec: c, Origins: cfg.Origins, Token: token, MaxBody: cfg.MaxBody,
			AnyHost: cfg.AllowRemote, Log: log}),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	addr := ln.Addr().String()
	log.Info("codec server listening", "addr", addr, "key", c.KeyID(), "keys", strings.Join(c.KeyIDs(), ","),
		"origins", strings.Join(cfg.Origins, ","), "auth", !token.IsZero(), "remote", cfg.AllowRemote)
	fmt.Fprintf(stdout, "codec server on http://%s\n  Web UI: temporal server start-dev --ui-codec-endpoint http://%s (or the UI's codec settings)\n"+
		"  CLI:    temporal workflow show -w <id> --codec-endpoint http://%s", addr, addr, addr)
	if !token.IsZero() {
		fmt.Fprint(stdout, ` --codec-auth "Bearer $(cat `+cfg.AuthTokenFile+`)"`)
	}
	fmt.Fprintln(stdout)
	if ready != nil {
		ready(addr)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}
