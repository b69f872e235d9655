package auth

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// maxSecretFileBytes bounds what is read from a key or secret file.
const maxSecretFileBytes = 64 << 10

// Permission masks: bits that must be clear.
const (
	groupOrOthers fs.FileMode = 0o077 // private files: 0600 / 0700
	othersOnly    fs.FileMode = 0o007 // "not world-readable"
)

// checkMode returns ErrInsecurePermissions, with the chmod that fixes it,
// when fi has any bit of forbidden set or is not a regular file.
func checkMode(path string, fi fs.FileInfo, forbidden fs.FileMode, fix string) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("auth: %s is not a regular file: %w", path, ErrInsecurePermissions)
	}
	if perm := fi.Mode().Perm(); perm&forbidden != 0 {
		return fmt.Errorf("auth: %s has mode %04o, which lets other users read it: run \"chmod %s %s\": %w",
			path, perm, fix, path, ErrInsecurePermissions)
	}
	return nil
}

// checkDirMode is checkMode for a directory that must be private (0700).
func checkDirMode(path string, fi fs.FileInfo) error {
	if !fi.IsDir() {
		return fmt.Errorf("auth: %s is not a directory", path)
	}
	if perm := fi.Mode().Perm(); perm&groupOrOthers != 0 {
		return fmt.Errorf("auth: directory %s has mode %04o, which lets other users see it: run \"chmod 700 %s\": %w",
			path, perm, path, ErrInsecurePermissions)
	}
	return nil
}

// readProtectedFile reads a small file after checking, on the open file
// itself, that no bit of forbidden is set. The returned error never holds
// file contents.
func readProtectedFile(path string, forbidden fs.FileMode, fix string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	if err := checkMode(path, fi, forbidden, fix); err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecretFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("auth: read %s: %w", path, err)
	}
	if len(b) > maxSecretFileBytes {
		return nil, fmt.Errorf("auth: %s is larger than %d bytes", path, maxSecretFileBytes)
	}
	return b, nil
}
