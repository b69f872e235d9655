package auth

import (
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadKeyFromEnvironment(t *testing.T) {
	raw := make([]byte, KeySize)
	for i := range raw {
		raw[i] = byte(i)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawURLEncoding} {
		k, err := LoadKey(env(map[string]string{EnvTokenKey: enc.EncodeToString(raw) + "\n"}), "")
		if err != nil {
			t.Fatal(err)
		}
		if want := (Key{set: true, b: [KeySize]byte(raw)}); !k.Equal(want) {
			t.Error("decoded key differs")
		}
	}
	secret := base64.StdEncoding.EncodeToString(raw[:16])
	_, err := LoadKey(env(map[string]string{EnvTokenKey: secret}), "")
	if err == nil || !strings.Contains(err.Error(), "16 bytes, want 32") || strings.Contains(err.Error(), secret) {
		t.Errorf("short key: %v", err)
	}
	_, err = LoadKey(env(map[string]string{EnvTokenKey: "not base64 at all!"}), "")
	if err == nil || strings.Contains(err.Error(), "not base64 at all") {
		t.Errorf("bad base64: %v", err)
	}
	if _, err := LoadKey(env(nil), ""); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), EnvTokenKey) {
		t.Errorf("no key: %v", err)
	}
}

func TestKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conf", "token.key")
	if _, err := LoadKey(env(nil), path); !errors.Is(err, ErrNoKey) {
		t.Errorf("missing key file: %v, want ErrNoKey", err)
	}
	if err := GenerateKeyFile(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %04o, want 0600", fi.Mode().Perm())
	}
	k, err := LoadKey(env(nil), path)
	if err != nil || k.IsZero() {
		t.Fatalf("LoadKey: %v", err)
	}
	if err := GenerateKeyFile(path); err == nil {
		t.Error("GenerateKeyFile replaced an existing key")
	}
	if k2, _ := LoadKey(env(nil), path); !k2.Equal(k) {
		t.Error("key changed")
	}
	// The environment wins over the file.
	other, _ := NewKey()
	if k3, err := LoadKey(env(map[string]string{EnvTokenKey: base64.StdEncoding.EncodeToString(other.b[:])}), path); err != nil || !k3.Equal(other) {
		t.Errorf("environment key not used: %v", err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadKey(env(nil), path); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("0640 key file: %v, want ErrInsecurePermissions", err)
	}
}
