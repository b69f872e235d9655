package graph

import (
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Device-code flow settings (Microsoft identity platform defaults).
const (
	deviceCodeTTL      = 15 * time.Minute
	devicePollInterval = 5
	deviceCodeGrant    = "urn:ietf:params:oauth:grant-type:device_code"
)

// deviceGrant is one device authorization waiting for a person.
type deviceGrant struct {
	deviceCode string
	userCode   string
	clientID   string
	scopes     []string
	expires    time.Time
	user       string // set once approved
	declined   bool
	redeemed   bool
}

// defaultRefreshTokenTTL is the lifetime of a refresh token on the
// Microsoft identity platform (90 days; 24 hours for single-page apps).
const defaultRefreshTokenTTL = 90 * 24 * time.Hour

// refreshGrant is an issued refresh token. It stays in Server.refresh
// after it is redeemed, revoked or expired, so that a later use of it gets
// the invalid_grant that names why.
type refreshGrant struct {
	user     string
	clientID string
	scopes   []string
	issued   time.Time
	expires  time.Time
	// redeemed counts the grants made with this token.
	redeemed int
	// revoked is set by RevokeSessions, and in strict mode by the first
	// redemption.
	revoked bool
	// strictUsed marks a token revoked because it was redeemed in strict
	// mode.
	strictUsed bool
	// refused counts the refused grants with this token, by reason.
	refused map[string]int64
}

// IdentityStats counts the refresh-token grants the identity endpoints
// answered, so tests can compare refreshes with Graph requests and see
// whether a client redeemed a refresh token it had already redeemed (the
// mark of a client that lost a refresh answer, for instance because it
// was killed before it stored the new token).
type IdentityStats struct {
	// Refreshes is the number of successful refresh-token grants.
	Refreshes int64 `json:"refreshes"`
	// Reused is how many of them redeemed a refresh token that had been
	// redeemed before (only possible without StrictRefreshRotation).
	Reused int64 `json:"reused"`
	// Rejected counts refused refresh-token grants of tokens the server
	// issued, by reason: "inactive" (unused past its lifetime,
	// AADSTS700082), "expired" (the same with
	// Config.RefreshExpiredCode70008), "revoked" (RevokeSessions) and
	// "already redeemed" (StrictRefreshRotation). Unknown tokens are not
	// counted.
	Rejected map[string]int64 `json:"rejected"`
}

// identityError writes a Microsoft identity platform error. error_codes
// holds the AADSTS number desc starts with, or the usual one of code.
func (s *Server) identityError(w http.ResponseWriter, status int, code, desc string) {
	num := identityErrorCodes[code]
	if digits, ok := strings.CutPrefix(desc, "AADSTS"); ok {
		if n, _, ok := strings.Cut(digits, ":"); ok {
			if v, err := strconv.Atoi(n); err == nil {
				num = v
			}
		}
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"error":             code,
		"error_description": desc,
		"error_codes":       []int{num},
		"timestamp":         s.now().UTC().Format("2006-01-02 15:04:05Z"),
		"trace_id":          s.newRequestID(),
		"correlation_id":    s.newRequestID(),
	})
}

var identityErrorCodes = map[string]int{
	"authorization_pending":  70016,
	"authorization_declined": 70000,
	"expired_token":          70020,
	"bad_verification_code":  70019,
	"invalid_grant":          70000,
	"invalid_request":        900144,
	"unsupported_grant_type": 70003,
}

// serveIdentity answers POST /{tenant}/oauth2/v2.0/devicecode and
// POST /{tenant}/oauth2/v2.0/token.
func (s *Server) serveIdentity(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.identityError(w, http.StatusMethodNotAllowed, "invalid_request", "AADSTS900561: The endpoint only accepts POST requests.")
		return
	}
	if err := r.ParseForm(); err != nil {
		s.identityError(w, http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain form parameters.")
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/devicecode"):
		s.serveDeviceCode(w, r)
	case strings.HasSuffix(r.URL.Path, "/oauth2/v2.0/token"):
		s.serveToken(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (s *Server) serveDeviceCode(w http.ResponseWriter, r *http.Request) {
	clientID := r.PostForm.Get("client_id")
	if clientID == "" {
		s.identityError(w, http.StatusBadRequest, "invalid_request", "AADSTS900144: The request body must contain the following parameter: 'client_id'.")
		return
	}
	scopes := strings.Fields(r.PostForm.Get("scope"))
	s.authMu.Lock()
	s.tokenSeq++
	g := &deviceGrant{
		deviceCode: "DAQABAAEAAA" + hexID(48, "device", itoa(s.cfg.Seed), itoa(s.tokenSeq)),
		userCode:   strings.ToUpper(hexID(9, "usercode", itoa(s.cfg.Seed), itoa(s.tokenSeq))),
		clientID:   clientID,
		scopes:     scopes,
		expires:    s.now().Add(deviceCodeTTL),
	}
	s.devices[g.deviceCode] = g
	s.codes[g.userCode] = g
	s.authMu.Unlock()

	uri := s.base(r) + "/devicelogin"
	writeJSON(w, http.StatusOK, map[string]any{
		"device_code":      g.deviceCode,
		"user_code":        g.userCode,
		"verification_uri": uri,
		"expires_in":       int(deviceCodeTTL / time.Second),
		"interval":         devicePollInterval,
		"message":          fmt.Sprintf("To sign in, use a web browser to open the page %s and enter the code %s to authenticate.", uri, g.userCode),
	})
}

func (s *Server) serveToken(w http.ResponseWriter, r *http.Request) {
	switch r.PostForm.Get("grant_type") {
	case deviceCodeGrant:
		s.redeemDeviceCode(w, r.PostForm.Get("device_code"))
	case "refresh_token":
		s.redeemRefreshToken(w, r.PostForm.Get("refresh_token"))
	default:
		s.identityError(w, http.StatusBadRequest, "unsupported_grant_type", "AADSTS70003: The app requested an unsupported grant type.")
	}
}

func (s *Server) redeemDeviceCode(w http.ResponseWriter, code string) {
	s.authMu.Lock()
	g := s.devices[code]
	var status int
	var errCode, desc string
	switch {
	case g == nil:
		status, errCode, desc = http.StatusBadRequest, "bad_verification_code", "AADSTS70019: Verification code is not recognized."
	case g.redeemed:
		status, errCode, desc = http.StatusBadRequest, "invalid_grant", "AADSTS70000: The provided value for the device code has already been redeemed."
	case !s.now().Before(g.expires):
		status, errCode, desc = http.StatusBadRequest, "expired_token", "AADSTS70020: The provided value for the input parameter 'device_code' is not valid. This device code has expired."
	case g.declined:
		status, errCode, desc = http.StatusBadRequest, "authorization_declined", "AADSTS70000: The user declined the authorization request."
	case g.user == "":
		status, errCode, desc = http.StatusBadRequest, "authorization_pending", "AADSTS70016: OAuth 2.0 device flow error. Authorization is pending. Continue polling."
	}
	if errCode != "" {
		s.authMu.Unlock()
		s.identityError(w, status, errCode, desc)
		return
	}
	g.redeemed = true
	body := s.tokenResponseLocked(g.user, g.clientID, g.scopes)
	s.authMu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

// Refusals of the refresh-token grant, by reason: the key of
// IdentityStats.Rejected and the error_description. Every one is
// invalid_grant (Microsoft's error-code reference; graph-reality.md
// fact 32).
var refreshRefusals = map[string]string{
	"unknown":          "AADSTS9002313: Invalid request. Request is malformed or invalid: the refresh token is not one this tenant issued.",
	"expired":          "AADSTS70008: The provided authorization code or refresh token has expired due to inactivity.",
	"inactive":         "AADSTS700082: The refresh token has expired due to inactivity. The token was issued on %s and was inactive for %s.",
	"revoked":          "AADSTS50173: The provided grant has expired due to it being revoked, a fresh auth token is needed. The user might have changed or reset their password.",
	"already redeemed": "AADSTS70000: The provided refresh token was already used (the emulator's StrictRefreshRotation revokes a refresh token when it is redeemed).",
}

// redeemRefreshToken answers the refresh-token grant. Every answer
// carries a new refresh token; the redeemed one stays valid until its own
// lifetime ends, as on the Microsoft identity platform
// (graph-reality.md fact 31), unless StrictRefreshRotation revokes it at
// once or RevokeSessions revoked it.
func (s *Server) redeemRefreshToken(w http.ResponseWriter, token string) {
	s.authMu.Lock()
	g := s.refresh[token]
	reason := ""
	switch {
	case g == nil:
		reason = "unknown"
	case g.strictUsed:
		reason = "already redeemed"
	case g.revoked:
		reason = "revoked"
	case !s.now().Before(g.expires) && s.cfg.RefreshExpiredCode70008:
		reason = "expired"
	case !s.now().Before(g.expires):
		// Every use replaces a refresh token, so one past its lifetime
		// went unused that long: Microsoft's reference names it
		// AADSTS700082, "expired due to inactivity" (fact 32).
		reason = "inactive"
	}
	if reason != "" {
		if g != nil {
			if g.refused == nil {
				g.refused = make(map[string]int64)
			}
			g.refused[reason]++
		}
		s.authMu.Unlock()
		desc := refreshRefusals[reason]
		if reason == "inactive" {
			desc = fmt.Sprintf(desc, g.issued.UTC().Format("2006-01-02T15:04:05.0000000Z"), netDuration(g.expires.Sub(g.issued)))
		}
		s.identityError(w, http.StatusBadRequest, "invalid_grant", desc)
		return
	}
	g.redeemed++
	if s.cfg.StrictRefreshRotation {
		g.revoked, g.strictUsed = true, true
	}
	body := s.tokenResponseLocked(g.user, g.clientID, g.scopes)
	s.authMu.Unlock()
	writeJSON(w, http.StatusOK, body)
}

// RevokeSessions revokes every refresh token of user, as revoking the
// user's sign-in sessions (or a password change) does on the Microsoft
// identity platform: their next use gets invalid_grant (AADSTS50173).
// Access tokens already issued stay valid until they expire. It returns
// how many live refresh tokens it revoked.
func (s *Server) RevokeSessions(user string) int {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	n := 0
	now := s.now()
	for _, g := range s.refresh {
		if g.user == user && !g.revoked && now.Before(g.expires) {
			g.revoked = true
			n++
		}
	}
	return n
}

// IdentityStats returns the counts of refresh-token grants so far.
func (s *Server) IdentityStats() IdentityStats {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	st := IdentityStats{Rejected: make(map[string]int64)}
	for _, g := range s.refresh {
		st.Refreshes += int64(g.redeemed)
		st.Reused += int64(max(0, g.redeemed-1))
		for reason, n := range g.refused {
			st.Rejected[reason] += n
		}
	}
	return st
}

// tokenResponseLocked issues an access token (and a refresh token when
// offline_access was requested).
func (s *Server) tokenResponseLocked(user, clientID string, scopes []string) map[string]any {
	granted := slices.DeleteFunc(slices.Clone(scopes), func(sc string) bool {
		return sc == "offline_access" || sc == "openid" || sc == "profile"
	})
	body := map[string]any{
		"token_type":     "Bearer",
		"scope":          strings.Join(granted, " "),
		"expires_in":     int(s.cfg.TokenTTL / time.Second),
		"ext_expires_in": int(s.cfg.TokenTTL / time.Second),
		"access_token":   s.issueTokenLocked(user, granted, s.cfg.TokenTTL),
	}
	if slices.Contains(scopes, "offline_access") {
		s.tokenSeq++
		rt := "nbr." + hexID(48, "refresh", itoa(s.cfg.Seed), user, itoa(s.tokenSeq))
		s.issued = append(s.issued, rt)
		now := s.now()
		s.refresh[rt] = &refreshGrant{user: user, clientID: clientID, scopes: scopes, issued: now, expires: now.Add(s.refreshTokenTTL())}
		body["refresh_token"] = rt
	}
	return body
}

// ApproveDeviceCode signs user in for the device authorization with
// userCode, as a person would on the verification page. The next poll of
// the token endpoint gets the tokens.
func (s *Server) ApproveDeviceCode(userCode, user string) error {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	g := s.codes[strings.ToUpper(strings.TrimSpace(userCode))]
	if g == nil || !s.now().Before(g.expires) {
		return fmt.Errorf("graph emulator: approve device code %q: %w", userCode, errNotFound)
	}
	g.user = user
	return nil
}

// DeclineDeviceCode declines the device authorization with userCode.
func (s *Server) DeclineDeviceCode(userCode string) error {
	s.authMu.Lock()
	defer s.authMu.Unlock()
	g := s.codes[strings.ToUpper(strings.TrimSpace(userCode))]
	if g == nil {
		return fmt.Errorf("graph emulator: decline device code %q: %w", userCode, errNotFound)
	}
	g.declined = true
	return nil
}

// serveDeviceLogin is the verification page: GET shows a form, POST
// (user_code, user) approves the code.
func (s *Server) serveDeviceLogin(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	msg := ""
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err == nil {
			user := strings.TrimSpace(r.PostForm.Get("user"))
			if user == "" {
				msg = "Enter a user name."
			} else if err := s.ApproveDeviceCode(r.PostForm.Get("user_code"), user); err != nil {
				w.WriteHeader(http.StatusBadRequest)
				msg = "That code is unknown or expired."
			} else {
				msg = "Signed in as " + user + ". You can close this window."
			}
		}
	}
	fmt.Fprintf(w, `<!doctype html><html><head><title>Note Bridge Graph emulator: sign in</title></head><body>
<h1>Enter code</h1><p>%s</p>
<form method="post" action="/devicelogin">
<label>Code <input name="user_code" value="%s"></label>
<label>User <input name="user" value="alice"></label>
<button type="submit">Sign in</button></form></body></html>
`, html.EscapeString(msg), html.EscapeString(r.URL.Query().Get("code")))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// refreshTokenTTL is the lifetime of a new refresh token.
func (s *Server) refreshTokenTTL() time.Duration {
	if s.cfg.RefreshTokenTTL > 0 {
		return s.cfg.RefreshTokenTTL
	}
	return defaultRefreshTokenTTL
}

// netDuration writes d as .NET's TimeSpan does in AADSTS messages
// ("90.00:00:00" for 90 days).
func netDuration(d time.Duration) string {
	days := int(d / (24 * time.Hour))
	d -= time.Duration(days) * 24 * time.Hour
	return fmt.Sprintf("%d.%02d:%02d:%02d", days, int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second))
}
