package auth

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestTokenFileIsEncryptedAndPrivate(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	tok := stored(t, s, "alice")
	path := s.files.path("alice")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, secret := range map[string]string{"access": tok.AccessToken, "refresh": tok.RefreshToken} {
		if secret == "" || bytes.Contains(raw, []byte(secret)) {
			t.Errorf("%s token is empty or in the file in plaintext", name)
		}
	}
	if bytes.Contains(raw, []byte("access_token")) || bytes.Contains(raw, []byte("alice")) {
		t.Error("token file has plaintext JSON or the user ID")
	}
	for p, want := range map[string]os.FileMode{path: 0o600, s.files.dir: 0o700} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s: mode %04o, want %04o", p, got, want)
		}
	}

	// Rewrites use a fresh nonce and leave no temporary files.
	if err := s.files.write("alice", tok); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(path)
	if bytes.Equal(raw, again) {
		t.Error("two writes of the same token gave the same bytes (nonce reuse)")
	}
	entries, _ := os.ReadDir(s.files.dir)
	for _, de := range entries {
		if strings.HasSuffix(de.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", de.Name())
		}
	}

	// A file others can read is refused, with the fix in the message.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = s.TokenSource("alice").Token(context.Background())
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 600 "+path) {
		t.Errorf("Token with a 0644 file = %v, want ErrInsecurePermissions saying chmod 600", err)
	}
}

func TestTokenFileCannotMoveToAnotherUser(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	raw, err := os.ReadFile(s.files.path("alice"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.files.path("bob"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = s.TokenSource("bob").Token(context.Background())
	if !errors.Is(err, ErrTokenFileInvalid) {
		t.Fatalf("Token(bob) with alice's file = %v, want ErrTokenFileInvalid", err)
	}
	if !strings.Contains(err.Error(), `not written for user "bob"`) || !strings.Contains(err.Error(), "starter login --user bob") {
		t.Errorf("unclear error: %v", err)
	}

	// A modified file fails too.
	raw[len(raw)-1] ^= 1
	if err := os.WriteFile(s.files.path("alice"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.files.read("alice"); !errors.Is(err, ErrTokenFileInvalid) {
		t.Errorf("modified file: %v, want ErrTokenFileInvalid", err)
	}
	if err := os.WriteFile(s.files.path("alice"), raw[:10], 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.files.read("alice"); !errors.Is(err, ErrTokenFileInvalid) {
		t.Errorf("truncated file: %v, want ErrTokenFileInvalid", err)
	}
}

func TestTokenFileWrongKey(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	e.login(t, s, "alice")
	other := e.newStoreIn(t, s.files.dir, testKey(t, 99), nil)
	_, err := other.TokenSource("alice").Token(context.Background())
	if !errors.Is(err, ErrWrongKey) {
		t.Fatalf("Token with another key = %v, want ErrWrongKey", err)
	}
	if !strings.Contains(err.Error(), EnvTokenKey) || !strings.Contains(err.Error(), "different key") {
		t.Errorf("unclear error: %v", err)
	}
}

func TestOpenRefusesSharedDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tokens")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Open(Config{Dir: dir, Key: testKey(t, 1), Microsoft: Microsoft{ClientID: "x"}})
	if !errors.Is(err, ErrInsecurePermissions) || !strings.Contains(err.Error(), "chmod 700") {
		t.Errorf("Open on a 0755 directory = %v, want ErrInsecurePermissions", err)
	}
}

func TestConcurrentWritesStayReadable(t *testing.T) {
	t.Parallel()
	e := newEmulator(t)
	s := e.newStore(t, nil)
	a := e.newStoreIn(t, s.files.dir, testKey(t, 1), nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 50 {
			st := []*Store{s, a}[i%2]
			unlock, err := st.userLock(context.Background(), "alice")
			if err != nil {
				t.Error(err)
				return
			}
			_, err = st.save("alice", storedToken{AccessToken: strings.Repeat("a", 100+i), RefreshToken: "r", Expiry: time.Now()})
			unlock()
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for {
		select {
		case <-done:
			return
		default:
		}
		if _, err := s.files.read("alice"); err != nil && !errors.Is(err, ErrNotSignedIn) {
			t.Fatalf("read during writes: %v", err)
		}
	}
}
