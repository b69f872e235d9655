//go:build unix

package limiter

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) this process has used, so
// benchmarks can report CPU per operation on a machine shared with other
// work, where wall time per operation is inflated.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
