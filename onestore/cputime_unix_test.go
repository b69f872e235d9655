//go:build unix

package onestore

import (
	"syscall"
	"time"
)

// processCPUTime is the CPU time the test process has used, user and
// system, on all its threads.
func processCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
