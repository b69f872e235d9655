//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package auth

import (
	"context"
	"errors"
	"syscall"
	"time"
)

// lockFile takes an exclusive flock on path, polling without blocking so
// that ctx can end the wait. The kernel drops the lock if the process dies.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, context.Cause(ctx)
		case <-time.After(lockRetry):
		}
	}
	return func() {
		_ = syscall.Flock(fd, syscall.LOCK_UN)
		f.Close()
	}, nil
}
