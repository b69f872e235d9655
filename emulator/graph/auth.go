package graph

import (
	"errors"
	"net/http"
	"strings"
	"time"
)

var (
	errNotFound = errors.New("not found")
	errExpired  = errors.New("token expired")
	errMissing  = errors.New("no bearer token")
)

// accessToken is an issued bearer token.
type accessToken struct {
	user    string
	scopes  []string
	expires time.Time
}

// IssueToken registers and returns a bearer token for user with the given
// scopes (e.g. "Notes.Read", or "https://graph.microsoft.com/Notes.Read"),
// valid for ttl from the server clock.
func (s *Server) IssueToken(user string, scopes []string, ttl time.Duration) string {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	return s.issueTokenLocked(user, scopes, ttl)
}

func (s *Server) issueTokenLocked(user string, scopes []string, ttl time.Duration) string {
	s.tokenSeq++
	tok := "nbg." + hexID(40, "token", itoa(s.cfg.Seed), user, itoa(s.tokenSeq))
	s.tokens[tok] = &accessToken{user: user, scopes: append([]string(nil), scopes...), expires: s.now().Add(ttl)}
	s.issued = append(s.issued, tok)
	return tok
}

// ExpireTokens makes every access token of user expire now; requests with
// them get 401 InvalidAuthenticationToken. Refresh tokens stay valid.
func (s *Server) ExpireTokens(user string) {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	now := s.now()
	for _, t := range s.tokens {
		if t.user == user {
			t.expires = now
		}
	}
}

// authenticate resolves the bearer token of r. It returns the user and
// scopes, or errNotFound / errExpired.
func (s *Server) authenticate(r *http.Request) (*accessToken, error) {
	h := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(h, "Bearer ")
	if !ok {
		tok, ok = strings.CutPrefix(h, "bearer ")
	}
	if !ok || tok == "" {
		return nil, errMissing
	}
	s.authMu.Lock()
	defer s.authMu.Unlock()
	t := s.tokens[tok]
	if t == nil {
		return nil, errNotFound
	}
	if s.faultHit(faultTokenExpiry) {
		t.expires = s.now()
	}
	if !s.now().Before(t.expires) {
		return nil, errExpired
	}
	return t, nil
}

// hasNotesScope reports whether scopes include one that grants reading
// OneNote content.
func hasNotesScope(scopes []string) bool {
	for _, sc := range scopes {
		sc = sc[strings.LastIndex(sc, "/")+1:]
		switch strings.ToLower(sc) {
		case "notes.read", "notes.read.all", "notes.readwrite", "notes.readwrite.all":
			return true
		}
	}
	return false
}

// unauthorized is the 401 Graph answers for a missing, unknown or expired
// token.
func (s *Server) unauthorized(err error, requestID string) response {
	msg := "Access token is empty."
	switch {
	case errors.Is(err, errExpired):
		msg = "Access token has expired or is not yet valid."
	case errors.Is(err, errNotFound):
		msg = "IDX14100: JWT is not well formed, there are no dots (.)."
	}
	r := graphError(http.StatusUnauthorized, "InvalidAuthenticationToken", msg, requestID, s.now())
	r.header.Set("WWW-Authenticate", `Bearer realm="", authorization_uri="https://login.microsoftonline.com/common/oauth2/authorize", client_id="00000003-0000-0000-c000-000000000000"`)
	return r
}
