package auth

import (
	"context"
	"crypto/sha256"
	"fmt"

	"golang.org/x/oauth2"
)

// renew returns a usable token for user, refreshing it if needed. rejected
// is an access token the caller knows to be bad (empty if none).
//
// Holding the user lock from the read of the token file to the write of
// the refreshed token, it first rereads the file: another process (or a
// new login) may already have stored a fresh token. A refresh is stored
// (synced, then renamed over the old file) before its access token is
// handed to anyone, so a process killed at any moment of a refresh leaves
// either the old token file or the new one, never a token in use that is
// not on disk. The Microsoft identity platform keeps a redeemed refresh
// token valid until its own lifetime ends, so the old file still works
// after a kill between the identity platform's answer and the write.
//
// If Microsoft answers invalid_grant, renew rereads the file once more: a
// refresh token stored meanwhile by a process the lock did not reach (a
// login, another host sharing the directory) is tried once. A refresh
// token Microsoft rejected is remembered, so the processes' later calls
// fail at once with the same error, without asking Microsoft or logging
// again: the lost sign-in is reported once.
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
	if err := s.knownRejected(user, tok.RefreshToken); err != nil {
		return storedToken{}, err
	}
	fresh, err := s.redeem(ctx, tok)
	if hasCode(err, "invalid_grant") {
		again, rerr := s.files.read(user)
		if rerr == nil && again.RefreshToken != "" && again.RefreshToken != tok.RefreshToken {
			s.log.Info("Microsoft refresh token rejected; trying the one stored since", "user", user)
			if again.AccessToken != rejected && again.freshAt(s.now(), s.margin) {
				return again, nil
			}
			tok = again
			fresh, err = s.redeem(ctx, tok)
		}
	}
	if err != nil {
		if hasCode(err, "invalid_grant", "interaction_required", "invalid_client", "unauthorized_client") {
			err = signInExpired(user, err)
			s.rememberRejected(user, tok.RefreshToken, err)
			s.log.Warn("Microsoft refresh token rejected: the user must sign in again", "user", user, "error", err)
			return storedToken{}, err
		}
		s.log.Warn("Microsoft token refresh failed", "user", user, "error", err)
		return storedToken{}, fmt.Errorf("auth: refresh Microsoft token of user %q: %w", user, err)
	}
	saved, err := s.save(user, fresh)
	if err != nil {
		s.log.Warn("Microsoft token refreshed but not stored; the stored refresh token is used again next time", "user", user, "error", err)
		return storedToken{}, fmt.Errorf("auth: store refreshed token of user %q: %w", user, err)
	}
	s.log.Info("Microsoft token refreshed", "user", user, "expiry", saved.Expiry)
	return saved, nil
}

// redeem asks the identity platform for new tokens with tok's refresh
// token. A token answer without a refresh token keeps tok's (it stays
// valid), and one without a scope keeps tok's scope.
func (s *Store) redeem(ctx context.Context, tok storedToken) (storedToken, error) {
	src := s.oauth.TokenSource(s.httpContext(ctx), &oauth2.Token{RefreshToken: tok.RefreshToken})
	t, err := src.Token()
	if err != nil {
		return storedToken{}, identityError(err, tok.RefreshToken, tok.AccessToken)
	}
	fresh := s.fromOAuth2(t)
	if fresh.RefreshToken == "" {
		fresh.RefreshToken = tok.RefreshToken
	}
	if fresh.Scope == "" {
		fresh.Scope = tok.Scope
	}
	return fresh, nil
}

// rejection is a refresh token Microsoft rejected (its digest, never the
// token) and the error that said so.
type rejection struct {
	digest [sha256.Size]byte
	err    error
}

// rememberRejected records that Microsoft rejected refreshToken of user.
func (s *Store) rememberRejected(user, refreshToken string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejected[user] = rejection{digest: sha256.Sum256([]byte(refreshToken)), err: err}
}

// knownRejected returns the error Microsoft gave for refreshToken of user,
// if it rejected that token before, and nil otherwise.
func (s *Store) knownRejected(user, refreshToken string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r, ok := s.rejected[user]; ok && r.digest == sha256.Sum256([]byte(refreshToken)) {
		return r.err
	}
	return nil
}
