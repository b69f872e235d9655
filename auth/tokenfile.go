package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxTokenFileBytes bounds a token file; real ones are a few KiB.
const maxTokenFileBytes = 1 << 20

// tokenFileSuffix ends every token file name.
const tokenFileSuffix = ".json.enc"

// ValidateUser reports whether user can be used as a user ID: 1 to 128
// letters, digits and ". _ @ + -", starting with a letter or digit.
func ValidateUser(user string) error {
	if !isSafeUserID(user) {
		return fmt.Errorf("auth: %q: %w: use 1 to 128 letters, digits and . _ @ + -", user, ErrInvalidUser)
	}
	return nil
}

// tokenFiles reads and writes the encrypted per-user token files in one
// private directory.
type tokenFiles struct {
	dir string
	key Key
}

// isSafeUserID reports whether user is safe as a file name: a UPN, an
// object ID or a short name, never a path.
func isSafeUserID(user string) bool {
	if len(user) == 0 || len(user) > 128 || strings.Contains(user, "..") {
		return false
	}
	for i, r := range user {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case i > 0 && strings.ContainsRune("._@+-", r):
		default:
			return false
		}
	}
	return true
}

func (tf tokenFiles) path(user string) string { return filepath.Join(tf.dir, user+tokenFileSuffix) }

func (tf tokenFiles) lockPath(user string) string { return filepath.Join(tf.dir, user+".lock") }

// read loads user's token. A missing file gives ErrNotSignedIn; a file
// other users can read gives ErrInsecurePermissions and is not decrypted.
func (tf tokenFiles) read(user string) (storedToken, error) {
	path := tf.path(user)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return storedToken{}, notSignedIn(user)
	}
	if err != nil {
		return storedToken{}, fmt.Errorf("auth: read token file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return storedToken{}, fmt.Errorf("auth: read token file: %w", err)
	}
	if err := checkMode(path, fi, groupOrOthers, "600"); err != nil {
		return storedToken{}, err
	}
	sealed, err := io.ReadAll(io.LimitReader(f, maxTokenFileBytes))
	if err != nil {
		return storedToken{}, fmt.Errorf("auth: read token file %s: %w", path, err)
	}
	plain, err := open(tf.key, user, sealed)
	switch {
	case errors.Is(err, ErrWrongKey):
		return storedToken{}, &actionError{
			msg: fmt.Sprintf("auth: token file %s was encrypted with a different key: set %s (or the key file) to the key it was written with, or run %q to sign in again",
				path, EnvTokenKey, loginCommand(user)),
			kind: ErrWrongKey,
		}
	case errors.Is(err, ErrTokenFileInvalid):
		return storedToken{}, &actionError{
			msg: fmt.Sprintf("auth: token file %s was not written for user %q or was modified: delete it and run %q",
				path, user, loginCommand(user)),
			kind: ErrTokenFileInvalid,
		}
	case err != nil:
		return storedToken{}, err
	}
	defer clear(plain)
	var rec tokenRecord
	if err := json.Unmarshal(plain, &rec); err != nil {
		// The JSON error could quote file contents; do not wrap it.
		return storedToken{}, &actionError{
			msg:  fmt.Sprintf("auth: token file %s is damaged: delete it and run %q", path, loginCommand(user)),
			kind: ErrTokenFileInvalid,
		}
	}
	return storedToken(rec), nil
}

// write replaces user's token file atomically: it writes a temporary file
// (mode 0600) in the same directory, syncs it, and renames it over the old
// one, so a reader or a crash sees either the old file or the new one.
func (tf tokenFiles) write(user string, tok storedToken) error {
	plain, err := json.Marshal(tokenRecord(tok))
	if err != nil {
		return fmt.Errorf("auth: encode token: %w", err)
	}
	sealed, err := seal(tf.key, user, plain)
	clear(plain)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(tf.path(user), sealed); err != nil {
		return err
	}
	tf.removeStaleTemps(user)
	return nil
}

// removeStaleTemps deletes the temporary files a process killed in the
// middle of a write left behind. The caller holds the user lock, so no
// write of user is in progress.
func (tf tokenFiles) removeStaleTemps(user string) {
	stale, _ := filepath.Glob(filepath.Join(tf.dir, "."+user+tokenFileSuffix+".*.tmp"))
	for _, f := range stale {
		_ = os.Remove(f)
	}
}

// remove deletes user's token file; a missing file is not an error.
func (tf tokenFiles) remove(user string) error {
	if err := os.Remove(tf.path(user)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("auth: %w", err)
	}
	return nil
}

// writeFileAtomic writes data to path through a 0600 temporary file and a
// rename.
func writeFileAtomic(path string, data []byte) (err error) {
	dir, name := filepath.Split(path)
	tmp, err := os.CreateTemp(dir, "."+name+".*.tmp") // mode 0600
	if err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("auth: write token file: %w", err)
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename durable where the platform allows it.
func syncDir(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	_ = d.Sync()
	d.Close()
}
