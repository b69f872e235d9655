package codec

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseKeys(t *testing.T) {
	k1, k2 := testKey(1), testKey(2)
	for _, tc := range []struct {
		name, text string
		want       []Key
	}{
		{"one", k1.encode(), []Key{k1}},
		{"comma list", k1.encode() + "," + k2.encode(), []Key{k1, k2}},
		{"spaces and URL alphabet", " " + base64.RawURLEncoding.EncodeToString(k2.b[:]) + " , " + k1.encode() + "\n", []Key{k2, k1}},
		{"file with comments and duplicates", "# current\n" + k2.encode() + "\n\n# old\n" + k1.encode() + "\n" + k2.encode() + "\n", []Key{k2, k1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseKeys(tc.text)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d keys, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !got[i].Equal(tc.want[i]) || got[i].ID() != tc.want[i].ID() {
					t.Errorf("key %d differs", i)
				}
			}
		})
	}
	short := base64.StdEncoding.EncodeToString(k1.b[:16])
	_, err := ParseKeys(k1.encode() + "," + short)
	if !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), "key 2") || !strings.Contains(err.Error(), "16 bytes, want 32") {
		t.Errorf("short key: %v", err)
	}
	if strings.Contains(err.Error(), short) || strings.Contains(err.Error(), k1.encode()) {
		t.Errorf("error shows key material: %v", err)
	}
	if _, err := ParseKeys("not base64!"); !errors.Is(err, ErrInvalidKey) || strings.Contains(err.Error(), "base64!") {
		t.Errorf("bad base64: %v", err)
	}
	if _, err := ParseKeys("# only a comment\n\n"); !errors.Is(err, ErrNoKey) {
		t.Errorf("no keys: %v", err)
	}
}

func TestKeyIDIsStableAndDistinct(t *testing.T) {
	k := testKey(1)
	again, err := ParseKey(k.encode())
	if err != nil {
		t.Fatal(err)
	}
	if k.ID() != again.ID() || len(k.ID()) != 16 {
		t.Errorf("ID %q / %q", k.ID(), again.ID())
	}
	if k.ID() == testKey(2).ID() {
		t.Error("two keys share an ID")
	}
	if strings.Contains(hex.EncodeToString(k.b[:]), k.ID()) {
		t.Error("the ID is part of the key")
	}
}

func TestLoadKeys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "conf", "codec.key")
	if _, err := LoadKeys(env(nil), path); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), "-generate-key") {
		t.Errorf("missing file: %v, want ErrNoKey naming the generator", err)
	}
	if _, err := LoadKeys(env(nil), ""); !errors.Is(err, ErrNoKey) || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("nothing configured: %v", err)
	}
	k1, err := GenerateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, err %v; want %04o", p, fi.Mode().Perm(), err, want)
		}
	}
	if _, err := GenerateKeyFile(path); err == nil {
		t.Error("GenerateKeyFile replaced an existing key file")
	}
	keys, err := LoadKeys(env(nil), path)
	if err != nil || len(keys) != 1 || !keys[0].Equal(k1) {
		t.Fatalf("LoadKeys: %v %v", keys, err)
	}

	// The environment wins over the file.
	k9 := testKey(9)
	keys, err = LoadKeys(env(map[string]string{EnvKey: k9.encode()}), path)
	if err != nil || len(keys) != 1 || !keys[0].Equal(k9) {
		t.Errorf("environment not used: %v", err)
	}
	if _, err := LoadKeys(env(map[string]string{EnvKey: "short"}), path); !errors.Is(err, ErrInvalidKey) || !strings.Contains(err.Error(), EnvKey) {
		t.Errorf("bad environment key: %v", err)
	}

	// Rotation puts a new key first and keeps the old one.
	sealed, _ := mustCodec(t, k1).Encode([]*commonpb.Payload{plainPayload("before rotation")})
	k2, err := RotateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	keys, err = LoadKeys(env(nil), path)
	if err != nil || len(keys) != 2 || !keys[0].Equal(k2) || !keys[1].Equal(k1) {
		t.Fatalf("after rotation: %d keys, %v", len(keys), err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("rotated file mode %04o", fi.Mode().Perm())
	}
	if _, err := mustCodec(t, keys...).Decode(sealed); err != nil {
		t.Errorf("old payload after rotation: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".codec-key-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}

	// A file others can read is refused, with the fix.
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string]func() error{
		"LoadKeys":      func() error { _, err := LoadKeys(env(nil), path); return err },
		"RotateKeyFile": func() error { _, err := RotateKeyFile(path); return err },
	} {
		if err := f(); !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("%s on a 0640 file: %v", name, err)
		}
	}
	if _, err := ReadPrivateFile(dir); !errors.Is(err, ErrInsecurePermissions) {
		t.Errorf("a directory: %v", err)
	}
}

// TestKeyNeverPrints formats a key, and every error of the package, with
// every fmt verb, JSON and slog, and checks the key material shows nowhere.
func TestKeyNeverPrints(t *testing.T) {
	k := testKey(7)
	secrets := []string{k.encode(), base64.RawURLEncoding.EncodeToString(k.b[:]), hex.EncodeToString(k.b[:]),
		fmt.Sprint(k.b[:]), strings.Trim(fmt.Sprint(k.b[:]), "[]")}
	holder := struct {
		Key  Key
		Keys []Key
		Ptr  *Key
	}{k, []Key{k}, &k}
	var out bytes.Buffer
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d", "%T"} {
		fmt.Fprintf(&out, verb+"\n", k)
		fmt.Fprintf(&out, verb+"\n", holder)
	}
	j, err := json.Marshal(holder)
	if err != nil {
		t.Fatal(err)
	}
	out.Write(j)
	for _, h := range []slog.Handler{slog.NewTextHandler(&out, nil), slog.NewJSONHandler(&out, nil)} {
		slog.New(h).Info("key", "key", k, "holder", holder, "keys", []Key{k})
	}
	c := mustCodec(t, k)
	sealed, _ := c.Encode([]*commonpb.Payload{plainPayload("x")})
	sealed[0].Data[20] ^= 1
	_, err = c.Decode(sealed)
	fmt.Fprintf(&out, "%v %+v\n", err, c)
	_, err = mustCodec(t, testKey(1)).Decode([]*commonpb.Payload{{Metadata: sealed[0].Metadata, Data: sealed[0].Data}})
	fmt.Fprintf(&out, "%v\n", err)
	got := out.String()
	if !strings.Contains(got, redacted) {
		t.Fatalf("nothing redacted in:\n%s", got)
	}
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("key material %q in output:\n%s", s, got)
		}
	}
}
