package codec

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
)

// KeySize is the length of a payload key: AES-256.
const KeySize = 32

// redacted is what a Key prints instead of its value.
const redacted = "[redacted]"

// Key is an AES-256 payload key. It never prints: every fmt verb, JSON and
// slog show "[redacted]". ID is its public fingerprint.
type Key struct {
	b   [KeySize]byte
	id  string
	set bool
}

// ParseKey decodes a base64 (standard or URL alphabet, padded or not)
// encoding of KeySize bytes. Errors never contain the input.
func ParseKey(encoded string) (Key, error) {
	k, err := parseKey(encoded)
	if err != nil {
		return Key{}, fmt.Errorf("codec: %w", err)
	}
	return k, nil
}

// parseKey is ParseKey with errors that name no source.
func parseKey(encoded string) (Key, error) {
	encoded = strings.TrimSpace(encoded)
	var raw []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if raw, err = enc.DecodeString(encoded); err == nil {
			break
		}
	}
	if err != nil {
		return Key{}, fmt.Errorf("payload key is not valid base64: %w", ErrInvalidKey)
	}
	defer clear(raw)
	if len(raw) != KeySize {
		return Key{}, fmt.Errorf("payload key is %d bytes, want %d (base64 of 32 random bytes, e.g. from \"openssl rand -base64 32\"): %w",
			len(raw), KeySize, ErrInvalidKey)
	}
	return newKey([KeySize]byte(raw)), nil
}

func newKey(b [KeySize]byte) Key {
	k := Key{b: b, set: true}
	m := hmac.New(sha256.New, k.b[:])
	m.Write([]byte("notebridge payload key id v1"))
	k.id = hex.EncodeToString(m.Sum(nil)[:8])
	return k
}

// NewKey returns a random key.
func NewKey() (Key, error) {
	var b [KeySize]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Key{}, fmt.Errorf("codec: generate key: %w", err)
	}
	return newKey(b), nil
}

// ID returns the key's public fingerprint, 16 hex digits, stored with every
// payload it encrypts. It reveals nothing about the key.
func (k Key) ID() string { return k.id }

// IsZero reports whether k holds no key.
func (k Key) IsZero() bool { return !k.set }

// Equal reports whether k and other are the same key, in constant time.
func (k Key) Equal(other Key) bool {
	return k.set == other.set && hmac.Equal(k.b[:], other.b[:])
}

// encode returns the base64 text of the key, for a key file.
func (k Key) encode() string { return base64.StdEncoding.EncodeToString(k.b[:]) }

// String returns "[redacted]".
func (k Key) String() string { return redacted }

// GoString returns "[redacted]".
func (k Key) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (k Key) Format(f fmt.State, verb rune) { _, _ = f.Write([]byte(redacted)) }

// MarshalJSON encodes the key as "[redacted]".
func (k Key) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// MarshalText returns "[redacted]", for encoders that prefer text.
func (k Key) MarshalText() ([]byte, error) { return []byte(redacted), nil }

// LogValue makes slog print "[redacted]".
func (k Key) LogValue() slog.Value { return slog.StringValue(redacted) }

// ParseKeys parses a list of base64 keys separated by commas, whitespace or
// newlines; lines starting with # are comments. The first key is the one
// that encrypts. Duplicates are dropped. Errors name the key by position,
// never by value.
func ParseKeys(text string) ([]Key, error) {
	var keys []Key
	seen := map[string]bool{}
	n := 0
	for line := range strings.Lines(text) {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "#") {
			continue
		}
		for _, f := range strings.FieldsFunc(line, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\r' || r == '\n' }) {
			n++
			k, err := parseKey(f)
			if err != nil {
				return nil, fmt.Errorf("codec: key %d: %w", n, err)
			}
			if !seen[k.id] {
				seen[k.id] = true
				keys = append(keys, k)
			}
		}
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("codec: no key in the list: %w", ErrNoKey)
	}
	return keys, nil
}

// Errors a caller can test for with errors.Is. The errors the package
// returns wrap one of these and say what to do.
var (
	// ErrNoKey means no payload key is configured.
	ErrNoKey = errors.New("no payload encryption key")
	// ErrInvalidKey means a configured key is not base64 of 32 bytes.
	ErrInvalidKey = errors.New("invalid payload key")
	// ErrInsecurePermissions means a key or token file is readable by
	// group or others.
	ErrInsecurePermissions = errors.New("insecure file permissions")
	// ErrUnknownKey means a payload was encrypted with a key that is not
	// configured.
	ErrUnknownKey = errors.New("payload encrypted with a key that is not configured")
	// ErrDecrypt means a payload failed authentication: it was modified
	// or truncated, or its key ID collides with another key's.
	ErrDecrypt = errors.New("payload failed to decrypt")
	// ErrMalformed means an encrypted payload lacks what Decode needs.
	ErrMalformed = errors.New("malformed encrypted payload")
	// ErrPlaintext means a Codec that requires encryption
	// (Options.RequireEncrypted) was given a payload that holds data but
	// is not encrypted: a client without the codec wrote it.
	ErrPlaintext = errors.New("payload is not encrypted")
)
