package notion

import "strings"

// IssueToken creates a new integration token for the workspace and returns
// it. Each token has its own rate-limit bucket and request log.
func (s *Server) IssueToken() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	tok := "ntn_" + strings.ReplaceAll(newUUID(s.rng), "-", "")
	s.tokens[tok] = &tokenState{}
	return tok
}

// AddToken makes token a valid integration token. Adding a known token is
// a no-op.
func (s *Server) AddToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[token]; !ok {
		s.tokens[token] = &tokenState{}
	}
}
