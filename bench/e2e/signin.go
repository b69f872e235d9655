package e2e

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/notebridge/notebridge/auth"
	graph "github.com/notebridge/notebridge/emulator/graph"
)

// signIn signs users in against the Graph emulator's identity endpoints
// and returns the worker's token flags and environment. It is the one
// place that knows how the worker finds Graph tokens; when the worker's
// token flags change, change this function and nothing else.
//
// It does what `starter login` does, without a person: it creates a key
// file (0600) and an encrypted token store (auth.Store) in dir, runs the
// device-code sign-in for each user against authority (the emulator's
// root URL) as app, and approves each code on the emulator as that user
// would in a browser. The worker gets -token-dir, -token-key-file and
// -authority; NOTEBRIDGE_TOKEN_KEY is cleared so an operator's key in the
// environment cannot shadow the file. The worker refreshes the tokens
// through the emulator as it would through Microsoft.
func signIn(ctx context.Context, dir, app, authority string, g *graph.Server, users []string) (args, env []string, err error) {
	tokens, keyFile := filepath.Join(dir, "tokens"), filepath.Join(dir, "token.key")
	if err := auth.GenerateKeyFile(keyFile); err != nil {
		return nil, nil, fmt.Errorf("sign in: %w", err)
	}
	key, err := auth.LoadKey(func(string) string { return "" }, keyFile)
	if err != nil {
		return nil, nil, fmt.Errorf("sign in: %w", err)
	}
	store, err := auth.Open(auth.Config{Dir: tokens, Key: key, PollInterval: 100 * time.Millisecond,
		Microsoft: auth.Microsoft{ClientID: app, Authority: authority}})
	if err != nil {
		return nil, nil, fmt.Errorf("sign in: %w", err)
	}
	lctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	errs := make([]error, len(users))
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Go(func() {
			errs[i] = store.Login(lctx, u, func(dc auth.DeviceCode) {
				if err := g.ApproveDeviceCode(dc.UserCode, u); err != nil {
					errs[i] = err
				}
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, nil, fmt.Errorf("sign in: %w", err)
	}
	return []string{"-token-dir", tokens, "-token-key-file", keyFile, "-authority", authority},
		[]string{auth.EnvTokenKey + "="}, nil
}
