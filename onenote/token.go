package onenote

import (
	"context"

	"golang.org/x/oauth2"
)

// TokenSource supplies the bearer token for each request. Implementations
// refresh the token when it expires. The client never logs the token nor
// puts it in an error.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// TokenInvalidator is implemented by token sources that cache tokens. When
// Graph rejects a token with 401, the client calls InvalidateToken with it
// (before returning the KindAuth error) so the next Token call refreshes
// instead of handing out the same rejected token until it expires. The
// client does not retry; the caller does, through the limiter.
type TokenInvalidator interface {
	InvalidateToken(rejected string)
}

// TokenSourceFunc adapts a function to a TokenSource.
type TokenSourceFunc func(ctx context.Context) (string, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

// StaticToken returns a TokenSource that always returns tok. It is meant
// for tests and tools.
func StaticToken(tok string) TokenSource {
	return TokenSourceFunc(func(context.Context) (string, error) { return tok, nil })
}

// OAuth2Tokens adapts a golang.org/x/oauth2 TokenSource (for example one
// made by oauth2.Config.TokenSource, which refreshes on expiry).
func OAuth2Tokens(ts oauth2.TokenSource) TokenSource {
	return TokenSourceFunc(func(context.Context) (string, error) {
		t, err := ts.Token()
		if err != nil {
			return "", err
		}
		return t.AccessToken, nil
	})
}
