package auth

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/oauth2"
)

// DefaultAuthority is the Microsoft identity platform.
const DefaultAuthority = "https://login.microsoftonline.com"

// Scopes.
const (
	// ScopeOfflineAccess asks for a refresh token. It is always requested.
	ScopeOfflineAccess = "offline_access"
	// ScopeNotesRead reads the user's own notebooks (personal and work
	// accounts).
	ScopeNotesRead = "Notes.Read"
	// ScopeNotesReadAll reads every notebook the user can open in the
	// organisation (work and school accounts only).
	ScopeNotesReadAll = "Notes.Read.All"
)

// Tenants with a special meaning; any tenant GUID or verified domain works
// as well.
const (
	TenantCommon        = "common"        // work, school and personal accounts
	TenantOrganizations = "organizations" // work and school accounts
	TenantConsumers     = "consumers"     // personal Microsoft accounts
)

// Microsoft configures sign-in with the Microsoft identity platform, as a
// public client (no secret) using the device-code flow.
type Microsoft struct {
	// ClientID is the application (client) ID of the app registration,
	// which must have "Allow public client flows" set to Yes. Required.
	ClientID string
	// Tenant is TenantCommon (the default), TenantOrganizations,
	// TenantConsumers, a tenant GUID or a verified domain.
	Tenant string
	// Authority is the identity platform base URL, DefaultAuthority if
	// empty. Tests point it at the Graph emulator.
	Authority string
	// Scopes are the delegated scopes to request; ScopeNotesRead if empty.
	// Use ScopeNotesReadAll for notebooks shared in an organisation.
	// ScopeOfflineAccess is always added.
	Scopes []string
}

// withDefaults validates m and fills in its defaults.
func (m Microsoft) withDefaults() (Microsoft, error) {
	if m.ClientID == "" {
		return m, errors.New("auth: Microsoft.ClientID is required (the app registration's application ID)")
	}
	if m.Tenant == "" {
		m.Tenant = TenantCommon
	}
	if !isTenant(m.Tenant) {
		return m, fmt.Errorf("auth: tenant %q: use common, organizations, consumers, a tenant GUID or a domain", m.Tenant)
	}
	if m.Authority == "" {
		m.Authority = DefaultAuthority
	}
	u, err := url.Parse(m.Authority)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return m, fmt.Errorf("auth: authority %q is not an http(s) URL", m.Authority)
	}
	m.Authority = strings.TrimSuffix(m.Authority, "/")
	scopes := slices.Clone(m.Scopes)
	if len(scopes) == 0 {
		scopes = []string{ScopeNotesRead}
	}
	if !slices.Contains(scopes, ScopeOfflineAccess) {
		scopes = append([]string{ScopeOfflineAccess}, scopes...)
	}
	m.Scopes = scopes
	return m, nil
}

// isTenant accepts a tenant name, GUID or domain: letters, digits, '-'
// and '.', which is all that may appear in the path segment.
func isTenant(t string) bool {
	if t == "" || len(t) > 253 || strings.Contains(t, "..") || t[0] == '.' {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// oauth2Config is the x/oauth2 configuration of m (after withDefaults).
func (m Microsoft) oauth2Config() *oauth2.Config {
	base := m.Authority + "/" + m.Tenant + "/oauth2/v2.0"
	return &oauth2.Config{
		ClientID: m.ClientID,
		Scopes:   m.Scopes,
		Endpoint: oauth2.Endpoint{
			DeviceAuthURL: base + "/devicecode",
			TokenURL:      base + "/token",
			AuthStyle:     oauth2.AuthStyleInParams, // public client: client_id in the form, no secret
		},
	}
}
