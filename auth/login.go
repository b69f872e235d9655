package auth

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DeviceCode is what the person signing in needs: open VerificationURI in
// any browser and enter UserCode before ExpiresAt. Message says the same
// in a sentence. It holds no secret (the device code itself stays inside
// the package).
type DeviceCode struct {
	UserCode        string
	VerificationURI string
	Message         string
	ExpiresAt       time.Time
}

// Login signs user in with the device-code flow. It asks Microsoft for a
// device code, calls prompt with what to show the person (prompt must not
// block for long), polls until the person approves, declines or lets the
// code expire, and stores the tokens encrypted in the user's token file.
//
// Errors say what to do next and match ErrLoginDeclined, ErrLoginExpired,
// ErrPublicClientDisabled, or wrap an *IdentityError.
func (s *Store) Login(ctx context.Context, user string, prompt func(DeviceCode)) error {
	if err := ValidateUser(user); err != nil {
		return err
	}
	hctx := s.httpContext(ctx)
	da, err := s.oauth.DeviceAuth(hctx)
	if err != nil {
		return s.loginError(user, identityError(err))
	}
	deviceCode := da.DeviceCode
	if s.interval > 0 {
		da.Interval = int64((s.interval + time.Second - 1) / time.Second)
	}
	prompt(DeviceCode{
		UserCode:        da.UserCode,
		VerificationURI: da.VerificationURI,
		Message: fmt.Sprintf("To sign in, use a web browser to open the page %s and enter the code %s to authenticate.",
			da.VerificationURI, da.UserCode),
		ExpiresAt: da.Expiry,
	})
	s.log.Info("waiting for Microsoft sign-in", "user", user, "verification_uri", da.VerificationURI)

	t, err := s.oauth.DeviceAccessToken(hctx, da)
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// DeviceAccessToken's own deadline: the code expired.
			return s.loginError(user, &IdentityError{Code: "expired_token"})
		}
		return s.loginError(user, identityError(err, deviceCode))
	}
	tok := s.fromOAuth2(t)
	if tok.RefreshToken == "" {
		s.log.Warn("Microsoft sign-in returned no refresh token; the sign-in will last only until the access token expires",
			"user", user)
	}
	unlock, err := s.userLock(ctx, user)
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := s.save(user, tok); err != nil {
		return fmt.Errorf("auth: store sign-in of user %q: %w", user, err)
	}
	s.log.Info("Microsoft sign-in stored", "user", user, "expiry", tok.Expiry, "scope", tok.Scope)
	return nil
}

// loginError turns a failed device-code flow into an error that says what
// to do.
func (s *Store) loginError(user string, err error) error {
	again := loginCommand(user)
	switch {
	case isPublicClientDisabled(err):
		return &actionError{
			msg: fmt.Sprintf("Microsoft sign-in for user %q failed: the app registration (client ID %s) does not allow public client flows (AADSTS7000218): "+
				"in the Azure portal open App registrations > the app > Authentication, set \"Allow public client flows\" to Yes, save, and run %q again",
				user, s.ms.ClientID, again),
			kind: ErrPublicClientDisabled, cause: err,
		}
	case hasCode(err, "authorization_declined", "access_denied"):
		return &actionError{
			msg:  fmt.Sprintf("Microsoft sign-in for user %q was declined: run %q again and approve the request", user, again),
			kind: ErrLoginDeclined, cause: err,
		}
	case hasCode(err, "expired_token", "bad_verification_code"):
		return &actionError{
			msg:  fmt.Sprintf("Microsoft sign-in code for user %q expired before it was entered: run %q again and enter the new code within 15 minutes", user, again),
			kind: ErrLoginExpired, cause: err,
		}
	default:
		return fmt.Errorf("auth: Microsoft sign-in for user %q: %w", user, err)
	}
}
