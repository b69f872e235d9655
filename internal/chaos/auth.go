package chaos

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
)

// workerAuth is the worker's Microsoft sign-in: it is the one place that
// knows how the worker finds its Graph tokens; when the worker's token
// flags change, change this function and nothing else.
//
// It does what `starter login` does, without a person: it creates a key
// file (0600) and an encrypted token store (auth.Store) under dir, signs
// user in with the device-code flow against the Graph emulator's identity
// endpoints at authority (its root URL) as app, and approves the code on
// the emulator as the user would in a browser. The worker gets
// -token-dir, -token-key-file and -authority, and NOTEBRIDGE_TOKEN_KEY is
// cleared so that an operator's key in the environment cannot shadow the
// file; it refreshes the tokens through the emulator as it would through
// Microsoft. secrets holds the store's key as the file spells it; every
// token the emulator issues (g.IssuedSecrets) is a secret too. The
// account signs user in again, as a person running `starter login` would
// after a lost sign-in, and tells whether the stored sign-in still works.
func workerAuth(ctx context.Context, g *graph.Server, authority, dir, app, user string) (args, env, secrets []string, acct *account, err error) {
	tokens, keyFile := filepath.Join(dir, "tokens"), filepath.Join(dir, "token.key")
	if err := auth.GenerateKeyFile(keyFile); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("chaos: sign in: %w", err)
	}
	key, err := auth.LoadKey(func(string) string { return "" }, keyFile)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("chaos: sign in: %w", err)
	}
	store, err := auth.Open(auth.Config{Dir: tokens, Key: key, PollInterval: 100 * time.Millisecond,
		Microsoft: auth.Microsoft{ClientID: app, Authority: authority}})
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("chaos: sign in: %w", err)
	}
	acct = &account{store: store, g: g, user: user}
	if err := acct.signIn(ctx); err != nil {
		return nil, nil, nil, nil, err
	}
	raw, err := os.ReadFile(keyFile)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("chaos: sign in: %w", err)
	}
	return []string{"-token-dir", tokens, "-token-key-file", keyFile, "-authority", authority},
		[]string{auth.EnvTokenKey + "="}, []string{strings.TrimSpace(string(raw))}, acct, nil
}

// account is the user's sign-in, through the same token store as the
// worker's (another process on its directory).
type account struct {
	store *auth.Store
	g     *graph.Server
	user  string
}

// signIn signs the user in with the device-code flow, approving the code
// on the emulator as the user would in a browser.
func (a *account) signIn(ctx context.Context) error {
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var approveErr error
	err := a.store.Login(lctx, a.user, func(dc auth.DeviceCode) {
		approveErr = a.g.ApproveDeviceCode(dc.UserCode, a.user)
	})
	if err == nil {
		err = approveErr
	}
	if err != nil {
		return fmt.Errorf("chaos: sign %s in: %w", a.user, err)
	}
	return nil
}

// lost returns the error that says the stored sign-in is gone (the user
// must sign in again: auth.ErrSignInExpired or auth.ErrNotSignedIn), or
// nil if it still works. It may refresh the tokens, as the worker would.
func (a *account) lost(ctx context.Context) error {
	tctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err := a.store.TokenSource(a.user).Token(tctx)
	if errors.Is(err, auth.ErrSignInExpired) || errors.Is(err, auth.ErrNotSignedIn) {
		return err
	}
	return nil
}

// tokenFile is the token file of user that workerAuth's store under dir
// writes.
func tokenFile(dir, user string) string {
	return filepath.Join(dir, "tokens", user+".json.enc")
}
