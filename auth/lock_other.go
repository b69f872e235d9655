//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package auth

import "context"

// lockFile on platforms without flock only creates the lock file: writes
// stay atomic (rename), and refreshes are serialised within the process,
// but two processes may refresh the same user at once. On Microsoft's
// identity platform both refreshes succeed (a redeemed refresh token
// stays valid) and the last write wins; an identity platform that revoked
// redeemed refresh tokens would reject one of them, which is then retried
// once with the token the other stored. Run one worker per host there.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	return func() { f.Close() }, nil
}
