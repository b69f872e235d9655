package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/limiter/entity"
	"github.com/notebridge/notebridge/report"
	"github.com/notebridge/notebridge/workflows"
)

const statusDescription = `Shows a migration's progress: pages done, failed and left, the ETA, the last Graph or Notion
error with its time, the limiter breaker holding Graph requests (its cause and when it lets a probe
through), a stall (no page done for longer than the Graph budget explains) with its likely cause,
the next command to run, the time spent waiting for Graph permits (throttle waits), and the user's
use of the Graph budget from the limiter's state query, with every section. --follow redraws a
progress line until the migration ends (on a terminal one line with a bar, cut to the terminal's
width so it never wraps; otherwise a plain line whenever something changed). The migration is
named by -w, or by --user (and --notebook). With --json it prints the status as a JSON object
(with --follow, one a line).`

// statusCmd shows one migration.
type statusCmd struct {
	*cli
	tc       client.Client
	tf       *temporalFlags // the connection, for the commands it prints
	id       string
	runID    string // the run shown, "" for the latest
	appID    string
	scan     map[string]int // section ID -> pages, from the last scan
	interval time.Duration
}

func newStatusCmd(c *cli, name, summary string) *cobra.Command {
	var follow bool
	var interval time.Duration
	var appID string
	var tf *temporalFlags
	var target *targetFlags
	cmd := c.newCommand(name, "(-w ID | --user U [--notebook N]) [--follow]", summary, statusDescription, func() string {
		id := target.placeholder()
		lim := entity.WorkflowID(workflows.LimiterResource, "<app id>")
		if appID != "" {
			lim = entity.WorkflowID(workflows.LimiterResource, appID)
		}
		return fmt.Sprintf("temporal workflow describe %[1]s --workflow-id %[2]s\n"+
			"temporal workflow query %[1]s --workflow-id %[2]s --name %[3]s\n"+
			"temporal workflow query %[1]s --workflow-id %[4]s --name %[3]s\n"+
			"temporal workflow query %[1]s --workflow-id %[5]s --name %[6]s",
			tf.cliFlags(), shellQuote(id), workflows.QueryProgress, shellQuote(id+"/section/<sectionID>"), shellQuote(lim), entity.QueryState)
	}, func(ctx context.Context, _ *cobra.Command) error {
		return c.status(ctx, tf, target, appID, follow, interval)
	})
	fs := cmd.Flags()
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	fs.BoolVarP(&follow, "follow", "f", false, "redraw the progress until the migration ends (with --json: a JSON object per change, one a line)")
	fs.DurationVar(&interval, "interval", time.Second, "how often --follow refreshes")
	fs.StringVar(&appID, "app-id", c.env("NOTEBRIDGE_APP_ID", ""), "the Microsoft app ID, which names the limiter whose budget is shown; default: the only limiter running (env NOTEBRIDGE_APP_ID)")
	return cmd
}

// status shows the migration target names, once or following it.
func (c *cli) status(ctx context.Context, tf *temporalFlags, target *targetFlags, appID string, follow bool, interval time.Duration) error {
	if interval <= 0 {
		return usagef("--interval must be positive")
	}
	tc, ref, err := target.dial(ctx, tf)
	if err != nil {
		return err
	}
	defer tc.Close()
	st := &statusCmd{cli: c, tc: tc, tf: tf, id: ref.id, runID: ref.runID, appID: appID, interval: interval}
	if err := st.loadScan(ctx); err != nil {
		return err
	}
	if follow {
		return st.follow(ctx)
	}
	return st.once(ctx)
}

// loadScan reads the page counts of the user's last scan, so pending
// sections count towards the total.
func (s *statusCmd) loadScan(ctx context.Context) error {
	parts := strings.SplitN(s.id, "/", 3)
	if len(parts) != 3 {
		return nil
	}
	res, err := lastScan(ctx, s.tc, parts[1])
	if err != nil || res == nil {
		return err
	}
	s.scan = progress.ScanPages(findNotebook(res, parts[2]))
	return nil
}

// once prints the migration's status.
func (s *statusCmd) once(ctx context.Context) error {
	g := &progress.Gatherer{Client: s.tc, ID: s.id, RunID: s.runID, App: s.appID}
	snap, err := gather(ctx, g)
	if err != nil {
		if d := s.tf.down(ctx, s.tc, err); d != "" {
			return fmt.Errorf("the status of %s is unknown: %w\n%s", s.id, err, d)
		}
		return err
	}
	if s.json {
		return s.printJSON(s.statusJSON(snap))
	}
	s.printStatus(snap)
	return nil
}

// follow redraws the progress until the migration ends, then prints the
// outcome; the error says how it ended.
func (s *statusCmd) follow(ctx context.Context) error {
	g := &progress.Gatherer{Client: s.tc, ID: s.id, RunID: s.runID, App: s.appID}
	tty := progress.IsTerminal(s.stdout) && !s.json
	var lastKey string
	var lastPrint time.Time
	var counts progress.Tracker
	var started time.Time
	toldWaiting := false
	for {
		snap, err := gather(ctx, g)
		if err != nil {
			if ctx.Err() != nil {
				return s.stopFollowing(tty)
			}
			d := s.tf.down(ctx, s.tc, err)
			if d == "" {
				return err
			}
			// Temporal is down: the last known counts with their age,
			// and what is down, until it answers again.
			snap = &progress.Snapshot{ID: s.id, Status: enumspb.WORKFLOW_EXECUTION_STATUS_RUNNING, Now: time.Now(), Down: d, Started: started}
		}
		started = snap.Started
		t := counts.Next(snap, s.scan)
		key := progress.Key(snap, t)
		switch {
		case s.json:
			if key != lastKey || !snap.Running() {
				if err := s.jsonLine(s.statusJSONOf(snap, t)); err != nil {
					return err
				}
			}
		case tty:
			// One line, redrawn: cut to the terminal's width (read
			// again each time, for a resized window), so it never wraps.
			line := progress.Bar(t, 20) + " " + progress.Line(snap, t)
			fmt.Fprintf(s.stdout, "\r\033[K%s", progress.Fit(line, progress.Width(s.stdout)))
		case key != lastKey || !snap.Running() || time.Since(lastPrint) >= 30*time.Second:
			fmt.Fprintln(s.stdout, progress.Line(snap, t))
			lastPrint = time.Now()
		}
		lastKey = key
		if !snap.Running() {
			if tty {
				fmt.Fprintln(s.stdout)
			}
			return s.printOutcome(snap)
		}
		if snap.Waiting() && !toldWaiting && !s.json {
			if tty {
				fmt.Fprintln(s.stdout)
			}
			s.printWaiting(s.stdout, snap)
			toldWaiting = true
		} else if !snap.Waiting() {
			toldWaiting = false
		}
		select {
		case <-ctx.Done():
			return s.stopFollowing(tty)
		case <-time.After(s.interval):
		}
	}
}

func (s *statusCmd) stopFollowing(tty bool) error {
	if tty {
		fmt.Fprintln(s.stdout)
	}
	fmt.Fprintf(s.stderr, "Stopped following; the migration goes on. Follow it again with:\n  %s\n", s.tf.starter("status", "-w", s.id, "--follow"))
	return errInterrupted
}

// printWaiting tells the operator that failed or skipped
// (password-protected) sections wait for them.
func (s *statusCmd) printWaiting(w io.Writer, snap *progress.Snapshot) {
	fmt.Fprintf(w, "%d section(s) failed and %d skipped, and the migration waits for you. Run a failed section, "+
		"or a skipped one once it is unlocked in OneNote, again with\n"+
		"  %s --section <section>     (or --all for every failed or skipped section)\n"+
		"or end the migration, with a report of what failed:\n  %s\n", snap.Progress.Failed, snap.Progress.Skipped,
		s.tf.starter("retry", "-w", snap.ID), s.tf.starter("finish", "-w", snap.ID))
	for _, sec := range snap.Progress.Sections {
		if sec.Status == workflows.SectionSkipped {
			fmt.Fprintf(w, "  skipped: %s (%s): %s\n", sec.Path, sec.ID, tidy(sec.Error))
		}
		if sec.Status == workflows.SectionFailed {
			fmt.Fprintf(w, "  failed: %s (%s): %s\n", sec.Path, sec.ID, tidy(sec.Error))
		}
	}
}

// printOutcome prints how the migration ended; the error is nil only for
// a migration that completed with nothing failed.
func (s *statusCmd) printOutcome(snap *progress.Snapshot) error {
	if snap.Report == nil {
		err := explain(snap.Failure, snap.User, "migration "+snap.ID)
		return err
	}
	rep := snap.Report
	if s.json {
		return outcomeErr(rep)
	}
	fmt.Fprintf(s.stdout, "%s completed: %s\n", snap.ID, summaryOf(rep))
	if rep.Readiness != "" {
		// A dry run says whether the Notion workspace can hold the pages.
		fmt.Fprintln(s.stdout, rep.Readiness)
	}
	if rep.LinkPages > 0 {
		fmt.Fprintf(s.stdout, "Internal links rewritten on %d pages (%d blocks).\n", rep.LinkPages, rep.LinkBlocks)
	}
	if sr := rep.Sync; sr != nil {
		for _, l := range sr.Changes {
			fmt.Fprintf(s.stdout, "  %s\n", l)
		}
		for _, l := range sr.Failed {
			fmt.Fprintf(s.stdout, "  not changed in Notion: %s\n", l)
		}
	}
	if rep.FailedSections > 0 || rep.FailedPages > 0 {
		for _, sec := range rep.Sections {
			if sec.Status != workflows.SectionDone {
				fmt.Fprintf(s.stdout, "  failed: %s (%s): %s\n", sec.Path, sec.ID, tidy(sec.Error))
			}
			for _, p := range sec.FailedPages {
				fmt.Fprintf(s.stdout, "    page %q (%s): %s\n", p.Title, p.ID, tidy(p.Error))
			}
		}
	}
	return outcomeErr(rep)
}

// outcomeErr is nil for a report with nothing failed, else the error
// that says so.
func outcomeErr(rep *workflows.NotebookReport) error {
	if rep.FailedSections > 0 || rep.FailedPages > 0 {
		return fmt.Errorf("%d sections and %d pages failed; migrate the notebook again to retry them (done pages are skipped)",
			rep.FailedSections, rep.FailedPages)
	}
	return nil
}

// printStatus prints the whole status of a snapshot.
func (s *statusCmd) printStatus(snap *progress.Snapshot) {
	w := s.stdout
	t := progress.TotalsOf(snap, s.scan)
	run := ""
	if s.runID != "" {
		run = " run " + s.runID
	}
	fmt.Fprintf(w, "Migration %s%s: %s, started %s (%s ago)\n", snap.ID, run, progress.StatusName(snap.Status),
		snap.Started.Local().Format(time.DateTime), progress.ShortDur(snap.Now.Sub(snap.Started)))
	tw := tabwriter.NewWriter(w, 0, 4, 1, ' ', 0)
	if snap.Running() {
		phase := snap.Progress.Phase
		if !snap.ProgressOK {
			phase = "unknown: the progress query got no answer (is a worker running?)"
			if snap.Down != "" {
				phase = "unknown: " + snap.Down
			}
		}
		fmt.Fprintf(tw, "  phase:\t%s\n", phase)
	} else if snap.Report != nil {
		fmt.Fprintf(tw, "  result:\t%s\n", summaryOf(snap.Report))
	} else if snap.Failure != nil {
		fmt.Fprintf(tw, "  failure:\t%v\n", explain(snap.Failure, snap.User, "the migration"))
	}
	if t.NoAnswer {
		// Unknown, not zero: the counts live in the workflow.
		fmt.Fprintf(tw, "  pages:\tunknown until a worker answers the progress query\n")
	} else {
		fmt.Fprintf(tw, "  pages:\t%s done (%d unchanged), %d failed, %d left\n", t.PagesText(), t.Unchanged, t.Failed, t.Remaining)
		fmt.Fprintf(tw, "  sections:\t%d done, %d running, %d pending, %d failed\n", t.SecDone, t.SecRunning, t.SecPending, t.SecFailed)
	}
	if snap.Running() {
		fmt.Fprintf(tw, "  ETA:\t%s\n", t.ETAText())
	}
	for _, row := range progress.HealthLines(snap) {
		fmt.Fprintf(tw, "  %s:\t%s\n", row[0], row[1])
	}
	if !t.NoAnswer {
		fmt.Fprintf(tw, "  throttle:\twaited %s in total for %d Graph permits\n", progress.ShortDur(t.Waited.Round(100*time.Millisecond)), t.Permits)
	}
	if st := snap.Limiter; st != nil {
		fmt.Fprintf(tw, "  budget:\t%s\n", progress.BudgetText(st, snap.User))
		fmt.Fprintf(tw, "  \tapp %s; %d foreground and %d background requests queued\n", progress.ScopeText(st.Model.App),
			st.Model.Queued[0], st.Model.Queued[1])
	}
	tw.Flush()
	if secs := snap.SectionList(); len(secs) > 0 {
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  SECTION\tSTATUS\tPAGES\tDONE\tFAILED\tID")
		for _, sec := range secs {
			pages, done, failed := fmt.Sprint(sec.Pages), fmt.Sprint(sec.Pages-sec.Failed), fmt.Sprint(sec.Failed)
			switch sp, ok := snap.Sections[sec.ID]; {
			case ok:
				pages, done, failed = fmt.Sprint(sp.Pages), fmt.Sprint(sp.Pages-sp.Remaining-sp.Failed), fmt.Sprint(sp.Failed)
			case sec.Status == workflows.SectionPending || sec.Status == workflows.SectionRunning || sec.Pages == 0 && sec.Error != "":
				pages, done, failed = "-", "-", "-"
				if n, ok := s.scan[sec.ID]; ok {
					pages = fmt.Sprint(n)
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", sec.Path, sec.Status, pages, done, failed, sec.ID)
		}
		tw.Flush()
	}
	if snap.Waiting() {
		fmt.Fprintln(w)
		s.printWaiting(w, snap)
	}
}

// gather takes a snapshot with g, an unknown workflow ID's error saying
// how to list migrations.
func gather(ctx context.Context, g *progress.Gatherer) (*progress.Snapshot, error) {
	snap, err := g.Gather(ctx)
	if err != nil {
		return nil, notFound(err, g.ID, "")
	}
	return snap, nil
}

// summaryOf is a report's first line, without the failed sections' errors
// (listed after it).
func summaryOf(rep *workflows.NotebookReport) string {
	msg := fmt.Sprintf("Notebook %q: %d sections, %d pages: %d written, %d unchanged, %d failed",
		rep.NotebookName, len(rep.Sections), rep.Pages, rep.Written, rep.Skipped, rep.FailedPages)
	if rep.DryRun {
		msg = fmt.Sprintf("Dry run of notebook %q: %d sections, %d pages; nothing written", rep.NotebookName, len(rep.Sections), rep.Pages)
	}
	if rep.Sync != nil {
		msg = fmt.Sprintf("Notebook %q: %s", rep.NotebookName, rep.Sync.Summary())
	}
	if rep.FailedSections > 0 {
		msg += fmt.Sprintf("; %d sections failed", rep.FailedSections)
	}
	if s := report.Summary(rep.LossKinds); s != "" {
		msg += "; " + s
	}
	return msg
}
