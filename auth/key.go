package auth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of a token encryption key: AES-256.
const KeySize = 32

// EnvTokenKey is the environment variable that holds the token encryption
// key, base64 of KeySize random bytes.
const EnvTokenKey = "NOTEBRIDGE_TOKEN_KEY"

// Key is the AES-256 key that encrypts token files. It never prints: every
// fmt verb, JSON and slog show "[redacted]".
type Key struct {
	b   [KeySize]byte
	set bool
}

// parseKey decodes a base64 (standard or URL alphabet, padded or not)
// encoding of KeySize bytes, with errors that name no source and never
// contain the input.
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
		return Key{}, errors.New("token key is not valid base64")
	}
	if len(raw) != KeySize {
		return Key{}, fmt.Errorf("token key is %d bytes, want %d (base64 of 32 random bytes, e.g. from \"openssl rand -base64 32\")", len(raw), KeySize)
	}
	var k Key
	copy(k.b[:], raw)
	k.set = true
	clear(raw)
	return k, nil
}

// NewKey returns a random key.
func NewKey() (Key, error) {
	var k Key
	if _, err := rand.Read(k.b[:]); err != nil {
		return Key{}, fmt.Errorf("auth: generate key: %w", err)
	}
	k.set = true
	return k, nil
}

// LoadKey returns the token key from the environment variable
// NOTEBRIDGE_TOKEN_KEY (read with getenv, normally os.Getenv) or, when that
// is empty, from keyFile, which must have mode 0600 or stricter. It returns
// ErrNoKey when neither is set.
func LoadKey(getenv func(string) string, keyFile string) (Key, error) {
	if v := getenv(EnvTokenKey); v != "" {
		k, err := parseKey(v)
		if err != nil {
			return Key{}, fmt.Errorf("auth: %s: %w", EnvTokenKey, err)
		}
		return k, nil
	}
	if keyFile == "" {
		return Key{}, fmt.Errorf("auth: set %s to the base64 of 32 random bytes (\"openssl rand -base64 32\") or configure a key file: %w",
			EnvTokenKey, ErrNoKey)
	}
	b, err := readProtectedFile(keyFile, groupOrOthers, "600")
	if errors.Is(err, fs.ErrNotExist) {
		return Key{}, fmt.Errorf("auth: key file %s does not exist: create it with GenerateKeyFile or set %s: %w",
			keyFile, EnvTokenKey, ErrNoKey)
	}
	if err != nil {
		return Key{}, err
	}
	defer clear(b)
	k, err := parseKey(string(b))
	if err != nil {
		return Key{}, fmt.Errorf("auth: key file %s: %w", keyFile, err)
	}
	return k, nil
}

// GenerateKeyFile writes a new random key, base64-encoded, to path with
// mode 0600, creating its directory with mode 0700. It refuses to replace
// an existing file: every token file encrypted with the old key would
// become unreadable.
func GenerateKeyFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("auth: %w", err)
	}
	k, err := NewKey()
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("auth: create key file: %w", err)
	}
	enc := []byte(base64.StdEncoding.EncodeToString(k.b[:]) + "\n")
	defer clear(enc)
	if _, err := f.Write(enc); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("auth: write key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("auth: write key file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("auth: write key file: %w", err)
	}
	return nil
}

// IsZero reports whether k holds no key.
func (k Key) IsZero() bool { return !k.set }

// Equal reports whether k and other are the same key, in constant time.
func (k Key) Equal(other Key) bool {
	return k.set == other.set && hmac.Equal(k.b[:], other.b[:])
}

// id is a short, public fingerprint of the key stored in each token file,
// so that a file encrypted with another key gives ErrWrongKey rather than a
// generic authentication failure. It reveals nothing about the key.
func (k Key) id() []byte {
	m := hmac.New(sha256.New, k.b[:])
	m.Write([]byte("notebridge token key id v1"))
	return m.Sum(nil)[:keyIDSize]
}

// String returns "[redacted]".
func (k Key) String() string { return redacted }

// GoString returns "[redacted]".
func (k Key) GoString() string { return redacted }

// Format writes "[redacted]" for every verb.
func (k Key) Format(f fmt.State, verb rune) { writeRedacted(f) }

// MarshalJSON encodes the key as "[redacted]".
func (k Key) MarshalJSON() ([]byte, error) { return []byte(`"` + redacted + `"`), nil }

// LogValue makes slog print "[redacted]".
func (k Key) LogValue() slog.Value { return slog.StringValue(redacted) }
