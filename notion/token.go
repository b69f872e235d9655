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

// Fingerprint is a stable, non-reversible name for a token: the key that
// shares one pace between every client of the same integration, in this
// process (Pacers) or across processes (a Pacing that keys a shared
// limiter by it). It may appear in workflow IDs, history and logs; the
// token itself never does. An integration token carries far more entropy
// than a brute force could search, so the hash does not reveal it.
func Fingerprint(tok string) string { return tokenKey(tok) }

func tokenKey(tok string) string {
	sum := sha256.Sum256([]byte("notebridge/notion pacer\x00" + tok))
	return hex.EncodeToString(sum[:16])
}
