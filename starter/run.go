package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes.
const (
	exitOK          = 0
	exitFailed      = 1   // the command ran and failed, or the migration did
	exitUsage       = 2   // bad flags or arguments
	exitInterrupted = 130 // Ctrl-C while following; the migration goes on
)

// cli is one invocation's output and environment.
type cli struct {
	stdout, stderr io.Writer
	getenv         func(string) string
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

// commands lists the subcommands in the order the usage shows them.
func commands() []command {
	return []command{
		{"login", "sign a user in to Microsoft (device code) and store the token, encrypted", runLogin},
		{"scan", "list a user's notebooks, sections and page counts, with the migration estimate", runScan},
		{"migrate", "start migrating a notebook into Notion, and follow it", runMigrate},
		{"status", "show a migration's progress: pages, ETA, throttle waits, budget use", runStatus},
		{"retry", "run a migration's failed sections again (--section S or --all)", runRetry},
		{"finish", "end a migration that waits with failed sections, and print its report", runFinish},
		{"list", "list migrations, by user and status (search attributes)", runList},
	}
}

// usageError is a mistake in the command line: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// errInterrupted ends a command the person stopped while it followed a
// migration; the migration itself goes on.
var errInterrupted = errors.New("interrupted")

// run runs the command line args (without the program name) and returns
// the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c := &cli{stdout: stdout, stderr: stderr, getenv: os.Getenv}
	if len(args) == 0 {
		c.usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		c.usage(stdout)
		return exitOK
	}
	for _, cmd := range commands() {
		if cmd.name != name {
			continue
		}
		err := cmd.run(ctx, c, args[1:])
		var ue *usageError
		switch {
		case err == nil:
			return exitOK
		case errors.Is(err, flag.ErrHelp):
			return exitOK
		case errors.Is(err, errInterrupted):
			return exitInterrupted
		case errors.As(err, &ue):
			fmt.Fprintf(stderr, "starter %s: %v\nRun \"starter %s --help\" for its flags.\n", name, err, name)
			return exitUsage
		default:
			fmt.Fprintf(stderr, "starter %s: %v\n", name, err)
			return exitFailed
		}
	}
	fmt.Fprintf(stderr, "starter: unknown command %q\n\n", name)
	c.usage(stderr)
	return exitUsage
}

func (c *cli) usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Usage: starter <command> [flags]\n\nNote Bridge's operator CLI: OneNote notebooks into Notion, on Temporal.\n\nCommands:\n")
	for _, cmd := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", cmd.name, cmd.summary)
	}
	b.WriteString("\nRun \"starter <command> --help\" for a command's flags and the temporal CLI command it stands for.\n" +
		"Temporal: -temporal-address (TEMPORAL_ADDRESS), -namespace (TEMPORAL_NAMESPACE), -task-queue (NOTEBRIDGE_TASK_QUEUE).\n")
	fmt.Fprint(w, b.String())
}

// newFlagSet returns a command's flag set whose -help prints the
// description, the equivalent temporal CLI commands (temporal is called
// after the flags before -help are parsed, so it can show their values)
// and the flags.
func (c *cli) newFlagSet(name, synopsis, description string, temporal func() string) *flag.FlagSet {
	fs := flag.NewFlagSet("starter "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse prints what it must
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: starter %s %s\n\n%s\n", name, synopsis, strings.TrimSpace(description))
		if temporal != nil {
			fmt.Fprintf(w, "\nThe same with the temporal CLI:\n%s\n", indent(strings.TrimSpace(temporal()), "  "))
		}
		fmt.Fprintf(w, "\nFlags:\n")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args: -help prints the usage to stdout; a bad flag or a
// stray argument is a usage error.
func (c *cli) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(c.stdout)
			fs.Usage()
			return err
		}
		return &usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected arguments %q: every setting is a flag", fs.Args())
	}
	return nil
}

// set reports which flags the command line set.
func set(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// jsonText is v as compact JSON, with < and > as they are (for help
// texts a person copies).
func jsonText(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

// env returns the variable's value, or def when it is unset or empty.
func (c *cli) env(name, def string) string {
	if v := c.getenv(name); v != "" {
		return v
	}
	return def
}
