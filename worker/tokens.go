package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/notebridge/notebridge/onenote"
)

// errNotSignedIn means the token store holds nothing for the user.
var errNotSignedIn = errors.New("not signed in")

// fileTokens is a stand-in token store until the auth package is wired
// in: <dir>/<user>.token holds the user's Graph access token, read at
// every request so an operator (or a refresher) can replace it.
type fileTokens struct{ dir string }

// TokenSource implements activities.Tokens.
func (f fileTokens) TokenSource(user string) (onenote.TokenSource, error) {
	if user == "" || strings.ContainsAny(user, `/\`) || strings.HasPrefix(user, ".") {
		return nil, fmt.Errorf("user %q: %w", user, errNotSignedIn)
	}
	path := filepath.Join(f.dir, user+".token")
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("user %q: %w", user, errNotSignedIn)
	}
	return onenote.TokenSourceFunc(func(context.Context) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("user %q: %w", user, errNotSignedIn)
		}
		return strings.TrimSpace(string(b)), nil
	}), nil
}
