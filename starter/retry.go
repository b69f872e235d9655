package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const retryDescription = `Runs a migration's failed sections again: --section names one (by ID, name or path, as the
status display lists them) and sends the retry-section signal; --all sends retry-failed. The
migration must be running (it waits while sections have failed). Pages already in Notion are
not written again.`

func runRetry(ctx context.Context, c *cli, args []string) error {
	var section string
	var all bool
	var tf *temporalFlags
	var target *targetFlags
	fs := c.newFlagSet("retry", "(-w ID | --user U [--notebook N]) (--section S | --all)", retryDescription, func() string {
		id := shellQuote(target.placeholder())
		sec := "<sectionID>"
		if section != "" {
			sec = section
		}
		return fmt.Sprintf("temporal workflow signal %[1]s --workflow-id %[2]s --name %[3]s --input %[4]s\n"+
			"temporal workflow signal %[1]s --workflow-id %[2]s --name %[5]s",
			tf.cliFlags(), id, workflows.SignalRetrySection, shellQuote(fmt.Sprintf("%q", sec)), workflows.SignalRetryFailed)
	})
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	fs.StringVar(&section, "section", "", "the failed section to run again: its ID, name or path")
	fs.BoolVar(&all, "all", false, "run every failed section again")
	if err := c.parse(fs, args); err != nil {
		return err
	}
	if (section == "") == !all {
		return usagef("give either -section S or -all")
	}
	tc, err := tf.dial(ctx)
	if err != nil {
		return err
	}
	defer tc.Close()
	id, err := target.resolve(ctx, tc)
	if err != nil {
		return err
	}
	g := &progress.Gatherer{Client: tc, ID: id}
	snap, err := gather(ctx, g)
	if err != nil {
		return err
	}
	if !snap.Running() {
		return fmt.Errorf("%s is %s, so there is nothing to retry: migrate the notebook again (pages already in Notion are skipped)",
			id, progress.StatusName(snap.Status))
	}
	if !snap.ProgressOK {
		return fmt.Errorf("%s does not answer its progress query yet (is a worker running?); try again in a moment", id)
	}
	if all {
		if snap.Progress.Failed+snap.Progress.Skipped == 0 {
			return fmt.Errorf("no section of %s has failed or been skipped (%d done, %d running, %d pending): nothing to retry",
				id, snap.Progress.Done, snap.Progress.Running, snap.Progress.Pending)
		}
		if err := tc.SignalWorkflow(ctx, id, "", workflows.SignalRetryFailed, nil); err != nil {
			return fmt.Errorf("signal %s: %w", workflows.SignalRetryFailed, err)
		}
		fmt.Fprintf(c.stdout, "Sent %s to %s: %d failed or skipped section(s) run again. Follow with:\n  starter status -w %s --follow\n",
			workflows.SignalRetryFailed, id, snap.Progress.Failed+snap.Progress.Skipped, shellQuote(id))
		return nil
	}
	var names []string
	for _, sec := range snap.Progress.Sections {
		if sec.ID != section && sec.Name != section && sec.Path != section {
			names = append(names, fmt.Sprintf("%q (%s, %s)", sec.Path, sec.ID, sec.Status))
			continue
		}
		if sec.Status != workflows.SectionFailed && sec.Status != workflows.SectionSkipped {
			return fmt.Errorf("section %q of %s is %s, not failed: only failed or skipped sections can be retried", sec.Path, id, sec.Status)
		}
		if err := tc.SignalWorkflow(ctx, id, "", workflows.SignalRetrySection, sec.ID); err != nil {
			return fmt.Errorf("signal %s: %w", workflows.SignalRetrySection, err)
		}
		fmt.Fprintf(c.stdout, "Sent %s %q to %s: section %q runs again. Follow with:\n  starter status -w %s --follow\n",
			workflows.SignalRetrySection, sec.ID, id, sec.Path, shellQuote(id))
		return nil
	}
	return fmt.Errorf("%s has no section %q; its sections are %s", id, section, strings.Join(names, ", "))
}
