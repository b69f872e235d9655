package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	graph "github.com/notebridge/notebridge/emulator/graph"
	"github.com/notebridge/notebridge/limiter"
)

// Options configure the scenarios.
type Options struct {
	// Scale is the time scale of the Graph limits in scenarios 3 and 4: the
	// emulator's TimeScale and the limits profile onenote-x<Scale>.
	// SeedScale is scenarios 1 and 2's: slower, because the 1.05x bound
	// leaves the pipeline 5% of the run for what the windows do not
	// bound (the first and last bursts), and the pipeline's speed does
	// not scale.
	//
	// HiddenScale is scenario 5's: slower still, because its bound is on
	// stalls of two cooldowns (20 s) and the pipeline's reaction time (a
	// grant's signals, a workflow task, an activity dispatch: about a
	// second of wall-clock time at the worst) does not scale either; at
	// x60 that second is a minute.
	Scale, SeedScale, HiddenScale float64
	// BaselineHours is how many (scaled) hours each baseline of scenario 2
	// runs before it is stopped.
	BaselineHours float64
	// ScanEvery is the (scaled) interval between foreground scans in
	// scenario 3, and ScanHours how many (scaled) hours each variant
	// scans for.
	ScanEvery time.Duration
	ScanHours float64
	// ScalePages is the notebook size of scenario 6, and ScaleHorizon
	// the wall-clock time it may take before it is stopped.
	ScalePages   int
	ScaleHorizon time.Duration
	// Out is where e2e.md and the PNGs go.
	Out string
	// Tiny shrinks every notebook to at most 2 sections of 5 pages, to
	// check the bench itself in a few minutes; its figures mean nothing.
	Tiny bool
}

// DefaultOptions are the options `make bench-e2e` uses.
func DefaultOptions() Options {
	return Options{Scale: 60, SeedScale: 30, HiddenScale: 10, BaselineHours: 2, ScanEvery: 15 * time.Minute, ScanHours: 3, ScalePages: 10000,
		ScaleHorizon: 45 * time.Minute,
		Out:          "results"}
}

// Bench runs scenarios on a Harness and collects their report.
type Bench struct {
	H    *Harness
	Opts Options
	Log  *slog.Logger

	checks   []Check
	sections []string
	// scale is the time scale of the scenario running.
	scale float64
	seed  *seedRun // scenario 1's run, for scenario 2's comparison
}

// Check is one bound a scenario must meet.
type Check struct {
	Scenario string `json:"scenario"`
	What     string `json:"what"`
	Measured string `json:"measured"`
	Pass     bool   `json:"pass"`
}

func (b *Bench) check(scenario, what string, pass bool, format string, args ...any) {
	b.checks = append(b.checks, Check{Scenario: scenario, What: what, Measured: fmt.Sprintf(format, args...), Pass: pass})
	mark := "PASS"
	if !pass {
		mark = "FAIL"
	}
	b.Log.Info(mark+" "+scenario+": "+what, "measured", fmt.Sprintf(format, args...))
}

// plot writes a PNG; a plot that fails is logged, not fatal: the figures
// are in the report either way.
func (b *Bench) plot(name string, panels []Panel) {
	if err := WritePNG(filepath.Join(b.Opts.Out, name), panels); err != nil {
		b.Log.Warn("plot not written", "file", name, "error", err)
	}
}

// NumScenarios is the number of scenarios, numbered from 1.
const NumScenarios = 6

// ScenarioName names scenario n, or returns "" for no such scenario.
func ScenarioName(n int) string {
	switch n {
	case 1:
		return "one user, 1,300 pages"
	case 2:
		return "the baselines on the same notebook"
	case 3:
		return "foreground scans during a saturating migration"
	case 4:
		return "five users sharing the app budget"
	case 5:
		return "hidden limits 30% stricter, no headers"
	case 6:
		return "cost at scale"
	}
	return ""
}

// Result is what one scenario produced: its section of the report and
// its checks. Results are kept in e2e.json next to the report, so a run
// of some scenarios updates theirs and keeps the others'.
type Result struct {
	N       int           `json:"n"`
	Ran     time.Time     `json:"ran"`
	Took    time.Duration `json:"took"`
	Scale   float64       `json:"scale"`
	Section string        `json:"section"`
	Checks  []Check       `json:"checks"`
}

// Run runs the scenarios given by number, in order, and writes the
// report (with the saved results of scenarios not run now) and plots into
// Opts.Out. It returns the failed checks of the scenarios it ran.
func (b *Bench) Run(ctx context.Context, which []int) ([]Check, error) {
	if err := os.MkdirAll(b.Opts.Out, 0o755); err != nil {
		return nil, fmt.Errorf("e2e: %w", err)
	}
	saved, err := loadResults(filepath.Join(b.Opts.Out, "e2e.json"))
	if err != nil {
		return nil, err
	}
	var failed []Check
	slices.Sort(which)
	for _, n := range which {
		b.Log.Info("scenario", "n", n, "name", ScenarioName(n))
		t := time.Now()
		b.checks, b.sections = nil, nil
		b.scale = b.Opts.Scale
		switch {
		case n <= 2:
			b.scale = b.Opts.SeedScale
		case n == 5:
			b.scale = b.Opts.HiddenScale
		case n == 6:
			b.scale = 1 // real time: the limits are out of the way
		}
		var err error
		switch n {
		case 1:
			err = b.scenarioSeed(ctx)
		case 2:
			err = b.scenarioBaselines(ctx)
		case 3:
			err = b.scenarioForeground(ctx)
		case 4:
			err = b.scenarioFairness(ctx)
		case 5:
			err = b.scenarioHidden(ctx)
		case 6:
			err = b.scenarioScale(ctx)
		default:
			err = fmt.Errorf("no scenario %d (1 to 6)", n)
		}
		if err != nil {
			// Report it and go on: one broken scenario should not cost the
			// others' figures.
			b.checks, b.sections = nil, nil
			b.check(itoa(n), "the scenario ran", false, "%v", err)
			b.sections = append(b.sections, fmt.Sprintf("## %d. %s\n\nDid not run to the end: %v\n", n, ScenarioName(n), err))
		} else {
			b.Log.Info("scenario done", "n", n, "took", time.Since(t).Round(time.Second))
		}
		r := &Result{N: n, Ran: t.UTC(), Took: time.Since(t), Scale: b.scale, Section: strings.Join(b.sections, "\n"), Checks: b.checks}
		saved[n] = r
		for _, c := range b.checks {
			if !c.Pass {
				failed = append(failed, c)
			}
		}
		// Write after every scenario, so an interrupted run keeps what
		// it measured.
		if err := b.write(saved); err != nil {
			return nil, err
		}
		if ctx.Err() != nil {
			return failed, ctx.Err()
		}
	}
	return failed, nil
}

// Merge adds the results saved in dir (another run's -out: its e2e.json
// and PNG plots) to Opts.Out's, replacing those of the same scenarios, and
// rewrites the report. It runs nothing: scenarios run separately, each
// into a directory of its own, end up in one report.
func (b *Bench) Merge(dir string) error {
	from, err := loadResults(filepath.Join(dir, "e2e.json"))
	if err != nil {
		return err
	}
	if len(from) == 0 {
		return fmt.Errorf("e2e: no results in %s", dir)
	}
	if err := os.MkdirAll(b.Opts.Out, 0o755); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	saved, err := loadResults(filepath.Join(b.Opts.Out, "e2e.json"))
	if err != nil {
		return err
	}
	plots, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	for _, p := range plots {
		raw, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("e2e: %w", err)
		}
		if err := os.WriteFile(filepath.Join(b.Opts.Out, filepath.Base(p)), raw, 0o644); err != nil {
			return fmt.Errorf("e2e: %w", err)
		}
	}
	for n, r := range from {
		saved[n] = r
	}
	return b.write(saved)
}

// loadResults reads saved results; a missing file is no results.
func loadResults(path string) (map[int]*Result, error) {
	out := map[int]*Result{}
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("e2e: saved results: %w", err)
	}
	var rs []*Result
	if err := json.Unmarshal(raw, &rs); err != nil {
		return nil, fmt.Errorf("e2e: saved results %s: %w (delete it to start afresh)", path, err)
	}
	for _, r := range rs {
		out[r.N] = r
	}
	return out, nil
}

// write saves the results and regenerates e2e.md from them.
func (b *Bench) write(saved map[int]*Result) error {
	var rs []*Result
	for n := 1; n <= NumScenarios; n++ {
		if r := saved[n]; r != nil {
			rs = append(rs, r)
		}
	}
	raw, err := json.MarshalIndent(rs, "", "  ")
	if err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if err := os.WriteFile(filepath.Join(b.Opts.Out, "e2e.json"), append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	if err := os.WriteFile(filepath.Join(b.Opts.Out, "e2e.md"), []byte(markdown(rs)), 0o644); err != nil {
		return fmt.Errorf("e2e: %w", err)
	}
	return nil
}

// markdown renders the report from the results.
func markdown(rs []*Result) string {
	var w strings.Builder
	fmt.Fprintf(&w, "# End-to-end benchmarks\n\n")
	fmt.Fprintf(&w, "`make bench-e2e` (`cd bench && go run ./cmd/e2ebench -out results`; `-scenarios 1,3` runs some and keeps the "+
		"others' saved results). Each run is a fresh stack: a Temporal dev server (`bin/temporal server start-dev`, in memory), "+
		"the Graph OneNote and Notion emulators in the bench process, and the worker (`go build ./worker`) as a process of its "+
		"own. The Graph limits run faster than real time, by the same factor in the limiter (profile `onenote-x<factor>`) and "+
		"in the emulator; each scenario says its factor. Times are shown as the real time they stand for, with the wall-clock "+
		"time in parentheses. The Notion emulator has no rate limit here, so Notion never paces the pipeline. Machine: %d CPUs, "+
		"%s, %s, shared with other builds and tests while these ran.\n\n", runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&w, "## Checks\n\n| | scenario | bound | measured |\n|---|---|---|---|\n")
	for _, r := range rs {
		for _, c := range r.Checks {
			mark := "PASS"
			if !c.Pass {
				mark = "**FAIL**"
			}
			fmt.Fprintf(&w, "| %s | %s | %s | %s |\n", mark, c.Scenario, c.What, c.Measured)
		}
	}
	w.WriteString("\n")
	for _, r := range rs {
		head, rest, _ := strings.Cut(r.Section, "\n\n")
		scale := fmt.Sprintf("limits %g times faster than real time (an hour lasts %s)", r.Scale, scaledHour(r.Scale))
		if r.Scale == 1 {
			scale = "real time"
		}
		fmt.Fprintf(&w, "%s\n\n*Run %s, %s; took %s wall-clock.*\n\n%s\n", head, r.Ran.Format("2006-01-02 15:04 MST"), scale,
			r.Took.Round(time.Second), rest)
	}
	return w.String()
}

// users applies Opts.Tiny to the users of a scenario.
func (b *Bench) users(us ...User) []User {
	if !b.Opts.Tiny {
		return us
	}
	out := make([]User, len(us))
	for i, u := range us {
		u.Spec.SectionsPerContainer = min(u.Spec.SectionsPerContainer, 2)
		u.Spec.PagesPerSection = min(u.Spec.PagesPerSection, 5)
		out[i] = u
	}
	return out
}

// pages is the number of pages a user's notebook has.
func pages(u User) int {
	return u.Spec.Notebooks * u.Spec.SectionsPerContainer * u.Spec.PagesPerSection
}

// profile is the limits profile of scenarios 1-5.
func (b *Bench) profile() (string, limiter.Spec) {
	name := "onenote-x" + trimFloat(b.scale)
	spec, err := limiter.Profile(name)
	if err != nil {
		panic(err) // Scale is validated by the command
	}
	return name, spec
}

// scaled converts a wall-clock duration to the real time it stands for.
func (b *Bench) scaled(d time.Duration) time.Duration {
	return time.Duration(float64(d) * b.scale)
}

// wall converts a scaled (real-world) duration to wall-clock time.
func (b *Bench) wall(d time.Duration) time.Duration {
	return time.Duration(float64(d) / b.scale)
}

// fmtScaled shows a wall-clock duration as the real time it stands for,
// with the wall-clock time in parentheses.
func (b *Bench) fmtScaled(d time.Duration) string {
	return fmt.Sprintf("%s (%s)", fmtDur(b.scaled(d)), fmtDur(d))
}

// ratio is d over bound, or 0 when the bound is 0 (tiny runs).
func ratio(d, bound time.Duration) float64 {
	if bound <= 0 {
		return 0
	}
	return float64(d) / float64(bound)
}

// fmtDur rounds a duration for a table.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func trimFloat(f float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", f), "0"), ".")
}

// windows converts the Graph emulator's windows to the limiter's type.
func windows(ws []graphWindow) []limiter.Window {
	out := make([]limiter.Window, len(ws))
	for i, w := range ws {
		out[i] = limiter.Window{Limit: w.N, Per: limiter.Duration(w.Duration)}
	}
	return out
}

// graphWindow is the Graph emulator's window type.
type graphWindow = graph.Window
