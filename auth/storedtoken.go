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

// refreshFraction is the share of its lifetime a token may have left when
// it is replaced: a fifth. With a margin of minutes, tokens of a few
// minutes or less would otherwise be refreshed at every call.
const refreshFraction = 5

// refreshMargin is how long before its expiry t is replaced: limit, or a
// fifth of the lifetime t had when it was stored if that is shorter.
func (t *storedToken) refreshMargin(limit time.Duration) time.Duration {
	if life := t.Expiry.Sub(t.SavedAt); !t.SavedAt.IsZero() && life > 0 {
		return min(limit, life/refreshFraction)
	}
	return limit
}

// freshAt reports whether the access token has more than its refresh
// margin (at most limit) left at now.
func (t *storedToken) freshAt(now time.Time, limit time.Duration) bool {
	return t.AccessToken != "" && now.Add(t.refreshMargin(limit)).Before(t.Expiry)
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
