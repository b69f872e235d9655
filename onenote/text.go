package onenote

import "fmt"

// MarshalText encodes k as its name, so observations and errors carried as
// JSON (workflow payloads, logs) read naturally.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a name written by MarshalText.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, name := range kindNames {
		if name == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("onenote: unknown error kind %q", b)
}

// MarshalText encodes k as "unknown", "user", "app" or "tenant".
func (k ScopeKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText decodes a name written by MarshalText.
func (k *ScopeKind) UnmarshalText(b []byte) error {
	for _, c := range []ScopeKind{ScopeUnknown, ScopeUser, ScopeApp, ScopeTenant} {
		if c.String() == string(b) {
			*k = c
			return nil
		}
	}
	return fmt.Errorf("onenote: unknown throttle scope kind %q", b)
}
