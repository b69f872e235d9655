package stack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
)

// SignInOptions say where and how users are signed in.
type SignInOptions struct {
	// Dir holds the token store (Dir/tokens) and its key file
	// (Dir/token.key).
	Dir string
	// App is the app (client) ID the tokens are issued to; Authority the
	// identity platform (the Graph emulator's root URL, Start's default).
	App, Authority string
	// PollInterval is the device-code poll (100 ms if zero);
	// RefreshMargin and Logger go to the store (auth.Config).
	PollInterval  time.Duration
	RefreshMargin time.Duration
	Logger        *slog.Logger
	// HTTP talks to the identity platform (http.DefaultClient if nil).
	HTTP *http.Client
}

// Accounts are users signed in to an encrypted token store (auth.Store),
// as `starter login` leaves them: the one place that knows how a worker
// finds its Graph tokens.
type Accounts struct {
	// Store is the token store; TokenDir and KeyFile where it lives.
	Store             *auth.Store
	TokenDir, KeyFile string
	// App and Authority are what the worker refreshes tokens with.
	App, Authority string
	g              *graph.Server
}

// SignInUsers does what `starter login` does, without a person: it
// creates a key file (0600) and a token store under o.Dir, runs the
// device-code sign-in for each user against o.Authority as o.App, and
// approves each code on the Graph emulator g as the user would in a
// browser.
func SignInUsers(ctx context.Context, o SignInOptions, g *graph.Server, users ...string) (*Accounts, error) {
	a := &Accounts{TokenDir: filepath.Join(o.Dir, "tokens"), KeyFile: filepath.Join(o.Dir, "token.key"),
		App: o.App, Authority: o.Authority, g: g}
	if err := auth.GenerateKeyFile(a.KeyFile); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	key, err := auth.LoadKey(func(string) string { return "" }, a.KeyFile)
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	poll := o.PollInterval
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	a.Store, err = auth.Open(auth.Config{Dir: a.TokenDir, Key: key, PollInterval: poll, RefreshMargin: o.RefreshMargin,
		Logger: o.Logger, HTTPClient: o.HTTP, Microsoft: auth.Microsoft{ClientID: o.App, Authority: o.Authority}})
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	errs := make([]error, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() { errs[i] = a.SignIn(ctx, u) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return a, nil
}

// SignIn signs user in (again) with the device-code flow, approving the
// code on the emulator as the user would in a browser.
func (a *Accounts) SignIn(ctx context.Context, user string) error {
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var approveErr error
	err := a.Store.Login(lctx, user, func(dc auth.DeviceCode) {
		approveErr = a.g.ApproveDeviceCode(dc.UserCode, user)
	})
	if err := errors.Join(err, approveErr); err != nil {
		return fmt.Errorf("sign %s in: %w", user, err)
	}
	return nil
}

// Lost returns the error that says user's stored sign-in is gone (they
// must sign in again: auth.ErrSignInExpired or auth.ErrNotSignedIn), or
// nil if it still works. It may refresh the tokens, as a worker would.
func (a *Accounts) Lost(ctx context.Context, user string) error {
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := a.Store.TokenSource(user).Token(tctx)
	if errors.Is(err, auth.ErrSignInExpired) || errors.Is(err, auth.ErrNotSignedIn) {
		return err
	}
	return nil
}

// Key returns the store's key as its file spells it (a secret that must
// show nowhere).
func (a *Accounts) Key() (string, error) {
	raw, err := os.ReadFile(a.KeyFile)
	if err != nil {
		return "", fmt.Errorf("token key: %w", err)
	}
	return strings.TrimSpace(string(raw)), nil
}

// WorkerArgs are the worker's token flags; WorkerEnv clears
// NOTEBRIDGE_TOKEN_KEY so that an operator's key in the environment
// cannot shadow the key file.
func (a *Accounts) WorkerArgs() []string {
	return []string{"-token-dir", a.TokenDir, "-token-key-file", a.KeyFile, "-authority", a.Authority}
}

// WorkerEnv is the environment WorkerArgs go with.
func (a *Accounts) WorkerEnv() []string { return []string{auth.EnvTokenKey + "="} }

// TokenFile is user's token file in the store SignInUsers makes under
// dir.
func TokenFile(dir, user string) string { return filepath.Join(dir, "tokens", user+".json.enc") }
