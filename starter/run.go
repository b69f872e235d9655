package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	// json is --json: print the result as JSON instead of text.
	json bool
}

// command is one subcommand: its name, its line in the usage and how to
// build it.
type command struct {
	name    string
	summary string
	build   func(c *cli, name, summary string) *cobra.Command
}

// commands lists the subcommands in the order the usage shows them.
func commands() []command {
	return []command{
		{"login", "sign a user in to Microsoft (device code) and store the token, encrypted", newLoginCmd},
		{"scan", "list a user's notebooks, sections and page counts, with the migration estimate", newScanCmd},
		{"migrate", "start migrating a notebook into Notion, and follow it", newMigrateCmd},
		{"import", "import a notebook from OneNote's files (.onepkg, .onetoc2, .one) without Graph, and follow it", newImportCmd},
		{"status", "show a migration's progress: pages, ETA, throttle waits, budget use", newStatusCmd},
		{"retry", "run a migration's failed sections again (--section S or --all)", newRetryCmd},
		{"finish", "end a migration that waits with failed sections, and print its report", newFinishCmd},
		{"list", "list migrations, by user and status (search attributes)", newListCmd},
		{"sync", "keep Notion in step with OneNote: a notebook's sync schedule (create, pause, resume, delete, list)", newSyncCmd},
		{"report", "write an ended migration's loss report as JSON (--out FILE)", newReportCmd},
		{"verify", "check a migrated notebook again: every page read back from Notion (edited since: reported, not failed)", newVerifyCmd},
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
	root := c.rootCmd()
	args, name := normalize(root, args)
	if name == "" && !anyFlag(args, "--help", "-h", "--version") {
		c.usage(stderr)
		return exitUsage
	}
	if name != "" && !isCommand(root, name) {
		fmt.Fprintf(stderr, "starter: unknown command %q\n\n", name)
		c.usage(stderr)
		return exitUsage
	}
	root.SetArgs(args)
	_, err := root.ExecuteContextC(ctx)
	var ue *usageError
	switch {
	case err == nil:
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

// rootCmd is the starter command with its subcommands.
func (c *cli) rootCmd() *cobra.Command {
	root := &cobra.Command{
		Use: "starter", Short: "Note Bridge's operator CLI", Version: version(),
		SilenceErrors: true, SilenceUsage: true,
		CompletionOptions: cobra.CompletionOptions{HiddenDefaultCmd: true},
	}
	root.SetOut(c.stdout)
	root.SetErr(c.stderr)
	root.SetVersionTemplate("starter {{.Version}}\n")
	root.SetHelpFunc(func(*cobra.Command, []string) { c.usage(c.stdout) })
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
	root.PersistentFlags().BoolVar(&c.json, "json", false, "print the result as JSON (durations in seconds, in keys ending in Seconds)")
	for _, cmd := range commands() {
		root.AddCommand(cmd.build(c, cmd.name, cmd.summary))
	}
	return root
}

// buildVersion is the version make stamps into the binary (-ldflags -X
// main.buildVersion=..., from git describe); empty in other builds.
var buildVersion string

// version is the version the binary was built as: make's stamp, else the
// module's version (go install ...@v1.2.3), else "devel"; with the VCS
// revision when the build recorded one.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return orDevel(buildVersion)
	}
	v := info.Main.Version
	if buildVersion != "" {
		v = buildVersion
	} else if v == "" || v == "(devel)" {
		v = "devel"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " (" + s.Value[:12] + ")"
		}
	}
	return v + " " + info.GoVersion
}

// orDevel is v, or "devel" when it is empty.
func orDevel(v string) string {
	if v == "" {
		return "devel"
	}
	return v
}

func isCommand(root *cobra.Command, name string) bool {
	for _, cmd := range root.Commands() {
		if cmd.Name() == name {
			return true
		}
	}
	return false
}

func anyFlag(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n {
				return true
			}
		}
	}
	return false
}

// normalize finds the subcommand's name and rewrites the single-dash long
// flags that starter took before it used pflag (-user alice, -help) as
// --user alice: scripts written for those keep working. One-letter
// shorthands (-w, -f, -h) stay as they are.
func normalize(root *cobra.Command, args []string) ([]string, string) {
	root.InitDefaultHelpFlag()
	root.InitDefaultVersionFlag()
	root.InitDefaultHelpCmd()
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "--" {
		i++
	}
	out := dashed(root.Flags(), args[:i])
	if i == len(args) || args[i] == "--" {
		return append(out, args[i:]...), ""
	}
	name := args[i]
	out = append(out, name)
	for _, cmd := range root.Commands() {
		if cmd.Name() != name {
			continue
		}
		cmd.InitDefaultHelpFlag()
		fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
		fs.AddFlagSet(cmd.Flags())
		fs.AddFlagSet(root.PersistentFlags())
		return append(out, dashed(fs, args[i+1:])...), name
	}
	return append(out, args[i+1:]...), name
}

// dashed rewrites -name and -name=value as --name and --name=value for
// every flag name longer than a letter, and leaves the value of a flag
// that takes one as it is (-notion-parent -x keeps -x).
func dashed(fs *pflag.FlagSet, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		var f *pflag.Flag
		inline := strings.Contains(a, "=")
		switch {
		case strings.HasPrefix(a, "--"):
			f = fs.Lookup(strings.SplitN(a[2:], "=", 2)[0])
		case len(a) == 2 && a[0] == '-':
			f = fs.ShorthandLookup(a[1:])
		case len(a) > 2 && a[0] == '-' && !strings.HasPrefix(a[1:], "=") && a[2] != '=':
			a = "-" + a
			f = fs.Lookup(strings.SplitN(a[2:], "=", 2)[0])
		}
		out = append(out, a)
		if f != nil && !inline && f.NoOptDefVal == "" && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}

func (c *cli) usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("Usage: starter <command> [flags]\n\nNote Bridge's operator CLI: OneNote notebooks into Notion, on Temporal.\n\nCommands:\n")
	for _, cmd := range commands() {
		fmt.Fprintf(&b, "  %-8s %s\n", cmd.name, cmd.summary)
	}
	b.WriteString("\nRun \"starter help <command>\" or \"starter <command> --help\" for a command's flags and the temporal CLI command it stands for.\n" +
		"Every command takes --json (machine-readable output); \"starter --version\" prints the version.\n" +
		"Temporal: --temporal-address (TEMPORAL_ADDRESS), --namespace (TEMPORAL_NAMESPACE), --task-queue (NOTEBRIDGE_TASK_QUEUE).\n" +
		"Exit codes: 0 done, 1 failed, 2 bad command line, 130 interrupted (Ctrl-C while following; the migration goes on).\n")
	fmt.Fprint(w, b.String())
}

// newCommand returns a subcommand whose help prints the description, the
// equivalent temporal CLI commands (temporal is called after the flags
// are parsed, so it can show their values) and the flags. run runs it;
// a stray argument is a usage error.
func (c *cli) newCommand(name, synopsis, summary, description string, temporal func() string, run func(ctx context.Context, cmd *cobra.Command) error) *cobra.Command {
	cmd := &cobra.Command{
		Use: name, Short: summary, Long: strings.TrimSpace(description),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected arguments %q: every setting is a flag", args)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return run(cmd.Context(), cmd) },
	}
	cmd.SetHelpFunc(func(cmd *cobra.Command, _ []string) {
		w := c.stdout
		fmt.Fprintf(w, "Usage: starter %s %s\n\n%s\n", name, synopsis, cmd.Long)
		if temporal != nil {
			fmt.Fprintf(w, "\nThe same with the temporal CLI:\n%s\n", indent(strings.TrimSpace(temporal()), "  "))
		}
		fmt.Fprintf(w, "\nFlags:\n%s", cmd.LocalFlags().FlagUsages())
		fmt.Fprintf(w, "\nGlobal flags:\n%s", cmd.InheritedFlags().FlagUsages())
	})
	return cmd
}

// given reports which flags the command line set.
func given(fs *pflag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { m[f.Name] = true })
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

// printJSON writes v to stdout as indented JSON.
func (c *cli) printJSON(v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// env returns the variable's value, or def when it is unset or empty.
func (c *cli) env(name, def string) string {
	if v := c.getenv(name); v != "" {
		return v
	}
	return def
}
