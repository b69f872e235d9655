// Command e2ebench runs the end-to-end benchmark scenarios on the real
// stack (a Temporal dev server, the emulators, the worker as a process)
// and writes bench/results/e2e.md and a PNG per scenario.
//
//	cd bench && go run ./cmd/e2ebench               # every scenario, about 40 minutes
//	cd bench && go run ./cmd/e2ebench -scenarios 1,2  # some of them
//
// It needs the temporal CLI in bin/ (make temporal). It exits non-zero
// when a scenario fails to run or a check misses its bound.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/notebridge/notebridge/bench/e2e"
	"github.com/notebridge/notebridge/internal/stack"
)

func main() {
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(os.Args[1:], log); err != nil {
		fmt.Fprintln(os.Stderr, "e2ebench:", err)
		os.Exit(1)
	}
}

func run(args []string, log *slog.Logger) error {
	o := e2e.DefaultOptions()
	fs := flag.NewFlagSet("e2ebench", flag.ContinueOnError)
	which := fs.String("scenarios", "1,2,3,4,5,6", "comma-separated scenario numbers: "+scenarioList())
	fs.StringVar(&o.Out, "out", o.Out, "directory for e2e.md and the PNG plots")
	work := fs.String("work", filepath.Join(os.TempDir(), "notebridge-e2ebench"), "work directory: the worker binary and each run's logs")
	fs.Float64Var(&o.Scale, "scale", o.Scale, "time scale of the Graph limits in scenarios 3 and 4 (60: an hour lasts a minute)")
	fs.Float64Var(&o.SeedScale, "seed-scale", o.SeedScale, "time scale of the Graph limits in scenarios 1 and 2")
	fs.Float64Var(&o.HiddenScale, "hidden-scale", o.HiddenScale, "time scale of the Graph limits in scenario 5")
	fs.Float64Var(&o.BaselineHours, "baseline-hours", o.BaselineHours, "scaled hours each baseline of scenario 2 runs")
	fs.DurationVar(&o.ScanEvery, "scan-every", o.ScanEvery, "scaled interval between the scans of scenario 3")
	fs.Float64Var(&o.ScanHours, "scan-hours", o.ScanHours, "scaled hours each variant of scenario 3 scans for")
	fs.IntVar(&o.ScalePages, "scale-pages", o.ScalePages, "pages of scenario 6's notebook")
	fs.DurationVar(&o.ScaleHorizon, "scale-horizon", o.ScaleHorizon, "wall-clock time scenario 6 may take before it is stopped and reported as far as it got")
	merge := fs.String("merge", "", "add the results of a run written to this directory (its e2e.json and plots) to -out's report, and run nothing")
	fs.BoolVar(&o.Tiny, "tiny", false, "shrink every notebook to 2 sections of 5 pages: checks the bench itself in minutes; the figures mean nothing")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q: every setting is a flag (see -help)", fs.Args())
	}
	nums, err := parseScenarios(*which)
	if err != nil {
		return err
	}
	if o.Scale <= 0 || o.SeedScale <= 0 || o.HiddenScale <= 0 || o.BaselineHours <= 0 || o.ScanEvery <= 0 || o.ScanHours <= 0 || o.ScaleHorizon <= 0 || o.ScalePages < 20 {
		return errors.New("-scale, -seed-scale, -hidden-scale, -baseline-hours, -scan-every, -scan-hours and -scale-horizon must be positive, -scale-pages at least 20")
	}
	if *merge != "" {
		b := &e2e.Bench{Opts: o, Log: log}
		if err := b.Merge(*merge); err != nil {
			return err
		}
		log.Info("merged", "from", *merge, "report", filepath.Join(o.Out, "e2e.md"))
		return nil
	}
	root, err := stack.ModuleRoot()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	h := &e2e.Harness{Root: root, Dir: *work, Log: log}
	log.Info("building the worker", "into", *work)
	if err := h.Build(ctx); err != nil {
		return err
	}
	b := &e2e.Bench{H: h, Opts: o, Log: log}
	start := time.Now()
	failed, err := b.Run(ctx, nums)
	if err != nil {
		return err
	}
	log.Info("done", "took", time.Since(start).Round(time.Second), "report", filepath.Join(o.Out, "e2e.md"))
	if len(failed) > 0 {
		var msgs []string
		for _, c := range failed {
			msgs = append(msgs, fmt.Sprintf("scenario %s: %s: %s", c.Scenario, c.What, c.Measured))
		}
		return fmt.Errorf("%d check(s) missed their bound:\n  %s", len(failed), strings.Join(msgs, "\n  "))
	}
	return nil
}

func scenarioList() string {
	var parts []string
	for n := 1; n <= e2e.NumScenarios; n++ {
		parts = append(parts, fmt.Sprintf("%d %s", n, e2e.ScenarioName(n)))
	}
	return strings.Join(parts, "; ")
}

// parseScenarios reads "1,2,5".
func parseScenarios(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || e2e.ScenarioName(n) == "" {
			return nil, fmt.Errorf("-scenarios %q: %q is not a scenario number (1 to %d)", s, f, e2e.NumScenarios)
		}
		out = append(out, n)
	}
	return out, nil
}
