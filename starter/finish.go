package main

import (
	"context"
	"fmt"

	"github.com/notebridge/notebridge/internal/progress"
	"github.com/notebridge/notebridge/workflows"
)

const finishDescription = `Ends a migration that waits with failed sections: sends the finish signal and waits for the
report, which lists what failed. Sections still running finish first. A migration that already
ended just has its report printed. Migrating the notebook again later retries what failed.`

func runFinish(ctx context.Context, c *cli, args []string) error {
	var tf *temporalFlags
	var target *targetFlags
	fs := c.newFlagSet("finish", "(-w ID | --user U [--notebook N])", finishDescription, func() string {
		id := shellQuote(target.placeholder())
		return fmt.Sprintf("temporal workflow signal %[1]s --workflow-id %[2]s --name %[3]s\n"+
			"temporal workflow result %[1]s --workflow-id %[2]s", tf.cliFlags(), id, workflows.SignalFinish)
	})
	tf = c.temporalFlags(fs, false)
	target = c.targetFlags(fs)
	if err := c.parse(fs, args); err != nil {
		return err
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
	st := &statusCmd{cli: c, tc: tc, id: id}
	if snap.Running() {
		if err := tc.SignalWorkflow(ctx, id, "", workflows.SignalFinish, nil); err != nil {
			return fmt.Errorf("signal %s: %w", workflows.SignalFinish, err)
		}
		fmt.Fprintf(c.stdout, "Sent %s to %s; waiting for its report", workflows.SignalFinish, id)
		if snap.Progress.Running > 0 || snap.Progress.Pending > 0 {
			fmt.Fprintf(c.stdout, " (%d sections still run first)", snap.Progress.Running+snap.Progress.Pending)
		}
		fmt.Fprintln(c.stdout, "...")
		var rep workflows.NotebookReport
		if err := tc.GetWorkflow(ctx, id, "").Get(ctx, &rep); err != nil && ctx.Err() != nil {
			return st.stopFollowing(false)
		}
		// The report, or how it failed, is read again below.
		if snap, err = gather(ctx, g); err != nil {
			return err
		}
	}
	if err := st.printOutcome(snap); err != nil && snap.Report == nil {
		return err
	}
	return nil
}
