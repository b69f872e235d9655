package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// TokenSource hands out one user's Microsoft Graph access token. It
// implements the onenote package's TokenSource and TokenInvalidator:
//
//   - Token returns the cached access token while it has more than the
//     refresh margin left, and otherwise refreshes it with the stored
//     refresh token and stores the new refresh token before handing out
//     the new access token. The margin is five minutes, or a fifth of
//     the token's lifetime if that is shorter.
//   - Concurrent callers share one refresh; other processes using the same
//     token directory are serialised by a lock file.
//   - InvalidateToken, called when Graph answers 401, makes the next Token
//     refresh.
//
// Get one from Store.TokenSource. It is safe for concurrent use.
type TokenSource struct {
	store *Store
	user  string

	mu       sync.Mutex
	tok      storedToken // cached; zero until loaded
	rejected bool        // tok.AccessToken was rejected by Graph
	inflight *renewal
}

// renewal is one load-or-refresh in flight, shared by every waiting caller.
type renewal struct {
	done chan struct{}
	tok  storedToken
	err  error
}

// User returns the user whose tokens this source hands out.
func (ts *TokenSource) User() string { return ts.user }

// Token returns an access token with more than the refresh margin left.
// A user without a stored sign-in gets ErrNotSignedIn; a refresh token
// Microsoft rejects gives ErrSignInExpired. Both say which command fixes
// them. If ctx ends first, Token returns its error, but a refresh already
// started still completes and is stored, for the next caller.
func (ts *TokenSource) Token(ctx context.Context) (string, error) {
	ts.mu.Lock()
	if !ts.rejected && ts.tok.freshAt(ts.store.now(), ts.store.margin) {
		tok := ts.tok.AccessToken
		ts.mu.Unlock()
		return tok, nil
	}
	r := ts.inflight
	if r == nil {
		r = &renewal{done: make(chan struct{})}
		ts.inflight = r
		rejected := ""
		if ts.rejected {
			rejected = ts.tok.AccessToken
		}
		go ts.renew(context.WithoutCancel(ctx), r, rejected)
	}
	ts.mu.Unlock()

	select {
	case <-r.done:
		if r.err != nil {
			return "", r.err
		}
		return r.tok.AccessToken, nil
	case <-ctx.Done():
		return "", fmt.Errorf("auth: wait for the Microsoft token of user %q: %w", ts.user, context.Cause(ctx))
	}
}

// renew runs one shared load-or-refresh.
func (ts *TokenSource) renew(ctx context.Context, r *renewal, rejected string) {
	tok, err := ts.store.renew(ctx, ts.user, rejected)
	ts.mu.Lock()
	if err == nil {
		ts.tok = tok
		ts.rejected = false
	}
	ts.inflight = nil
	ts.mu.Unlock()
	r.tok, r.err = tok, err
	close(r.done)
}

// InvalidateToken tells the source that Graph rejected the access token
// rejected (HTTP 401): if it is the cached one, the next Token call
// refreshes. A token already replaced is ignored.
func (ts *TokenSource) InvalidateToken(rejected string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if rejected != "" && rejected == ts.tok.AccessToken {
		ts.rejected = true
	}
}

// replace sets the cached token (after a login, refresh or logout).
func (ts *TokenSource) replace(tok storedToken) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.tok = tok
	ts.rejected = false
}

// Format prints the source without any secret, for every verb.
func (ts *TokenSource) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "auth.TokenSource{user: %q, token: %s}", ts.user, redacted)
}

// LogValue logs the source without any secret.
func (ts *TokenSource) LogValue() slog.Value {
	return slog.GroupValue(slog.String("user", ts.user))
}
