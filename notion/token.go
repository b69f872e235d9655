package notion

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// TokenSource supplies the Notion integration token for each request. The
// Client never logs the token nor puts it in an error.
type TokenSource interface {
	Token(ctx context.Context) (string, error)
}

// TokenSourceFunc adapts a function to a TokenSource.
type TokenSourceFunc func(ctx context.Context) (string, error)

// Token calls f.
func (f TokenSourceFunc) Token(ctx context.Context) (string, error) { return f(ctx) }

// StaticToken returns a TokenSource that always returns tok.
func StaticToken(tok string) TokenSource {
	return TokenSourceFunc(func(context.Context) (string, error) { return tok, nil })
}

// tokenKey is a stable, non-reversible key for a token, used to share one
// pacer between every client of the same integration.
func tokenKey(tok string) string {
	sum := sha256.Sum256([]byte("notebridge/notion pacer\x00" + tok))
	return hex.EncodeToString(sum[:16])
}
