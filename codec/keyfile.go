package codec

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EnvKey is the environment variable that holds the payload keys: base64
// of 32 random bytes, several separated by commas, the current key first.
const EnvKey = "NOTEBRIDGE_CODEC_KEY"

// maxPrivateFileBytes bounds what is read from a key or token file.
const maxPrivateFileBytes = 64 << 10

// LoadKeys returns the payload keys from the environment variable
// NOTEBRIDGE_CODEC_KEY (read with getenv, normally os.Getenv) or, when that
// is empty, from keyFile, which must not be readable by group or others.
// It returns an error wrapping ErrNoKey when neither is set.
func LoadKeys(getenv func(string) string, keyFile string) ([]Key, error) {
	if v := getenv(EnvKey); strings.TrimSpace(v) != "" {
		keys, err := ParseKeys(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", EnvKey, err)
		}
		return keys, nil
	}
	if keyFile == "" {
		return nil, fmt.Errorf("codec: set %s to the base64 of 32 random bytes (\"openssl rand -base64 32\") or give a key file: %w",
			EnvKey, ErrNoKey)
	}
	b, err := ReadPrivateFile(keyFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("codec: key file %s does not exist: create it with `codec-server -generate-key -key-file %s` or set %s: %w",
			keyFile, keyFile, EnvKey, ErrNoKey)
	}
	if err != nil {
		return nil, err
	}
	defer clear(b)
	keys, err := ParseKeys(string(b))
	if err != nil {
		return nil, fmt.Errorf("key file %s: %w", keyFile, err)
	}
	return keys, nil
}

// ReadPrivateFile reads a small secret file (a key file, a bearer token
// file) after checking, on the open file itself, that it is a regular file
// that group and others cannot read or write (mode 0600 or stricter). The
// returned error never holds the file's contents.
func ReadPrivateFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("codec: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("codec: %s is not a regular file: %w", path, ErrInsecurePermissions)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("codec: %s has mode %04o, which lets other users read it: run \"chmod 600 %s\": %w",
			path, perm, path, ErrInsecurePermissions)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPrivateFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("codec: read %s: %w", path, err)
	}
	if len(b) > maxPrivateFileBytes {
		clear(b)
		return nil, fmt.Errorf("codec: %s is larger than %d bytes; it should hold a few lines", path, maxPrivateFileBytes)
	}
	return b, nil
}

// GenerateKeyFile writes a new random key to path with mode 0600,
// creating its directory with mode 0700, and returns it. It refuses to
// replace an existing file: payloads sealed with the keys in it would
// become unreadable. Use RotateKeyFile to add a key.
func GenerateKeyFile(path string) (Key, error) {
	k, err := NewKey()
	if err != nil {
		return Key{}, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Key{}, fmt.Errorf("codec: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return Key{}, fmt.Errorf("codec: create key file (use -rotate-key to add a key to an existing one): %w", err)
	}
	if err := writeKeys(f, []Key{k}); err != nil {
		f.Close()
		os.Remove(path)
		return Key{}, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return Key{}, fmt.Errorf("codec: write key file: %w", err)
	}
	return k, nil
}

// RotateKeyFile puts a new random key first in the key file at path,
// keeping the old keys after it so payloads they sealed still decrypt, and
// returns the new key. The file is replaced atomically, mode 0600. Workers
// and the codec server pick the new key up when restarted; restart every
// one of them (the codec server first), since a process that does not know
// the new key cannot read what the others now write.
func RotateKeyFile(path string) (Key, error) {
	b, err := ReadPrivateFile(path)
	if err != nil {
		return Key{}, err
	}
	defer clear(b)
	old, err := ParseKeys(string(b))
	if err != nil {
		return Key{}, fmt.Errorf("key file %s: %w", path, err)
	}
	k, err := NewKey()
	if err != nil {
		return Key{}, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".codec-key-*")
	if err != nil {
		return Key{}, fmt.Errorf("codec: rotate key file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return Key{}, fmt.Errorf("codec: rotate key file: %w", err)
	}
	if err := writeKeys(tmp, append([]Key{k}, old...)); err != nil {
		tmp.Close()
		return Key{}, err
	}
	if err := tmp.Close(); err != nil {
		return Key{}, fmt.Errorf("codec: rotate key file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return Key{}, fmt.Errorf("codec: rotate key file: %w", err)
	}
	return k, nil
}

// writeKeys writes keys, one a line with its ID in a comment above it, and
// syncs the file.
func writeKeys(f *os.File, keys []Key) error {
	var sb strings.Builder
	sb.WriteString("# Note Bridge payload keys: the first encrypts, every one decrypts. Keep this file 0600.\n")
	for i, k := range keys {
		role := "older key, decrypts only"
		if i == 0 {
			role = "current key"
		}
		fmt.Fprintf(&sb, "# %s, id %s\n%s\n", role, k.ID(), k.encode())
	}
	text := []byte(sb.String())
	defer clear(text)
	if _, err := f.Write(text); err != nil {
		return fmt.Errorf("codec: write key file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("codec: write key file: %w", err)
	}
	return nil
}
