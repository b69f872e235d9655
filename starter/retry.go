package main

import (
	"context"
	"fmt"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const retryDescription = `Runs a migration's failed or skipped sections again: --section names one (by ID, name or
path, as the status display lists them) with the retry-section update; --all sends retry-failed.
The migration answers at once: the section runs again, or why not (it is running, it is done, no
such section: the answer lists those that can be retried). A password-protected section that was
skipped can be retried once it is unlocked in OneNote. Pages already in Notion are not written
again.`

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
		return fmt.Sprintf("temporal workflow update execute %[1]s --workflow-id %[2]s --name %[3]s --input %[4]s\n"+
			"temporal workflow update execute %[1]s --workflow-id %[2]s --name %[5]s",
			tf.cliFlags(), id, workflows.UpdateRetrySection, shellQuote(fmt.Sprintf("%q", sec)), workflows.UpdateRetryFailed)
	})
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	fs.StringVar(&section, "section", "", "the failed or skipped section to run again: its ID, name or path")
	fs.BoolVar(&all, "all", false, "run every failed or skipped section again")
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
	var answer string
	if all {
		answer, err = workflows.RetryFailed(ctx, tc, id)
	} else {
		answer, err = workflows.RetrySection(ctx, tc, id, section)
	}
	if err != nil {
		return refusal(err)
	}
	fmt.Fprintf(c.stdout, "%s: %s. Follow with:\n  starter status -w %s --follow\n", id, answer, shellQuote(id))
	return nil
}
