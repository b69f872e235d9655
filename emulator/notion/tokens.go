package notion

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
)

// TokenFingerprint is how the emulator names a token wherever it shows one
// (the request log, stats, export): the first 16 hex digits of the
// token's SHA-256. Tokens themselves never leave the process.
func TokenFingerprint(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])[:16]
}

// IssueToken creates a new integration token for the workspace and returns
// it. Each token has its own rate-limit bucket and request log, and every
// capability.
func (s *Server) IssueToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := "ntn_" + strings.ReplaceAll(newUUID(s.rng), "-", "")
	s.tokens[tok] = s.newTokenState(AllCapabilities())
	return tok
}

// AddToken makes token a valid integration token with every capability.
// Adding a known token is a no-op.
func (s *Server) AddToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[token]; !ok {
		s.tokens[token] = s.newTokenState(AllCapabilities())
	}
}

// SetCapabilities changes what a known token may do. Requests that need a
// capability the token lacks answer 403 restricted_resource.
func (s *Server) SetCapabilities(token string, c Capabilities) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tokens[token]
	if !ok {
		return fmt.Errorf("notion emulator: set capabilities: unknown token %s", TokenFingerprint(token))
	}
	st.caps = c
	return nil
}

// tokenByFingerprint finds the token a fingerprint names. Callers hold s.mu.
func (s *Server) tokenByFingerprint(fp string) (string, bool) {
	for tok := range s.tokens {
		if TokenFingerprint(tok) == fp {
			return tok, true
		}
	}
	return "", false
}

// CapabilitiesOf reports a token's capabilities (none for an unknown
// token).
func (s *Server) CapabilitiesOf(token string) Capabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.tokens[token]; ok {
		return st.caps
	}
	return Capabilities{}
}

// SetTokenType changes the connection kind of a known token (personal
// access tokens and public OAuth connections are exempt from the
// workspace block limit).
func (s *Server) SetTokenType(token string, t TokenType) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.tokens[token]
	if !ok {
		return fmt.Errorf("notion emulator: set token type: unknown token %s", TokenFingerprint(token))
	}
	st.typ = t
	return nil
}

// TokenTypeOf reports a token's connection kind ("" for an unknown token).
func (s *Server) TokenTypeOf(token string) TokenType {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st, ok := s.tokens[token]; ok {
		return st.typ
	}
	return ""
}
