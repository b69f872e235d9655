package auth

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"
)

// storedToken is one user's Microsoft tokens. It never prints or encodes
// its secrets; tokenRecord is its form inside the (encrypted) file.
type storedToken struct {
	AccessToken  string
	RefreshToken string
	Expiry       time.Time
	Scope        string
	SavedAt      time.Time
}

// tokenRecord is the plaintext JSON sealed into a token file.
type tokenRecord struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry"`
	Scope        string    `json:"scope,omitempty"`
	SavedAt      time.Time `json:"saved_at"`
}

// freshAt reports whether the access token has more than margin left at now.
func (t *storedToken) freshAt(now time.Time, margin time.Duration) bool {
	return t.AccessToken != "" && now.Add(margin).Before(t.Expiry)
}

// Format prints only non-secret fields, for every verb.
func (t storedToken) Format(f fmt.State, verb rune) {
	fmt.Fprintf(f, "auth.storedToken{access_token: %s, refresh_token: %s, expiry: %s}",
		redacted, redacted, t.Expiry.Format(time.RFC3339))
}

// MarshalJSON encodes only non-secret fields; token files use tokenRecord.
func (t storedToken) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		AccessToken  string    `json:"access_token"`
		RefreshToken string    `json:"refresh_token"`
		Expiry       time.Time `json:"expiry"`
	}{redacted, redacted, t.Expiry})
}

// LogValue logs only non-secret fields.
func (t storedToken) LogValue() slog.Value {
	return slog.GroupValue(slog.Time("expiry", t.Expiry), slog.String("scope", t.Scope))
}
