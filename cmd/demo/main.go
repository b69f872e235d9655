// Command demo runs a whole Note Bridge migration end to end with one
// command (`make demo`): a Temporal dev server with its Web UI, the Graph
// OneNote emulator seeded with a sample notebook under a time-scaled
// profile, the Notion emulator, a worker, and a MigrateNotebook workflow
// started with the temporal CLI. It shows the progress, prints a summary
// checked against what the Notion emulator holds, and keeps everything
// running for browsing until Ctrl-C (or exits at once with -exit). Ctrl-C
// at any time stops every process it started.
//
//	go run ./cmd/demo                  # about two minutes, an hour lasts a minute
//	go run ./cmd/demo -scale 600 -exit # a quick run that exits when done
//	go run ./cmd/demo -real            # a real notebook (see -help for the variables)
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// `make demo | tee demo.log` and Ctrl-C: tee dies first, and a write
	// to its pipe would kill the demo with SIGPIPE before it stopped its
	// children. Taking the signal makes such a write fail (EPIPE)
	// instead, and the cleanup goes on. The children, exec'd, get the
	// default action back.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	_, err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil && ctx.Err() != nil:
		fmt.Fprintln(os.Stderr, "demo: interrupted; every process it started is stopped")
		os.Exit(130)
	case err != nil:
		fmt.Fprintln(os.Stderr, "demo:", err)
		os.Exit(1)
	}
}

// run parses args, runs the demo and returns its result. It returns when
// the migration ended and -exit was given, or when ctx ends; every child
// process has exited by then. The result is never nil once the options
// parsed: it lists the children's process IDs even when err is not nil.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (*Result, error) {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return nil, err
	}
	d := &demo{opts: o, out: stdout, procs: &children{}}
	res, err := d.run(ctx)
	if res == nil {
		res = &Result{}
	}
	res.PIDs = d.procs.pids()
	return res, err
}
