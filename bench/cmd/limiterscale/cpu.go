package main

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuMeter sums the CPU time of this process (the worker) and of the dev
// server's processes (those whose command line names its port): on a
// machine where the two are all that runs, CPU per Graph request is the
// cost that bounds throughput, steadier than wall-clock rates.
type cpuMeter struct{ port string }

// total is the CPU time used so far (0 where /proc is missing).
func (m cpuMeter) total() time.Duration {
	var ru syscall.Rusage
	var self time.Duration
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self + m.server()
}

// server is the CPU time of the processes given the port as an argument
// (the dev server), from /proc/<pid>/stat (utime and stime, in clock ticks of 10 ms).
func (m cpuMeter) server() time.Duration {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	var sum time.Duration
	for _, d := range dirs {
		cmd, err := os.ReadFile(filepath.Join(d, "cmdline"))
		args := strings.Split(string(cmd), "\x00")
		if err != nil || len(args) == 0 || strings.Contains(args[0], "limiterscale") || !slices.Contains(args, m.port) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name, which is in parentheses.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) < 13 {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		sum += time.Duration(ut+st) * 10 * time.Millisecond
	}
	return sum
}
