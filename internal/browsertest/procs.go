package browsertest

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Process is one process on this machine, as /proc shows it.
type Process struct {
	PID, PPID, PGID int
	// State is the state letter of /proc/<pid>/stat: R, S, D, Z (a zombie:
	// dead, waiting to be reaped), T, ...
	State byte
	// Cmdline is the command line, arguments separated by spaces.
	Cmdline string
}

// Zombie reports whether the process has exited and only waits to be
// reaped by its parent (init, for orphans, which may take seconds).
func (p Process) Zombie() bool { return p.State == 'Z' || p.State == 'X' }

// Processes lists the processes of this machine from /proc (Linux only).
// Processes that exit while it reads are left out.
func Processes() ([]Process, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	var ps []Process
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		p, ok := parseStat(pid, stat)
		if !ok {
			continue
		}
		if cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil {
			p.Cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// parseStat reads the state, parent and process group from the contents
// of /proc/<pid>/stat: "pid (comm) state ppid pgrp ...", where comm may
// hold spaces and parentheses.
func parseStat(pid int, stat []byte) (Process, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return Process{}, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 3 || len(f[0]) != 1 {
		return Process{}, false
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgid, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return Process{}, false
	}
	return Process{PID: pid, PPID: ppid, PGID: pgid, State: f[0][0]}, true
}

// LiveInGroup returns the processes of group pgid that have not exited.
func LiveInGroup(pgid int) ([]Process, error) {
	ps, err := Processes()
	if err != nil {
		return nil, err
	}
	var live []Process
	for _, p := range ps {
		if p.PGID == pgid && !p.Zombie() {
			live = append(live, p)
		}
	}
	return live, nil
}
