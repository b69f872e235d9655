package auth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// Defaults.
const (
	// DefaultRefreshMargin is how long before its expiry an access token is
	// replaced, at most: a token that lived less than five times as long
	// is replaced when a fifth of its lifetime is left (see
	// refreshFraction).
	DefaultRefreshMargin = 5 * time.Minute
	// DefaultRefreshTimeout bounds one refresh (lock wait and HTTP call).
	DefaultRefreshTimeout = time.Minute
	// fallbackLifetime is assumed when the identity platform sends no
	// expires_in (it always does; its default lifetime is 60-90 minutes).
	fallbackLifetime = time.Hour
)

// Config configures a Store.
type Config struct {
	// Dir holds one encrypted token file per user. It is created with mode
	// 0700 and must not be accessible to other users. DefaultDir() is the
	// usual choice.
	Dir string
	// Key encrypts the token files (see LoadKey). Required.
	Key Key
	// Microsoft is the app registration and tenant to sign in with.
	Microsoft Microsoft
	// HTTPClient talks to the identity platform; http.DefaultClient if nil.
	HTTPClient *http.Client
	// RefreshMargin is how long before expiry an access token is refreshed
	// at most; DefaultRefreshMargin if zero. Short-lived tokens are
	// refreshed when a fifth of their lifetime is left, if that is less.
	RefreshMargin time.Duration
	// RefreshTimeout bounds one refresh; DefaultRefreshTimeout if zero.
	RefreshTimeout time.Duration
	// PollInterval, if set, replaces the polling interval the identity
	// platform asks for during Login (rounded up to whole seconds). Tests
	// use it; leave it zero otherwise.
	PollInterval time.Duration
	// Now is the clock; time.Now if nil.
	Now func() time.Time
	// Logger receives sign-in and refresh events (never a token); nothing
	// is logged if nil.
	Logger *slog.Logger
}

// DefaultDir returns the per-user token directory,
// $XDG_CONFIG_HOME/notebridge/tokens (~/.config/notebridge/tokens).
func DefaultDir() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("auth: %w", err)
	}
	return filepath.Join(base, "notebridge", "tokens"), nil
}

// DefaultKeyFile returns the default key file path,
// $XDG_CONFIG_HOME/notebridge/token.key.
func DefaultKeyFile() (string, error) {
	base, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("auth: %w", err)
	}
	return filepath.Join(base, "notebridge", "token.key"), nil
}

// Store signs users in with Microsoft and keeps their tokens, encrypted,
// one file per user. It hands out per-user token sources that refresh
// before expiry. A Store is safe for concurrent use, and several processes
// on one host may share its directory.
type Store struct {
	files    tokenFiles
	ms       Microsoft
	oauth    *oauth2.Config
	hc       *http.Client
	margin   time.Duration
	timeout  time.Duration
	interval time.Duration
	now      func() time.Time
	log      *slog.Logger

	mu       sync.Mutex
	slots    map[string]chan struct{} // per-user in-process write lock
	sources  map[string]*TokenSource
	rejected map[string]rejection // per user: the refresh token Microsoft last rejected
}

// Open returns a Store for cfg, creating the token directory (mode 0700)
// if needed. It refuses a directory other users can access.
func Open(cfg Config) (*Store, error) {
	if cfg.Dir == "" {
		return nil, errors.New("auth: Config.Dir is required")
	}
	if cfg.Key.IsZero() {
		return nil, fmt.Errorf("auth: Config.Key is required: %w", ErrNoKey)
	}
	ms, err := cfg.Microsoft.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("auth: create token directory: %w", err)
	}
	fi, err := os.Stat(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	if err := checkDirMode(cfg.Dir, fi); err != nil {
		return nil, err
	}
	s := &Store{
		files:    tokenFiles{dir: cfg.Dir, key: cfg.Key},
		ms:       ms,
		oauth:    ms.oauth2Config(),
		hc:       cfg.HTTPClient,
		margin:   cfg.RefreshMargin,
		timeout:  cfg.RefreshTimeout,
		interval: cfg.PollInterval,
		now:      cfg.Now,
		log:      cfg.Logger,
		slots:    make(map[string]chan struct{}),
		sources:  make(map[string]*TokenSource),
		rejected: make(map[string]rejection),
	}
	if s.margin <= 0 {
		s.margin = DefaultRefreshMargin
	}
	if s.timeout <= 0 {
		s.timeout = DefaultRefreshTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s, nil
}

// TokenSource returns the token source of user; every call for the same
// user returns the same one, so concurrent activities share its cache and
// its single in-flight refresh. It does not touch the disk: a user who has
// not signed in gets ErrNotSignedIn from Token.
func (s *Store) TokenSource(user string) *TokenSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	ts, ok := s.sources[user]
	if !ok {
		ts = &TokenSource{store: s, user: user}
		s.sources[user] = ts
	}
	return ts
}

// SignedIn reports whether a sign-in is stored for user and can be
// decrypted. It does not check that Microsoft still accepts it.
func (s *Store) SignedIn(user string) (bool, error) {
	if err := ValidateUser(user); err != nil {
		return false, err
	}
	_, err := s.files.read(user)
	if errors.Is(err, ErrNotSignedIn) {
		return false, nil
	}
	return err == nil, err
}

// Logout deletes the stored sign-in of user. Access tokens already handed
// out stay valid at Microsoft until they expire.
func (s *Store) Logout(ctx context.Context, user string) error {
	if err := ValidateUser(user); err != nil {
		return err
	}
	unlock, err := s.userLock(ctx, user)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.files.remove(user); err != nil {
		return err
	}
	s.forget(user)
	s.log.Info("Microsoft sign-in removed", "user", user)
	return nil
}

// save stores tok for user (the caller holds the user lock), durably,
// and only then hands it to the user's token source, if any. It returns
// the token as stored.
func (s *Store) save(user string, tok storedToken) (storedToken, error) {
	tok.SavedAt = s.now()
	if err := s.files.write(user, tok); err != nil {
		return storedToken{}, err
	}
	s.mu.Lock()
	ts := s.sources[user]
	s.mu.Unlock()
	if ts != nil {
		ts.replace(tok)
	}
	return tok, nil
}

// forget drops the cached token of user.
func (s *Store) forget(user string) {
	s.mu.Lock()
	ts := s.sources[user]
	s.mu.Unlock()
	if ts != nil {
		ts.replace(storedToken{})
	}
}

// httpContext carries the HTTP client to x/oauth2.
func (s *Store) httpContext(ctx context.Context) context.Context {
	if s.hc == nil {
		return ctx
	}
	return context.WithValue(ctx, oauth2.HTTPClient, s.hc)
}

// fromOAuth2 converts a token answer, computing the expiry on the Store's
// clock.
func (s *Store) fromOAuth2(t *oauth2.Token) storedToken {
	now := s.now()
	expiry := now.Add(fallbackLifetime)
	switch {
	case t.ExpiresIn > 0:
		expiry = now.Add(time.Duration(t.ExpiresIn) * time.Second)
	case !t.Expiry.IsZero():
		expiry = t.Expiry
	}
	scope, _ := t.Extra("scope").(string)
	return storedToken{AccessToken: t.AccessToken, RefreshToken: t.RefreshToken, Expiry: expiry, Scope: scope}
}

// Format prints the Store without any secret, for every verb.
func (s *Store) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "auth.Store{dir: %q, tenant: %q, key: %s}", s.files.dir, s.ms.Tenant, redacted)
}

// LogValue logs the Store without any secret.
func (s *Store) LogValue() slog.Value {
	return slog.GroupValue(slog.String("dir", s.files.dir), slog.String("tenant", s.ms.Tenant))
}
