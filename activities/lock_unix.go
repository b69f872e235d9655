//go:build unix

package activities

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// lockFile takes f's exclusive lock without waiting; held is false when
// another process holds it. The lock goes with the process.
func lockFile(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// ownedByMe says whether the file's owner is this process's user.
func ownedByMe(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return !ok || int(s.Uid) == os.Getuid()
}
