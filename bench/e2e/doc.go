// Package e2e runs end-to-end benchmark scenarios on the real stack: a
// Temporal dev server, the Graph OneNote and Notion emulators (in this
// process) and the worker binary as a process of its own, under
// time-scaled limits that the emulator and the limiter share.
//
// A Harness builds the worker and starts a fresh Stack per run; a Bench
// runs the numbered scenarios (see Scenarios), checks each against its
// bound, and writes bench/results/e2e.md with a PNG per scenario. The
// figures are pure functions of what the emulators recorded (metrics.go),
// so they are tested without a stack. bench/cmd/e2ebench is the command.
package e2e
