package auth

import (
	"context"
	"fmt"
	"os"
	"time"
)

// lockRetry is how often a busy lock file is tried again.
const lockRetry = 20 * time.Millisecond

// userLock serialises the writers of one user's token file: first within
// the process (a one-slot channel per user), then across processes on the
// host (an exclusive lock on <user>.lock, see lockFile). Both waits end
// when ctx does.
func (s *Store) userLock(ctx context.Context, user string) (unlock func(), err error) {
	s.mu.Lock()
	slot, ok := s.slots[user]
	if !ok {
		slot = make(chan struct{}, 1)
		s.slots[user] = slot
	}
	s.mu.Unlock()

	select {
	case slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("auth: wait for the token lock of user %q: %w", user, context.Cause(ctx))
	}
	release, err := lockFile(ctx, s.files.lockPath(user))
	if err != nil {
		<-slot
		return nil, fmt.Errorf("auth: lock token file of user %q: %w", user, err)
	}
	return func() {
		release()
		<-slot
	}, nil
}

// openLockFile opens (creating, mode 0600) a lock file. Lock files are
// never deleted: deleting one while another process waits on it would
// let two processes hold "the" lock.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
}
