package auth

import (
	"context"
	"fmt"

	"golang.org/x/oauth2"
)

// renew returns a usable token for user, refreshing it if needed. rejected
// is an access token the caller knows to be bad (empty if none). Holding
// the user lock, it rereads the token file first: another process (or a
// new login) may already have stored a fresh token, and using the refresh
// token it replaced would fail, since refresh tokens rotate.
func (s *Store) renew(ctx context.Context, user, rejected string) (storedToken, error) {
	if err := ValidateUser(user); err != nil {
		return storedToken{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	unlock, err := s.userLock(ctx, user)
	if err != nil {
		return storedToken{}, err
	}
	defer unlock()

	tok, err := s.files.read(user)
	if err != nil {
		return storedToken{}, err
	}
	if tok.AccessToken != rejected && tok.freshAt(s.now(), s.margin) {
		return tok, nil
	}
	if tok.RefreshToken == "" {
		return storedToken{}, signInExpired(user, &IdentityError{Code: "no_refresh_token",
			Description: "the stored sign-in has no refresh token (offline_access was not granted)"})
	}
	src := s.oauth.TokenSource(s.httpContext(ctx), &oauth2.Token{RefreshToken: tok.RefreshToken})
	t, err := src.Token()
	if err != nil {
		err = identityError(err, tok.RefreshToken, tok.AccessToken)
		if hasCode(err, "invalid_grant", "interaction_required", "invalid_client", "unauthorized_client") {
			s.log.Warn("Microsoft refresh token rejected", "user", user, "error", err)
			return storedToken{}, signInExpired(user, err)
		}
		s.log.Warn("Microsoft token refresh failed", "user", user, "error", err)
		return storedToken{}, fmt.Errorf("auth: refresh Microsoft token of user %q: %w", user, err)
	}
	fresh := s.fromOAuth2(t)
	if fresh.RefreshToken == "" {
		fresh.RefreshToken = tok.RefreshToken // the old one stays valid
	}
	if fresh.Scope == "" {
		fresh.Scope = tok.Scope
	}
	if err := s.save(user, fresh); err != nil {
		return storedToken{}, fmt.Errorf("auth: store refreshed token of user %q: %w", user, err)
	}
	s.log.Info("Microsoft token refreshed", "user", user, "expiry", fresh.Expiry)
	return fresh, nil
}
